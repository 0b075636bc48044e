import { lookup } from 'node:dns/promises';
import ipaddr from 'ipaddr.js';
import { BusinessRuleError } from './errors.ts';

/**
 * Webhook destinations (docs/merchant-guide.md, Webhooks): HTTPS, and never an address inside our network: loopback,
 * private, link-local (cloud metadata 169.254.169.254 included), unique-local, carrier-grade NAT,
 * unspecified or reserved. `allowInsecure` is the local-development switch that admits
 * http(s)://localhost and 127.0.0.1 only.
 */
export class UnsafeWebhookUrl extends Error {}

/**
 * THE rule for webhook destination addresses, shared by the acceptance-time check (here) and the
 * connect-time check (shared/webhooks/http.ts). What is allowed, and nothing else:
 *   public    plain IPv4 public unicast, or IPv6 global unicast (2000::/3) that is not a special
 *             range. Every IPv6 form that embeds an IPv4 address is refused: IPv4-compatible
 *             (::7f00:1, ::a9fe:a9fe), IPv4-mapped (::ffff:…), NAT64 (64:ff9b::/96, 64:ff9b:1::/48),
 *             SIIT (::ffff:0:…), 6to4 (2002::/16) and Teredo (2001::/32).
 *   loopback  (the local-development switch) plain IPv4 127.0.0.0/8 or ::1.
 */
export type AddressPolicy = 'public' | 'loopback';

/** URL hostnames the local-development switch admits (`url.hostname`, IPv6 in brackets). */
export const localDevelopmentHosts: ReadonlySet<string> = new Set(['localhost', '127.0.0.1', '[::1]']);

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

/** Checks the URL's form and every address its host resolves to. */
/** A request's `callbackUrl`: an unsafe one is a business-rule refusal (422 `callback_url_refused`). */
export async function assertSafeCallbackUrl(raw: string, allowInsecure: boolean): Promise<void> {
  await assertSafeWebhookUrl(raw, { allowInsecure }).catch((e: unknown) => {
    throw e instanceof UnsafeWebhookUrl ? new BusinessRuleError(`callbackUrl ${e.message}.`, 'callback_url_refused') : e;
  });
}

export async function assertSafeWebhookUrl(raw: string, options: { allowInsecure?: boolean; resolve?: typeof lookup } = {}): Promise<URL> {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw new UnsafeWebhookUrl('is not a valid URL');
  }
  if (raw.length > 2048) throw new UnsafeWebhookUrl('must be at most 2048 characters');
  if (url.username || url.password) throw new UnsafeWebhookUrl('must not contain credentials');
  if (options.allowInsecure && localDevelopmentHosts.has(url.hostname) && (url.protocol === 'http:' || url.protocol === 'https:'))
    return url;
  if (url.protocol !== 'https:') throw new UnsafeWebhookUrl('must use https');
  const host = url.hostname.replace(/^\[|\]$/g, '');
  const addresses = ipaddr.isValid(host)
    ? [host]
    : (await (options.resolve ?? lookup)(host, { all: true, verbatim: true }).catch(() => [])).map((a) => a.address);
  if (addresses.length === 0) throw new UnsafeWebhookUrl('does not resolve');
  if (!addresses.every(isPublicAddress)) throw new UnsafeWebhookUrl('resolves to a private, loopback, link-local or reserved address');
  return url;
}
