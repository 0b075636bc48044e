import type { lookup } from 'node:dns/promises';
import { BusinessRuleError } from './errors.ts';

/**
 * Webhook destinations (docs/merchant-guide.md, Webhooks): HTTPS, and never an address inside our network: loopback,
 * private, link-local (cloud metadata 169.254.169.254 included), unique-local, carrier-grade NAT,
 * unspecified or reserved. `allowInsecure` is the local-development switch that admits
 * http(s)://localhost and 127.0.0.1 only.
 */
export class UnsafeWebhookUrl extends Error {}

/** URL hostnames the local-development switch admits (`url.hostname`, IPv6 in brackets). */
export const localDevelopmentHosts: ReadonlySet<string> = new Set(['localhost', '127.0.0.1', '[::1]']);

/** A request's `callbackUrl`: an unsafe one is a business-rule refusal (422 `callback_url_refused`). */
export async function assertSafeCallbackUrl(raw: string, allowInsecure: boolean): Promise<void> {
  await assertSafeWebhookUrl(raw, { allowInsecure }).catch((e: unknown) => {
    throw e instanceof UnsafeWebhookUrl ? new BusinessRuleError(`callbackUrl ${e.message}.`, 'callback_url_refused') : e;
  });
}

/** Checks the URL's form and every address its host resolves to (the rule: shared/domain/address-policy.ts). */
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
  // Imported here, not at the top: a Lambda that never checks a URL (the provider callback, the
  // due sweeper: they import the deposit service for other paths) does not bundle ipaddr.js.
  const { isAddressLiteral, isPublicAddress } = await import('./address-policy.ts');
  // node:dns/promises is loaded at the first check, not with every Lambda that bundles this module (issue 26).
  const resolve = options.resolve ?? process.getBuiltinModule('node:dns/promises').lookup;
  const addresses = isAddressLiteral(host)
    ? [host]
    : (await resolve(host, { all: true, verbatim: true }).catch(() => [])).map((a) => a.address);
  if (addresses.length === 0) throw new UnsafeWebhookUrl('does not resolve');
  if (!addresses.every(isPublicAddress)) throw new UnsafeWebhookUrl('resolves to a private, loopback, link-local or reserved address');
  return url;
}
