import { createHmac, randomBytes, scrypt, timingSafeEqual, type ScryptOptions } from 'node:crypto';

/**
 * Dashboard passwords: scrypt with a per-secret salt. Only the encoded hash
 * `scrypt$N$r$p$salt$hash` (base64url parts) is stored; the clear text is never stored or logged.
 * Recovery codes are random (50 bits each) and single-use, so they need no slow hash: they are
 * stored as a keyed HMAC-SHA-256 (`recoveryCodeDigest`) and looked up by that value, one hash per
 * check instead of one scrypt per stored code (docs/security-and-limits.md, Dashboard sign-in).
 */
const params = { N: 16384, r: 8, p: 1 } as const;
const keyLength = 32;

/**
 * The one key derivation function every password check and hash goes through. An object so that
 * tests count the scrypt runs of each sign-in path (`vi.spyOn(kdf, 'derive')`): the work of a
 * sign-in must not depend on whether the password or the code is right.
 */
export const kdf = {
  derive(secret: string, salt: Buffer, options: ScryptOptions): Promise<Buffer> {
    return new Promise((resolve, reject) =>
      scrypt(secret.normalize('NFKC'), salt, keyLength, { ...options, maxmem: 64 * 1024 * 1024 }, (err, key) =>
        err ? reject(err) : resolve(key),
      ),
    );
  },
};

export async function hashSecret(secret: string): Promise<string> {
  const salt = randomBytes(16);
  const key = await kdf.derive(secret, salt, params);
  return ['scrypt', params.N, params.r, params.p, salt.toString('base64url'), key.toString('base64url')].join('$');
}

export async function verifySecret(secret: string, encoded: string): Promise<boolean> {
  const [scheme, n, r, p, salt, hash] = encoded.split('$');
  if (scheme !== 'scrypt' || !salt || !hash) return false;
  const expected = Buffer.from(hash, 'base64url');
  const key = await kdf.derive(secret, Buffer.from(salt, 'base64url'), { N: Number(n), r: Number(r), p: Number(p) });
  return key.length === expected.length && timingSafeEqual(key, expected);
}

/** Ten single-use recovery codes, `xxxxx-xxxxx` in lower-case base32; shown once, stored as recoveryCodeDigest. */
export function newRecoveryCodes(count = 10): string[] {
  const alphabet = 'abcdefghijklmnopqrstuvwxyz234567';
  return Array.from({ length: count }, () => {
    const bytes = randomBytes(10);
    const chars = [...bytes].map((b) => alphabet[b % 32]).join('');
    return `${chars.slice(0, 5)}-${chars.slice(5)}`;
  });
}

/** The stored form of a recovery code: `hmac$<base64url HMAC-SHA-256 under the server's recovery-code key>`. */
export function recoveryCodeDigest(key: Buffer, code: string): string {
  return `hmac$${createHmac('sha256', key).update(code.trim().toLowerCase(), 'utf8').digest('base64url')}`;
}

/** A recovery code stored before the keyed digest (scrypt, one run per stored code to check). */
export const isLegacyRecoveryHash = (stored: string) => stored.startsWith('scrypt$');
