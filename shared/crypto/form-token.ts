import { createHmac, timingSafeEqual } from 'node:crypto';
import { publicPathsKey } from './seal.ts';

/**
 * Anti-CSRF tokens of the hosted checkout forms: HMAC-SHA256 of the subject (e.g. the payment
 * intent) under a key derived from the public-paths key (never the master key) for this purpose only. A form posted from
 * anywhere but a page we rendered for that subject does not carry a valid token.
 */
let derived: Promise<Buffer> | undefined;
/** Tests: forget the derived key (after changing the environment). */
export const forgetFormKey = () => {
  derived = undefined;
};
const formKey = () =>
  (derived ??= publicPathsKey()
    .then((key) => createHmac('sha256', key).update('hosted-checkout-form-token/v1').digest())
    .catch((error: unknown) => {
      derived = undefined;
      throw error;
    }));

export async function formToken(subject: string): Promise<string> {
  return createHmac('sha256', await formKey())
    .update(subject)
    .digest('base64url');
}

export async function verifyFormToken(subject: string, token: string | null | undefined): Promise<boolean> {
  if (!token) return false;
  const expected = Buffer.from(await formToken(subject));
  const given = Buffer.from(token);
  return given.length === expected.length && timingSafeEqual(given, expected);
}
