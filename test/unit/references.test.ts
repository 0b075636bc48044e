import { describe, expect, it } from 'vitest';
import * as z from 'zod/mini';
import { generatedOrderRef } from '#shared/domain/references.ts';
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
