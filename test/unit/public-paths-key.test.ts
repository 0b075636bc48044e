import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { forgetFormKey, formToken, verifyFormToken } from '#shared/crypto/form-token.ts';
import { forgetLoadedKeys, masterKey, publicPathsKey, useSecretReader } from '#shared/crypto/seal.ts';
import { signSandboxCallback } from '#shared/providers/wallet-sandbox.ts';

/**
 * Issue 10 point 16: the hosted pages' anti-CSRF tokens and the provider callbacks' verification
 * keys come from their own secret, so the functions serving them never need the master key.
 */
const names = ['SECRETS_MASTER_KEY', 'SECRETS_MASTER_KEY_ARN', 'SECRETS_PUBLIC_KEY', 'SECRETS_PUBLIC_KEY_ARN'] as const;
const saved = Object.fromEntries(names.map((n) => [n, process.env[n]]));
const masterArn = 'arn:aws:secretsmanager:eu-west-1:111111111111:secret:master';
const publicArn = 'arn:aws:secretsmanager:eu-west-1:111111111111:secret:public';
let asked: string[] = [];

function configure(env: Partial<Record<(typeof names)[number], string>>) {
  for (const n of names) delete process.env[n];
  Object.assign(process.env, env);
  asked = [];
  useSecretReader(async (arn) => {
    asked.push(arn);
    return arn === masterArn ? 'm'.repeat(64) : arn === publicArn ? 'p'.repeat(64) : '';
  });
  forgetLoadedKeys();
  forgetFormKey();
}

describe('the public-paths key', () => {
  beforeEach(() => configure({}));
  afterEach(() => {
    for (const n of names)
      if (saved[n] === undefined) delete process.env[n];
      else process.env[n] = saved[n];
    forgetLoadedKeys();
    forgetFormKey();
  });

  it('is read from its own secret: page tokens and callback signatures never ask for the master key', async () => {
    configure({ SECRETS_PUBLIC_KEY_ARN: publicArn }); // what a page or callback function gets in AWS
    const token = await formToken('pay:abc');
    expect(await verifyFormToken('pay:abc', token)).toBe(true);
    expect(await verifyFormToken('pay:other', token)).toBe(false);
    expect(await signSandboxCallback(1, '{}')).toMatch(/^[0-9a-f]{64}$/);
    expect(asked).toEqual([publicArn]);
  });

  it('is never derived from an ARN-configured master key: without its own secret, tokens fail closed', async () => {
    configure({ SECRETS_MASTER_KEY_ARN: masterArn }); // an API function's configuration
    await expect(publicPathsKey()).rejects.toThrow(/SECRETS_PUBLIC_KEY/);
    await expect(formToken('pay:abc')).rejects.toThrow(/SECRETS_PUBLIC_KEY/);
    await expect(signSandboxCallback(1, '{}')).rejects.toThrow(/SECRETS_PUBLIC_KEY/);
    expect(asked).toEqual([]);
    await masterKey(); // the master key itself still loads for the functions that need it
    expect(asked).toEqual([masterArn]);
  });

  it('differs from the master key, and tokens made under another public key do not verify', async () => {
    configure({ SECRETS_PUBLIC_KEY_ARN: publicArn, SECRETS_MASTER_KEY_ARN: masterArn });
    const token = await formToken('pay:abc');
    expect((await publicPathsKey()).equals(await masterKey())).toBe(false);
    configure({ SECRETS_PUBLIC_KEY: 'q'.repeat(64) });
    expect(await verifyFormToken('pay:abc', token)).toBe(false);
  });

  it('locally (inline SECRETS_MASTER_KEY only) is derived for this purpose and is not the master key', async () => {
    configure({ SECRETS_MASTER_KEY: 'l'.repeat(64) });
    expect((await publicPathsKey()).equals(await masterKey())).toBe(false);
    expect(await verifyFormToken('pay:abc', await formToken('pay:abc'))).toBe(true);
  });
});
