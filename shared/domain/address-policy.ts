import ipaddr from 'ipaddr.js';

/**
 * THE rule for webhook destination addresses, shared by the acceptance-time check
 * (shared/domain/webhook-url.ts, which imports this module only when it checks a URL, so that a
 * Lambda that never does bundles no ipaddr.js: 13 kB, issue 26) and the connect-time check
 * (shared/webhooks/http.ts). What is allowed, and nothing else:
 *   public    plain IPv4 public unicast, or IPv6 global unicast (2000::/3) that is not a special
 *             range. Every IPv6 form that embeds an IPv4 address is refused: IPv4-compatible
 *             (::7f00:1, ::a9fe:a9fe), IPv4-mapped (::ffff:…), NAT64 (64:ff9b::/96, 64:ff9b:1::/48),
 *             SIIT (::ffff:0:…), 6to4 (2002::/16) and Teredo (2001::/32).
 *   loopback  (the local-development switch) plain IPv4 127.0.0.0/8 or ::1.
 */
export type AddressPolicy = 'public' | 'loopback';

const globalUnicast = ipaddr.parseCIDR('2000::/3');

export function isAllowedAddress(policy: AddressPolicy, address: string): boolean {
  if (!ipaddr.isValid(address)) return false;
  const parsed = ipaddr.parse(address);
  if (parsed.kind() === 'ipv4') {
    // Only the dotted-quad form: `127.1` or `0x7f000001` are not addresses a resolver returns.
    if (!ipaddr.IPv4.isValidFourPartDecimal(address)) return false;
    return parsed.range() === (policy === 'public' ? 'unicast' : 'loopback');
  }
  const v6 = parsed as ipaddr.IPv6;
  if (policy === 'loopback') return v6.range() === 'loopback';
  return v6.range() === 'unicast' && v6.match(globalUnicast);
}

export const isPublicAddress = (address: string): boolean => isAllowedAddress('public', address);

/** Whether `host` is an IP address literal (either family, any form ipaddr.js parses). */
export const isAddressLiteral = (host: string): boolean => ipaddr.isValid(host);
