import { describe, expect, it } from 'vitest';
import * as z from 'zod/mini';
import { descriptionRule, generatedOrderRef, orderRefRule, textRefusal } from '#shared/domain/references.ts';
import { orderRef } from '#shared/http/schemas.ts';

describe('references the gateway generates obey the rules it enforces', () => {
  it('a dashboard payout orderRef passes the API orderRef schema and is unique', () => {
    const refs = Array.from({ length: 50 }, () => generatedOrderRef('DASH'));
    for (const ref of refs) expect(z.safeParse(orderRef, { orderRef: ref }).success, ref).toBe(true);
    expect(new Set(refs).size).toBe(refs.length);
  });

  it('a prefix that would break the rule is refused at once', () => {
    expect(() => generatedOrderRef('DASH-')).toThrow(/breaks the API's rule/);
  });
});

describe('a text field refused names the characters at fault', () => {
  const messages = (value: unknown) => {
    const result = z.safeParse(orderRef, { orderRef: value });
    return result.success ? [] : result.error.issues.map((i) => i.message);
  };

  it('each once, in order, escaped when invisible, at most five', () => {
    expect(messages('ORDER-1001')).toEqual([`${orderRefRule.text}: '-' is not allowed`]);
    expect(messages('a b-c-d\t')).toEqual([`${orderRefRule.text}: ' ', '-' and '\\t' are not allowed`]);
    expect(messages('!@#$%^&')[0]).toMatch(/: '!', '@', '#', '\$', '%' and others are not allowed$/);
    expect(textRefusal(descriptionRule, 'Blue shirt, size M.')).toBe(`${descriptionRule.text}: ',' and '.' are not allowed`);
    // Only the rule when no character is at fault (too long, empty), or the value is no string.
    expect(textRefusal(descriptionRule, 'a'.repeat(201))).toBe(descriptionRule.text);
    expect(textRefusal(descriptionRule, 12)).toBe(descriptionRule.text);
  });
});
