import { BlockList, isIPv4, isIPv6 } from 'node:net';

/**
 * THE rule for webhook destination addresses, shared by the acceptance-time check
 * (shared/domain/webhook-url.ts, which imports this module only when it checks a URL) and the
 * connect-time check (shared/webhooks/http.ts). What is allowed, and nothing else:
 *   public    plain IPv4 public unicast, or IPv6 global unicast (2000::/3) that is not a special
 *             range. Every IPv6 form that embeds an IPv4 address is refused: IPv4-compatible
 *             (::7f00:1, ::a9fe:a9fe), IPv4-mapped (::ffff:…), NAT64 (64:ff9b::/96, 64:ff9b:1::/48),
 *             SIIT (::ffff:0:…), 6to4 (2002::/16) and Teredo (2001::/32).
 *   loopback  (the local-development switch) plain IPv4 127.0.0.0/8 or ::1.
 *
 * The special ranges are those of ipaddr.js 2.5 (its `range()` other than `unicast`), checked with
 * Node's own BlockList so no Lambda bundles an address library (ipaddr.js was 13 kB of each that checks
 * a URL: docs/scaling.md, Lambda bundles); test/unit/address-policy.test.ts holds the two to the same answers.
 */
export type AddressPolicy = 'public' | 'loopback';

/** IPv4 that is not public unicast: unspecified, broadcast, multicast, link-local, loopback, CGNAT, private, reserved, AS112, AMT. */
const specialV4: readonly (readonly [string, number])[] = [
  ['0.0.0.0', 8],
  ['255.255.255.255', 32],
  ['224.0.0.0', 4],
  ['169.254.0.0', 16],
  ['127.0.0.0', 8],
  ['100.64.0.0', 10],
  ['10.0.0.0', 8],
  ['172.16.0.0', 12],
  ['192.168.0.0', 16],
  ['192.0.0.0', 24],
  ['192.0.2.0', 24],
  ['192.88.99.0', 24],
  ['198.18.0.0', 15],
  ['198.51.100.0', 24],
  ['203.0.113.0', 24],
  ['240.0.0.0', 4],
  ['192.175.48.0', 24],
  ['192.31.196.0', 24],
  ['192.52.193.0', 24],
];

/**
 * The special IPv6 ranges inside global unicast (2000::/3; the others, ::/128 to ff00::/8, are outside it): Teredo,
 * benchmarking, AMT, AS112, ORCHID, ORCHIDv2, DRIP (all in 2001::/23, reserved), documentation, 6to4,
 * AS112 (RFC 7534) and the documentation range of RFC 9637.
 */
const specialV6: readonly (readonly [string, number])[] = [
  ['2001::', 23],
  ['2001:db8::', 32],
  ['2002::', 16],
  ['2620:4f:8000::', 48],
  ['3fff::', 20],
];

const blockList = (family: 'ipv4' | 'ipv6', subnets: readonly (readonly [string, number])[]) => {
  const list = new BlockList();
  for (const [network, prefix] of subnets) list.addSubnet(network, prefix, family);
  return list;
};

/** Built at the first check, not when a Lambda loads. */
let lists: { v4: BlockList; v6: BlockList; globalUnicast: BlockList; loopbackV6: BlockList } | undefined;
const ranges = () =>
  (lists ??= {
    v4: blockList('ipv4', specialV4),
    v6: blockList('ipv6', specialV6),
    globalUnicast: blockList('ipv6', [['2000::', 3]]),
    loopbackV6: blockList('ipv6', [['::1', 128]]),
  });

/** An IPv6 address without its zone index (`fe80::1%eth0`; letters and digits only, as ipaddr.js reads one). */
function withoutZone(address: string): string | undefined {
  const at = address.indexOf('%');
  if (at === -1) return address;
  return /^[0-9a-z]+$/i.test(address.slice(at + 1)) ? address.slice(0, at) : undefined;
}

export function isAllowedAddress(policy: AddressPolicy, address: string): boolean {
  // Only the dotted-quad form: `127.1` or `0x7f000001` are not addresses a resolver returns.
  if (isIPv4(address)) return policy === 'public' ? !ranges().v4.check(address, 'ipv4') : address.startsWith('127.');
  const v6 = withoutZone(address);
  if (v6 === undefined || !isIPv6(v6)) return false;
  if (policy === 'loopback') return ranges().loopbackV6.check(v6, 'ipv6');
  return ranges().globalUnicast.check(v6, 'ipv6') && !ranges().v6.check(v6, 'ipv6');
}

export const isPublicAddress = (address: string): boolean => isAllowedAddress('public', address);

/** Whether `host` is an IP address literal (either family; an IPv6 one may carry a zone index). */
export const isAddressLiteral = (host: string): boolean => {
  const v6 = withoutZone(host);
  return isIPv4(host) || (v6 !== undefined && isIPv6(v6));
};
