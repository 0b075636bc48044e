import { randomUUID } from 'node:crypto';

/**
 * The specification's rule for a merchant's `orderRef`: letters and digits only, at most 100 characters.
 * The API's schema (shared/http/schemas.ts) enforces it; anything the gateway generates itself obeys it too.
 */
export const orderRefPattern = /^[A-Za-z0-9]+$/;
export const orderRefMaxLength = 100;

/** A fresh orderRef for a request the gateway makes on the merchant's behalf (e.g. a dashboard payout): `DASH3f2a…`. */
export function generatedOrderRef(prefix: string): string {
  const ref = `${prefix}${randomUUID().replaceAll('-', '')}`;
  if (!orderRefPattern.test(ref) || ref.length > orderRefMaxLength)
    throw new Error(`generated orderRef prefix ${prefix} breaks the API's rule`);
  return ref;
}
