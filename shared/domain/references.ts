import { randomUUID } from 'node:crypto';

/**
 * The specification's rule for a merchant's `orderRef`: letters and digits only, at most 100 characters.
 * The API's schema (shared/http/schemas.ts) enforces it; anything the gateway generates itself obeys it too.
 */
export const orderRefPattern = /^[A-Za-z0-9]+$/;
export const orderRefMaxLength = 100;
/** A text field's rule: the whole value's pattern, one allowed character, and the words a 400 and the reference use. */
export interface TextRule {
  pattern: RegExp;
  character: RegExp;
  text: string;
}

/** The characters are named, since `ORDER-1001` is the usual first try. */
export const orderRefRule: TextRule = {
  pattern: orderRefPattern,
  character: /[A-Za-z0-9]/,
  text: `letters and digits only (A-Z, a-z, 0-9: no dashes, spaces or other signs), at most ${orderRefMaxLength} characters`,
};

/** The specification's rule for a payment's `description`: letters, digits and spaces, 1-200 characters. */
export const descriptionRule: TextRule = {
  pattern: /^[A-Za-z0-9 ]{1,200}$/,
  character: /[A-Za-z0-9 ]/,
  text: 'letters, digits and spaces only (A-Z, a-z, 0-9 and space: no commas, dots or other signs), 1-200 characters',
};

/**
 * A value's characters outside `allowed` (a one-character class), each once and quoted as a 400 names them:
 * `',' and '#' are not allowed` (control and other invisible characters escaped: `'\t'`).
 */
function charactersOutside(value: string, allowed: RegExp): string | undefined {
  const bad = [...new Set([...value].filter((c) => !allowed.test(c)))].map((c) => `'${JSON.stringify(c).slice(1, -1)}'`);
  if (!bad.length) return undefined;
  const shown = bad.length > 5 ? [...bad.slice(0, 5), 'others'] : bad;
  const list = shown.length > 1 ? `${shown.slice(0, -1).join(', ')} and ${shown.at(-1)}` : shown[0];
  return `${list} ${bad.length > 1 ? 'are' : 'is'} not allowed`;
}

/** A 400's message for a value that breaks a text rule: the rule, then the characters at fault when there are any. */
export const textRefusal = (rule: TextRule, value: unknown): string => {
  const outside = typeof value === 'string' ? charactersOutside(value, rule.character) : undefined;
  return outside ? `${rule.text}: ${outside}` : rule.text;
};

/** A fresh orderRef for a request the gateway makes on the merchant's behalf (e.g. a dashboard payout): `DASH3f2a…`. */
export function generatedOrderRef(prefix: string): string {
  const ref = `${prefix}${randomUUID().replaceAll('-', '')}`;
  if (!orderRefPattern.test(ref) || ref.length > orderRefMaxLength)
    throw new Error(`generated orderRef prefix ${prefix} breaks the API's rule`);
  return ref;
}
