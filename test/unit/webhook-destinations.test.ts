import { describe, expect, it } from 'vitest';
import { isAllowedAddress } from '#shared/domain/address-policy.ts';
import { assertSafeWebhookUrl, UnsafeWebhookUrl } from '#shared/domain/webhook-url.ts';
import { destinationRule, guardedLookup } from '#shared/webhooks/http.ts';

/**
 * One allow rule for webhook destinations, checked at request time (assertSafeWebhookUrl and
 * destinationRule on IP-literal URLs, resolver answers) and at connect time (guardedLookup). Only
 * the strings are inspected: nothing here connects anywhere.
 */
const refused = [
  // IPv4 that is not public unicast
  '127.0.0.1',
  '127.255.255.254',
  '10.0.0.1',
  '172.16.0.1',
  '172.31.255.255',
  '192.168.1.1',
  '169.254.169.254',
  '100.64.0.1',
  '0.0.0.0',
  '0.1.2.3',
  '224.0.0.1',
  '239.255.255.250',
  '255.255.255.255',
  '240.0.0.1',
  '192.0.0.8',
  '192.0.2.1',
  '198.18.0.1',
  '198.51.100.7',
  '203.0.113.9',
  // IPv6 that is not global unicast
  '::',
  '::1',
  'fe80::1',
  'fd00::1',
  'fc00::1',
  'fec0::1',
  'ff02::1',
  '100::1',
  '2001:db8::1',
  '2001:10::1',
  // IPv6 forms that embed an IPv4 address
  '::7f00:1',
  '::127.0.0.1',
  '::a9fe:a9fe',
  '::169.254.169.254',
  '::a00:1',
  '::10.0.0.1',
  '::808:808',
  '::8.8.8.8',
  '::ffff:127.0.0.1',
  '::ffff:7f00:1',
  '::ffff:10.0.0.1',
  '::ffff:8.8.8.8',
  '::ffff:0:7f00:1',
  '::ffff:0:8.8.8.8',
  '64:ff9b::7f00:1',
  '64:ff9b::8.8.8.8',
  '64:ff9b:1::a00:1',
  '2002:7f00:1::1',
  '2002:a9fe:a9fe::1',
  '2001:0:4136:e378:8000:63bf:3fff:fdd2',
];
const allowed = ['93.184.216.34', '8.8.8.8', '1.1.1.1', '2606:4700::1111', '2a00:1450:4001:82a::200e', '2001:4860:4860::8888'];

const resolver = (...addresses: string[]) =>
  ((_host: string, _o: unknown, cb: (e: null, a: { address: string; family: number }[]) => void) =>
    cb(
      null,
      addresses.map((address) => ({ address, family: address.includes(':') ? 6 : 4 })),
    )) as never;
const connectLookup = (policy: 'public' | 'loopback', address: string) =>
  new Promise<unknown>((ok, fail) =>
    guardedLookup(policy, resolver(address))('hooks.example.com', { all: true }, (e: Error | null, a: unknown) => (e ? fail(e) : ok(a))),
  );
const literal = (address: string) => `https://${address.includes(':') ? `[${address}]` : address}/hook`;

describe('webhook destination allow rule (one list, both checks)', () => {
  it(`has a table of at least 40 refused forms`, () => expect(refused.length).toBeGreaterThanOrEqual(40));

  it.each(refused)('refuses %s at request time and at connect time', async (address) => {
    expect(isAllowedAddress('public', address)).toBe(false);
    expect(destinationRule(literal(address), false)).toHaveProperty('refused');
    await expect(assertSafeWebhookUrl(literal(address))).rejects.toThrow(UnsafeWebhookUrl);
    await expect(
      assertSafeWebhookUrl('https://hooks.example.com/x', {
        resolve: (async () => [{ address, family: address.includes(':') ? 6 : 4 }]) as never,
      }),
    ).rejects.toThrow(UnsafeWebhookUrl);
    await expect(connectLookup('public', address)).rejects.toThrow(/private, loopback/);
  });

  it.each(allowed)('admits public unicast %s at both checks', async (address) => {
    expect(isAllowedAddress('public', address)).toBe(true);
    expect(destinationRule(literal(address), false)).toMatchObject({ policy: 'public' });
    await expect(connectLookup('public', address)).resolves.toBeDefined();
  });

  it('the local-development switch admits the same loopback hosts and plain loopback addresses at both checks', async () => {
    for (const url of ['http://localhost:4000/x', 'http://127.0.0.1:4000/x', 'http://[::1]:4000/x']) {
      await expect(assertSafeWebhookUrl(url, { allowInsecure: true }), url).resolves.toBeInstanceOf(URL);
      expect(destinationRule(url, true), url).toMatchObject({ policy: 'loopback' });
    }
    for (const url of ['http://[::ffff:127.0.0.1]:4000/x', 'http://[::7f00:1]:4000/x', 'http://10.0.0.1/x']) {
      await expect(assertSafeWebhookUrl(url, { allowInsecure: true }), url).rejects.toThrow(UnsafeWebhookUrl);
      expect(destinationRule(url, true), url).toHaveProperty('refused');
    }
    await expect(connectLookup('loopback', '127.0.0.1')).resolves.toBeDefined();
    await expect(connectLookup('loopback', '::1')).resolves.toBeDefined();
    for (const address of ['::ffff:127.0.0.1', '::7f00:1', '192.168.1.5'])
      await expect(connectLookup('loopback', address)).rejects.toThrow(/non-loopback/);
  });
});
