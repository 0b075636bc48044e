import { describe, expect, it } from 'vitest';
import { isPublicAddress } from '#shared/domain/address-policy.ts';
import { assertSafeWebhookUrl, UnsafeWebhookUrl } from '#shared/domain/webhook-url.ts';

const resolvesTo = (...addresses: string[]) =>
  (async () => addresses.map((address) => ({ address, family: address.includes(':') ? 6 : 4 }))) as never;

describe('webhook destinations (SSRF guard at acceptance)', () => {
  it('classifies addresses', () => {
    for (const a of [
      '127.0.0.1',
      '10.1.2.3',
      '172.16.0.1',
      '192.168.1.1',
      '169.254.169.254',
      '::1',
      'fd00::1',
      'fe80::1',
      '0.0.0.0',
      '100.64.0.1',
      '::ffff:127.0.0.1',
    ]) {
      expect(isPublicAddress(a), a).toBe(false);
    }
    expect(isPublicAddress('93.184.216.34')).toBe(true);
    expect(isPublicAddress('2606:4700::1111')).toBe(true);
  });

  it('accepts https URLs that resolve to public addresses only', async () => {
    await expect(assertSafeWebhookUrl('https://hooks.example.com/x', { resolve: resolvesTo('93.184.216.34') })).resolves.toBeInstanceOf(
      URL,
    );
    await expect(assertSafeWebhookUrl('https://hooks.example.com/x', { resolve: resolvesTo('93.184.216.34', '10.0.0.5') })).rejects.toThrow(
      UnsafeWebhookUrl,
    );
    await expect(assertSafeWebhookUrl('http://hooks.example.com/x', { resolve: resolvesTo('93.184.216.34') })).rejects.toThrow(/https/);
    await expect(assertSafeWebhookUrl('https://169.254.169.254/latest')).rejects.toThrow(UnsafeWebhookUrl);
    await expect(assertSafeWebhookUrl('https://user:pw@hooks.example.com/')).rejects.toThrow(/credentials/);
  });

  it('admits loopback receivers only with the local-development switch', async () => {
    await expect(assertSafeWebhookUrl('http://127.0.0.1:4000/hook')).rejects.toThrow(UnsafeWebhookUrl);
    await expect(assertSafeWebhookUrl('http://127.0.0.1:4000/hook', { allowInsecure: true })).resolves.toBeInstanceOf(URL);
    await expect(assertSafeWebhookUrl('http://10.0.0.1/hook', { allowInsecure: true })).rejects.toThrow(UnsafeWebhookUrl);
  });
});
