import { lookup as dnsLookup, type LookupAddress, type LookupAllOptions, type LookupOneOptions } from 'node:dns';
import http from 'node:http';
import https from 'node:https';
import type { LookupFunction } from 'node:net';
import { isAddressLiteral, isAllowedAddress, type AddressPolicy } from '#shared/domain/address-policy.ts';
import { localDevelopmentHosts } from '#shared/domain/webhook-url.ts';

/**
 * One webhook POST (docs/merchant-guide.md, Webhooks): a hard deadline (5 s), no redirects (Node's client never
 * follows them; a 3xx is a failure), and the SSRF guard at CONNECT time. The acceptance-time check
 * (assertSafeWebhookUrl) resolved the host once; DNS can answer differently later (rebinding), so
 * every new connection resolves through `guardedLookup`, which refuses the connection unless every
 * address is public. IP-literal hosts never reach a lookup and are checked here directly.
 *
 * `allowInsecure` (the merchant's local-development switch) admits http(s)://localhost, 127.0.0.1
 * and [::1] only, and only to loopback addresses. Strict and local traffic use separate keep-alive
 * agents, so a strict request can never reuse a socket opened under the local rule.
 */
export interface PostResult {
  /** The HTTP status, or null when no response arrived. */
  statusCode: number | null;
  durationMs: number;
  /** Null on 2xx; otherwise why the attempt failed (no secrets, no bodies). */
  error: string | null;
  /** The destination was refused by the SSRF guard (nothing was sent). */
  refused: boolean;
  /** A 429 or 503 answer's Retry-After header, as sent. */
  retryAfter?: string;
}

export class RefusedDestination extends Error {
  readonly code = 'WEBHOOK_DESTINATION_REFUSED';
}

type Policy = AddressPolicy;

const allowed = isAllowedAddress;

type Resolver = (
  hostname: string,
  options: LookupAllOptions,
  callback: (error: NodeJS.ErrnoException | null, addresses: LookupAddress[]) => void,
) => void;

/** A `lookup` for net.connect that fails unless every address the host resolves to is allowed. */
export function guardedLookup(policy: Policy, resolve: Resolver = dnsLookup as Resolver): LookupFunction {
  return ((hostname: string, options: LookupOneOptions | LookupAllOptions, callback: (...args: unknown[]) => void) => {
    resolve(hostname, { ...options, all: true }, (error, addresses) => {
      if (error) return callback(error);
      if (addresses.length === 0 || !addresses.every((a) => allowed(policy, a.address))) {
        return callback(
          new RefusedDestination(
            `${hostname} resolves to a ${policy === 'public' ? 'private, loopback, link-local or reserved' : 'non-loopback'} address`,
          ),
        );
      }
      if ((options as LookupAllOptions).all) return callback(null, addresses);
      return callback(null, addresses[0]!.address, addresses[0]!.family);
    });
  }) as LookupFunction;
}

/**
 * Keep-alive agents, at most 64 sockets per host (a merchant's endpoint never gets more requests
 * at once from one process). Every one of them stays open when idle (maxFreeSockets = maxSockets):
 * with fewer, each burst of more than that many deliveries to one host closed the surplus and
 * opened it again on the next (issue 26 measured 535 connections for 2,000 deliveries, each a TCP
 * and for https a TLS handshake). Idle sockets close after 4 s without traffic (`timeout`).
 */
export const maxSocketsPerHost = 64;
const agentOptions = { keepAlive: true, maxSockets: maxSocketsPerHost, maxFreeSockets: maxSocketsPerHost, timeout: 4_000 };
const lookups: Record<Policy, LookupFunction> = { public: guardedLookup('public'), loopback: guardedLookup('loopback') };
const agents = {
  public: new https.Agent({ ...agentOptions, lookup: lookups.public }),
  loopbackHttps: new https.Agent({ ...agentOptions, lookup: lookups.loopback }),
  loopbackHttp: new http.Agent({ ...agentOptions, lookup: lookups.loopback }),
};

/** Which rule a URL falls under, or why it is refused before any connection. */
export function destinationRule(raw: string, allowInsecure: boolean): { url: URL; policy: Policy } | { refused: string } {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    return { refused: 'not a valid URL' };
  }
  if (url.username || url.password) return { refused: 'the URL must not contain credentials' };
  const policy: Policy = allowInsecure && localDevelopmentHosts.has(url.hostname) ? 'loopback' : 'public';
  if (policy === 'public' && url.protocol !== 'https:') return { refused: 'the URL must use https' };
  if (policy === 'loopback' && url.protocol !== 'https:' && url.protocol !== 'http:') return { refused: 'the URL must use http(s)' };
  const host = url.hostname.replace(/^\[|\]$/g, '');
  if (isAddressLiteral(host) && !allowed(policy, host))
    return { refused: `${host} is a private, loopback, link-local or reserved address` };
  return { url, policy };
}

export function postWebhook(
  raw: string,
  body: string,
  headers: Record<string, string>,
  options: { allowInsecure: boolean; timeoutMs: number },
): Promise<PostResult> {
  const started = performance.now();
  const elapsed = () => Math.round(performance.now() - started);
  const rule = destinationRule(raw, options.allowInsecure);
  if ('refused' in rule)
    return Promise.resolve({ statusCode: null, durationMs: 0, error: `destination refused: ${rule.refused}`, refused: true });
  const { url, policy } = rule;
  const secure = url.protocol === 'https:';
  const agent = policy === 'public' ? agents.public : secure ? agents.loopbackHttps : agents.loopbackHttp;
  const request = secure ? https.request : http.request;

  return new Promise<PostResult>((resolve) => {
    let settled = false;
    const finish = (result: Omit<PostResult, 'durationMs'>) => {
      if (settled) return;
      settled = true;
      clearTimeout(deadline);
      resolve({ ...result, durationMs: elapsed() });
    };
    const req = request(url, {
      method: 'POST',
      agent,
      lookup: lookups[policy],
      headers: { ...headers, 'Content-Length': String(Buffer.byteLength(body, 'utf8')) },
    });
    const deadline = setTimeout(() => {
      finish({ statusCode: null, error: `timeout: no complete response within ${options.timeoutMs} ms`, refused: false });
      req.destroy();
    }, options.timeoutMs);
    req.on('response', (res) => {
      const status = res.statusCode ?? 0;
      let received = 0;
      res.on('data', (chunk: Buffer) => {
        received += chunk.length;
        if (received > 64 * 1024) res.destroy(); // the body is not used; do not read megabytes of it
      });
      const done = () =>
        finish({
          statusCode: status,
          error:
            status >= 200 && status < 300
              ? null
              : status >= 300 && status < 400
                ? `redirect not followed (HTTP ${status})`
                : `HTTP ${status}`,
          refused: false,
          ...((status === 429 || status === 503) && typeof res.headers['retry-after'] === 'string'
            ? { retryAfter: res.headers['retry-after'] }
            : {}),
        });
      res.on('end', done);
      res.on('close', done);
      res.on('error', done);
    });
    req.on('error', (error: NodeJS.ErrnoException) => {
      if (error instanceof RefusedDestination || error.code === 'WEBHOOK_DESTINATION_REFUSED') {
        finish({ statusCode: null, error: `destination refused: ${error.message}`, refused: true });
      } else {
        finish({ statusCode: null, error: `connection error: ${error.code ?? error.message}`, refused: false });
      }
    });
    req.end(body);
  });
}
