import { createCipheriv, createDecipheriv, createHash, randomBytes } from 'node:crypto';

/**
 * Secrets the gateway must use later (a merchant's secret key for body signatures, webhook
 * signing secrets) are stored sealed with AES-256-GCM under a master key that never touches the
 * table: in AWS a Secrets Manager secret (SECRETS_MASTER_KEY_ARN), locally SECRETS_MASTER_KEY.
 * Sealed form: `v1.<iv>.<tag>.<ciphertext>` (base64url). The associated data binds a sealed value
 * to the item it belongs to, so a sealed secret copied onto another item does not open.
 */
export type MasterKey = Buffer;

export function seal(masterKey: MasterKey, plaintext: string, associatedData: string): string {
  const iv = randomBytes(12);
  const cipher = createCipheriv('aes-256-gcm', masterKey, iv);
  cipher.setAAD(Buffer.from(associatedData, 'utf8'));
  const ciphertext = Buffer.concat([cipher.update(plaintext, 'utf8'), cipher.final()]);
  return ['v1', iv, cipher.getAuthTag(), ciphertext].map((p) => (typeof p === 'string' ? p : p.toString('base64url'))).join('.');
}

export function open(masterKey: MasterKey, sealed: string, associatedData: string): string {
  const [version, iv, tag, ciphertext] = sealed.split('.');
  if (version !== 'v1' || !iv || !tag || ciphertext === undefined) throw new Error('unrecognised sealed value');
  const decipher = createDecipheriv('aes-256-gcm', masterKey, Buffer.from(iv, 'base64url'));
  decipher.setAAD(Buffer.from(associatedData, 'utf8'));
  decipher.setAuthTag(Buffer.from(tag, 'base64url'));
  return Buffer.concat([decipher.update(Buffer.from(ciphertext, 'base64url')), decipher.final()]).toString('utf8');
}

/** The AES key is the SHA-256 of the configured secret string (at least 32 random characters). */
export function deriveMasterKey(secret: string): MasterKey {
  if (secret.length < 32) throw new Error('the master key secret must have at least 32 characters');
  return createHash('sha256').update(secret, 'utf8').digest();
}

let cached: Promise<MasterKey> | undefined;

/** The master key, loaded once per process (cold start). */
export function masterKey(): Promise<MasterKey> {
  cached ??= loadMasterKey().catch((error: unknown) => {
    cached = undefined;
    throw error;
  });
  return cached;
}

async function loadMasterKey(): Promise<MasterKey> {
  const inline = process.env.SECRETS_MASTER_KEY;
  if (inline) return deriveMasterKey(inline);
  const arn = process.env.SECRETS_MASTER_KEY_ARN;
  if (!arn) throw new Error('neither SECRETS_MASTER_KEY nor SECRETS_MASTER_KEY_ARN is set');
  const { getSecret } = await import('@aws-lambda-powertools/parameters/secrets');
  const value = await getSecret(arn, { maxAge: 3600 });
  if (typeof value !== 'string') throw new Error('master key secret is not a string');
  return deriveMasterKey(value);
}
