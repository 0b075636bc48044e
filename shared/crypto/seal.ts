import { createCipheriv, createDecipheriv, createHash, hkdfSync, randomBytes } from 'node:crypto';

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

/** A key loaded once per process (cold start); a failed load is tried again on the next call. */
function loadOnce(load: () => Promise<Buffer>) {
  let pending: Promise<Buffer> | undefined;
  const get = () =>
    (pending ??= load().catch((error: unknown) => {
      pending = undefined;
      throw error;
    }));
  return Object.assign(get, { forget: () => void (pending = undefined) });
}

// Pure: a bundle that never reads a key keeps neither its loader nor its environment variable, so
// test/infra/code-grants.test.ts can tell from each bundle which secrets the function reads.
const loadedMaster = /* @__PURE__ */ loadOnce(() => loadMasterKey());
const loadedPublic = /* @__PURE__ */ loadOnce(() => loadPublicPathsKey());

/** The master key, loaded once per process (cold start). */
export const masterKey = (): Promise<MasterKey> => loadedMaster();

/** Outside Lambda (the ops CLI against AWS) a Secrets Manager reader is plugged in here. */
let secretReader: ((arn: string) => Promise<string>) | undefined;
export function useSecretReader(reader: (arn: string) => Promise<string>): void {
  secretReader = reader;
  forgetLoadedKeys();
}

/** Reads any Secrets Manager secret by ARN the way the keys are read (live provider credentials, shared/providers/live). */
export const readSecretString = (arn: string): Promise<string> => (secretReader ?? readFromLambdaExtension)(arn);

async function loadMasterKey(): Promise<MasterKey> {
  const inline = process.env.SECRETS_MASTER_KEY;
  if (inline) return deriveMasterKey(inline);
  const arn = process.env.SECRETS_MASTER_KEY_ARN;
  if (!arn) throw new Error('neither SECRETS_MASTER_KEY nor SECRETS_MASTER_KEY_ARN is set');
  return deriveMasterKey(await (secretReader ?? readFromLambdaExtension)(arn));
}

/**
 * The key of the unauthenticated paths (hosted checkout pages, provider callbacks): the hosted
 * forms' anti-CSRF tokens and the sandbox wallet callbacks' HMAC are derived from it, never from
 * the master key, so those functions need not (and in AWS cannot) read the master key
 * (issue 10 point 16). In AWS its own Secrets Manager secret (SECRETS_PUBLIC_KEY_ARN), read only
 * by those functions; locally SECRETS_PUBLIC_KEY, or, when only an inline SECRETS_MASTER_KEY is
 * configured (local stack, tests), a key derived from it for this purpose only. An ARN-configured
 * master key is never used for it.
 */
export const publicPathsKey = (): Promise<Buffer> => loadedPublic();

async function loadPublicPathsKey(): Promise<Buffer> {
  const inline = process.env.SECRETS_PUBLIC_KEY;
  if (inline) return deriveMasterKey(inline);
  const arn = process.env.SECRETS_PUBLIC_KEY_ARN;
  if (arn) return deriveMasterKey(await (secretReader ?? readFromLambdaExtension)(arn));
  const local = process.env.SECRETS_MASTER_KEY;
  if (local) return createHash('sha256').update('public-paths-key/v1\0').update(deriveMasterKey(local)).digest();
  throw new Error('neither SECRETS_PUBLIC_KEY nor SECRETS_PUBLIC_KEY_ARN is set');
}

/**
 * The key that seals dashboard users' TOTP secrets. In AWS its own Secrets Manager secret
 * (SECRETS_TOTP_KEY_ARN), read only by the dashboard functions that check codes; locally
 * SECRETS_TOTP_KEY, or, with neither set (local stack, tests), the legacy key below.
 */
const loadedTotp = /* @__PURE__ */ loadOnce(async () => {
  const inline = process.env.SECRETS_TOTP_KEY;
  if (inline) return deriveMasterKey(inline);
  const arn = process.env.SECRETS_TOTP_KEY_ARN;
  if (arn) return deriveMasterKey(await (secretReader ?? readFromLambdaExtension)(arn));
  return legacyDashboardTotpKey();
});
export const dashboardTotpKey = (): Promise<Buffer> => loadedTotp();

/**
 * The TOTP seal key before it had its own secret: HKDF-SHA256 of the public-paths key with its own
 * info label. Seeds sealed under it stay readable (shared/services/dashboard-auth.ts openTotp falls
 * back to it and re-seals under dashboardTotpKey at the user's next sign-in; docs/security-and-limits.md).
 */
const loadedLegacyTotp = /* @__PURE__ */ loadOnce(async () =>
  Buffer.from(hkdfSync('sha256', await publicPathsKey(), Buffer.alloc(0), 'dashboard-totp-seal/v1', 32)),
);
export const legacyDashboardTotpKey = (): Promise<Buffer> => loadedLegacyTotp();

/**
 * The HMAC key of dashboard recovery codes (their stored digests, shared/crypto/password.ts):
 * HKDF-SHA256 of the TOTP seal key with its own label, so a table dump alone cannot test guessed
 * codes, the sign-in Lambda needs no master key, and the public checkout functions (which read the
 * public-paths key) cannot derive it once the TOTP key has its own secret.
 */
const loadedRecovery = /* @__PURE__ */ loadOnce(async () =>
  Buffer.from(hkdfSync('sha256', await dashboardTotpKey(), Buffer.alloc(0), 'dashboard-recovery-code/v1', 32)),
);
export const dashboardRecoveryKey = (): Promise<Buffer> => loadedRecovery();

/** Tests: forget the loaded keys (after changing the environment). */
export function forgetLoadedKeys(): void {
  loadedMaster.forget();
  loadedPublic.forget();
  loadedTotp.forget();
  loadedRecovery.forget();
  loadedLegacyTotp.forget();
}

/** The AWS Parameters and Secrets Lambda extension (a layer on every function; no SDK needed). */
async function readFromLambdaExtension(arn: string): Promise<string> {
  const port = process.env.PARAMETERS_SECRETS_EXTENSION_HTTP_PORT ?? '2773';
  const response = await fetch(`http://localhost:${port}/secretsmanager/get?secretId=${encodeURIComponent(arn)}`, {
    headers: { 'X-Aws-Parameters-Secrets-Token': process.env.AWS_SESSION_TOKEN ?? '' },
  });
  if (!response.ok) throw new Error(`secrets extension answered ${response.status}`);
  const { SecretString } = (await response.json()) as { SecretString?: string };
  if (!SecretString) throw new Error('master key secret has no string value');
  return SecretString;
}
