import ipaddr from 'ipaddr.js';
import { describe, expect, it } from 'vitest';
import { isAddressLiteral, isAllowedAddress, type AddressPolicy } from '#shared/domain/address-policy.ts';

/**
 * shared/domain/address-policy.ts checks addresses with Node's BlockList (no address library in the Lambdas). The
 * rule it replaced, written with ipaddr.js, is kept here as the reference: both must answer the same for every
 * address a resolver or a URL's hostname can give, in and around each of ipaddr.js's special ranges and at random.
 */
const globalUnicast = ipaddr.parseCIDR('2000::/3');
function reference(policy: AddressPolicy, address: string): boolean {
  if (!ipaddr.isValid(address)) return false;
  const parsed = ipaddr.parse(address);
  if (parsed.kind() === 'ipv4') {
    if (!ipaddr.IPv4.isValidFourPartDecimal(address)) return false;
    return parsed.range() === (policy === 'public' ? 'unicast' : 'loopback');
  }
  const v6 = parsed as ipaddr.IPv6;
  if (policy === 'loopback') return v6.range() === 'loopback';
  return v6.range() === 'unicast' && v6.match(globalUnicast);
}

/** A seeded generator (mulberry32): the same addresses every run. */
function random(seed: number) {
  return () => {
    seed = (seed + 0x6d2b79f5) | 0;
    let t = Math.imul(seed ^ (seed >>> 15), 1 | seed);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}
const next = random(26);
const randomBytes = (n: number) => Array.from({ length: n }, () => Math.floor(next() * 256));

/** Addresses in a subnet (its first, last and random ones) and just outside it. */
function around(network: ipaddr.IPv4 | ipaddr.IPv6, prefix: number): string[] {
  const base = network.toByteArray();
  const bits = base.length * 8;
  const withHost = (fill: (i: number) => number) =>
    base.map((byte, i) => {
      const keep = Math.max(0, Math.min(8, prefix - i * 8));
      const mask = (0xff << (8 - keep)) & 0xff;
      return (byte & mask) | (fill(i) & ~mask & 0xff);
    });
  const step = (bytes: number[], delta: 1 | -1) => {
    const out = [...bytes];
    for (let i = out.length - 1; i >= 0; i--) {
      out[i] = (out[i]! + delta + 256) % 256;
      if ((delta === 1 && out[i] !== 0) || (delta === -1 && out[i] !== 255)) break;
    }
    return out;
  };
  const first = withHost(() => 0);
  const last = withHost(() => 0xff);
  const inside = [first, last, ...Array.from({ length: 8 }, () => withHost(() => Math.floor(next() * 256)))];
  const outside = prefix === 0 || prefix > bits ? [] : [step(first, -1), step(last, 1)];
  return [...inside, ...outside].map((bytes) => ipaddr.fromByteArray(bytes).toString());
}

const specialRanges = (prototype: { SpecialRanges: Record<string, unknown> }) =>
  Object.values(prototype.SpecialRanges).flatMap((r) =>
    Array.isArray((r as unknown[])[0]) ? (r as [never, number][]) : [r as [never, number]],
  );

const samples = [
  ...specialRanges(ipaddr.IPv4.prototype as never).flatMap(([net, prefix]) => around(net, prefix)),
  ...specialRanges(ipaddr.IPv6.prototype as never).flatMap(([net, prefix]) => around(net, prefix)),
  ...around(globalUnicast[0], globalUnicast[1]),
  ...Array.from({ length: 4000 }, () => ipaddr.fromByteArray(randomBytes(4)).toString()),
  ...Array.from({ length: 2000 }, () => ipaddr.fromByteArray(randomBytes(16)).toString()),
  // Global unicast at random (the only IPv6 the public policy admits), in its compressed and full forms.
  ...Array.from({ length: 2000 }, () => ipaddr.fromByteArray([0x20 | Math.floor(next() * 32), ...randomBytes(15)]) as ipaddr.IPv6).flatMap(
    (a) => [a.toString(), a.toNormalizedString(), a.toNormalizedString().replace(/[0-9a-f]+/g, (g) => g.padStart(4, '0'))],
  ),
];
/** The other ways an address can be written: embedded IPv4, zone indexes, not an address at all. */
const forms = [
  '::ffff:1.2.3.4',
  '::ffff:127.0.0.1',
  '::1.2.3.4',
  '64:ff9b::8.8.8.8',
  '2606:4700::8.8.8.8',
  '2001:db8::1.2.3.4',
  '0:0:0:0:0:0:0:1',
  '::0:1',
  '::',
  'fe80::1%eth0',
  'fe80::1%1',
  '2606:4700:4700::1111%eth0',
  '2606:4700:4700::1111%',
  '2606:4700:4700::1111%e-1',
  '::1%lo',
  '127.0.0.1',
  '127.1',
  '0x7f000001',
  '2130706433',
  '010.0.0.1',
  '1.2.3.04',
  '8.8.8.8',
  '256.1.1.1',
  '1.2.3',
  '1.2.3.4.5',
  'example.com',
  '',
  '2606:4700:4700::1111::1',
  '12345::1',
];

describe('the webhook address rule without ipaddr.js', () => {
  it.each(['public', 'loopback'] as const)('answers as the ipaddr.js rule for every sampled address (%s)', (policy) => {
    const differ = [...samples, ...forms].filter((a) => isAllowedAddress(policy, a) !== reference(policy, a));
    expect(differ).toEqual([]);
    // The samples reach both answers.
    expect(samples.some((a) => isAllowedAddress(policy, a))).toBe(true);
    expect(samples.some((a) => !isAllowedAddress(policy, a))).toBe(true);
  });

  it('takes as an address literal exactly what a URL hostname holds as one', () => {
    const hosts = [...samples.slice(0, 500), ...forms.filter((f) => !f.includes('%'))].flatMap((a) => {
      try {
        const hostname = new URL(`https://${a.includes(':') ? `[${a}]` : a}/`).hostname.replace(/^\[|\]$/g, '');
        return hostname ? [hostname] : [];
      } catch {
        return [];
      }
    });
    expect(hosts.length).toBeGreaterThan(400);
    expect(hosts.filter((h) => isAddressLiteral(h) !== ipaddr.isValid(h))).toEqual([]);
    expect(isAddressLiteral('example.com')).toBe(false);
    expect(isAddressLiteral('fe80::1%eth0')).toBe(true);
  });
});
