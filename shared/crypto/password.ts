import { randomBytes, scrypt, timingSafeEqual, type ScryptOptions } from 'node:crypto';

/**
 * Dashboard passwords and recovery codes: scrypt with a per-secret salt. Only the encoded hash
 * `scrypt$N$r$p$salt$hash` (base64url parts) is stored; the clear text is never stored or logged.
 */
const params = { N: 16384, r: 8, p: 1 } as const;
const keyLength = 32;

function derive(secret: string, salt: Buffer, options: ScryptOptions): Promise<Buffer> {
  return new Promise((resolve, reject) =>
    scrypt(secret.normalize('NFKC'), salt, keyLength, { ...options, maxmem: 64 * 1024 * 1024 }, (err, key) =>
      err ? reject(err) : resolve(key),
    ),
  );
}

export async function hashSecret(secret: string): Promise<string> {
  const salt = randomBytes(16);
  const key = await derive(secret, salt, params);
  return ['scrypt', params.N, params.r, params.p, salt.toString('base64url'), key.toString('base64url')].join('$');
}

export async function verifySecret(secret: string, encoded: string): Promise<boolean> {
  const [scheme, n, r, p, salt, hash] = encoded.split('$');
  if (scheme !== 'scrypt' || !salt || !hash) return false;
  const expected = Buffer.from(hash, 'base64url');
  const key = await derive(secret, Buffer.from(salt, 'base64url'), { N: Number(n), r: Number(r), p: Number(p) });
  return key.length === expected.length && timingSafeEqual(key, expected);
}

/** Ten single-use recovery codes, `xxxxx-xxxxx` in lower-case base32; shown once, stored hashed. */
export function newRecoveryCodes(count = 10): string[] {
  const alphabet = 'abcdefghijklmnopqrstuvwxyz234567';
  return Array.from({ length: count }, () => {
    const bytes = randomBytes(10);
    const chars = [...bytes].map((b) => alphabet[b % 32]).join('');
    return `${chars.slice(0, 5)}-${chars.slice(5)}`;
  });
}
