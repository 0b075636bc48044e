import { createHash, randomBytes, randomInt } from 'node:crypto';

/**
 * API keys, secret keys and webhook secrets (docs/merchant-guide.md, Keys and modes). Keys are shown once; only the SHA-256
 * of an API key is stored. The mode always comes from the key, never from the request.
 */
export type Mode = 'test' | 'live';
export const modes: readonly Mode[] = ['test', 'live'];

const base62 = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz';
const keyBodyLength = 40;

function randomBase62(length: number): string {
  let out = '';
  for (let i = 0; i < length; i++) out += base62[randomInt(base62.length)];
  return out;
}

export function newApiKey(mode: Mode): string {
  return `pk_${mode}_${randomBase62(keyBodyLength)}`;
}

export function newSecretKey(mode: Mode): string {
  return `sk_${mode}_${randomBase62(keyBodyLength)}`;
}

export function newWebhookSecret(): string {
  return `whsec_${randomBytes(32).toString('base64')}`;
}

/** Short public id an operator can quote instead of the key itself. */
export function newKeyId(): string {
  return `key_${randomBase62(20)}`;
}

const apiKeyShape = /^pk_(test|live)_[0-9A-Za-z]{32,128}$/;

/** The mode a well-formed API key claims, or undefined for anything malformed. */
export function parseApiKey(raw: string | undefined): { mode: Mode; hash: string } | undefined {
  if (!raw) return undefined;
  const match = apiKeyShape.exec(raw);
  if (!match) return undefined;
  return { mode: match[1] as Mode, hash: hashApiKey(raw) };
}

export function hashApiKey(raw: string): string {
  return createHash('sha256').update(raw, 'utf8').digest('hex');
}
