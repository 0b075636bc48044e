import { lookup } from 'node:dns/promises';
import ipaddr from 'ipaddr.js';

/**
 * Webhook destinations (CONTRACT §10): HTTPS, and never an address inside our network: loopback,
 * private, link-local (cloud metadata 169.254.169.254 included), unique-local, carrier-grade NAT,
 * unspecified or reserved. `allowInsecure` is the local-development switch that admits
 * http(s)://localhost and 127.0.0.1 only.
 */
export class UnsafeWebhookUrl extends Error {}

export function isPublicAddress(address: string): boolean {
  if (!ipaddr.isValid(address)) return false;
  let parsed = ipaddr.parse(address);
  if (parsed.kind() === 'ipv6' && (parsed as ipaddr.IPv6).isIPv4MappedAddress()) parsed = (parsed as ipaddr.IPv6).toIPv4Address();
  return parsed.range() === 'unicast';
}

const isLoopbackHost = (host: string) => host === 'localhost' || host === '127.0.0.1' || host === '[::1]';

/** Checks the URL's form and every address its host resolves to. */
export async function assertSafeWebhookUrl(raw: string, options: { allowInsecure?: boolean; resolve?: typeof lookup } = {}): Promise<URL> {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw new UnsafeWebhookUrl('is not a valid URL');
  }
  if (raw.length > 2048) throw new UnsafeWebhookUrl('must be at most 2048 characters');
  if (url.username || url.password) throw new UnsafeWebhookUrl('must not contain credentials');
  if (options.allowInsecure && isLoopbackHost(url.hostname) && (url.protocol === 'http:' || url.protocol === 'https:')) return url;
  if (url.protocol !== 'https:') throw new UnsafeWebhookUrl('must use https');
  const host = url.hostname.replace(/^\[|\]$/g, '');
  const addresses = ipaddr.isValid(host)
    ? [host]
    : (await (options.resolve ?? lookup)(host, { all: true, verbatim: true }).catch(() => [])).map((a) => a.address);
  if (addresses.length === 0) throw new UnsafeWebhookUrl('does not resolve');
  if (!addresses.every(isPublicAddress)) throw new UnsafeWebhookUrl('resolves to a private, loopback, link-local or reserved address');
  return url;
}
