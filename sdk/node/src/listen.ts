import { randomUUID } from 'node:crypto';
import { parseArgs } from 'node:util';
import { Gateway, GatewayConnectionError, GatewayError } from './client.ts';
import { signedHeaders } from './webhooks.ts';

/**
 * `svc-gateway-listen` (the package's bin; docs/merchant-guide.md, "Developing webhooks locally"): follow
 * a gateway's events feed (GET /Gateway/v1/Events) with a test-mode key and forward each new event to a
 * local URL, signed with the given endpoint secret exactly as the dispatcher signs real deliveries
 * (signedHeaders), so a receiver on a laptop sees what a deployed endpoint would. Node's own modules
 * only: the package keeps no dependencies.
 */

export interface FeedItem {
  eventId: string;
  type: string;
  /** Unix seconds, as the envelope's `created`. */
  created: number;
  deliveryState: string;
  event: unknown;
}

/** A command-line value the forwarder refuses, with the reason (shown before anything runs). */
export class OptionError extends Error {
  override name = 'OptionError';
}

/** Only test-mode keys: the forwarder is a development tool. */
export function testKey(value: string): string {
  if (!/^pk_test_/.test(value)) throw new OptionError('works with test-mode API keys (pk_test_…) only: it is a development tool');
  return value;
}

export function positive(value: string): number {
  const n = Number(value);
  if (!Number.isInteger(n) || n <= 0) throw new OptionError('must be a positive whole number');
  return n;
}

/**
 * --since: an ISO 8601 date or date-time, or a time ago (`30m`, `2h`, `7d`); the feed keeps 30 days. Anything else is
 * refused at once instead of a 400 from the feed on every poll.
 */
export function sinceOption(value: string, now = Date.now()): string {
  const ago = /^(\d+)([smhd])$/.exec(value.trim());
  const at = ago
    ? now - Number(ago[1]) * { s: 1_000, m: 60_000, h: 3_600_000, d: 86_400_000 }[ago[2] as 's' | 'm' | 'h' | 'd']
    : /^\d{4}-\d{2}-\d{2}([T ][\d:.]+(Z|[+-]\d{2}:?\d{2})?)?$/.test(value.trim())
      ? Date.parse(value.trim())
      : Number.NaN;
  if (Number.isNaN(at)) throw new OptionError('give a date or date-time (2026-11-25, 2026-11-25T09:00:00Z) or a time ago (30m, 2h, 7d)');
  if (at > now) throw new OptionError('is in the future: events are forwarded from a time in the past');
  if (at < now - 30 * 86_400_000) throw new OptionError('is more than 30 days ago: the events feed keeps 30 days');
  return new Date(at).toISOString();
}

/**
 * An error with its causes, as one line: `fetch failed: connect ECONNREFUSED 127.0.0.1:3000` rather than `fetch failed`;
 * a gateway problem with its status, code and trace id.
 */
export function errorMessage(error: unknown): string {
  if (error instanceof GatewayConnectionError) return error.reason; // the URL and advice are the caller's to say once
  if (error instanceof GatewayError)
    return `the gateway answered ${error.status} ${error.code}: ${error.message}${error.traceId ? ` (trace ${error.traceId})` : ''}`;
  const parts: string[] = [];
  for (let e: unknown = error; e !== undefined && e !== null && parts.length < 5; e = (e as { cause?: unknown }).cause)
    parts.push(e instanceof Error ? e.message : String(e));
  return parts.join(': ');
}

/**
 * One read of the feed before "Ready": a key the gateway refuses, or a gateway that does not answer, ends listen at once
 * with the reason (and what to check) instead of an error line every poll.
 */
export async function checkAccess(gateway: Gateway, baseUrl: string): Promise<void> {
  try {
    await gateway.request('GET', '/Gateway/v1/Events', { query: { limit: 1 } });
  } catch (error) {
    if (error instanceof GatewayError && (error.status === 401 || error.status === 403))
      throw new Error(
        `the gateway at ${baseUrl} refused the API key (${error.status} ${error.code ?? ''}: ${error.message}). ` +
          'Use a test-mode key (pk_test_…) of this gateway with the read scope: the dashboard shows them under Developers.',
      );
    if (error instanceof GatewayError) throw new Error(`the events feed at ${baseUrl} answered ${error.status}: ${error.message}`);
    throw new Error(`cannot reach the gateway at ${baseUrl} (${errorMessage(error)}): is it running?`);
  }
}

/** Reads every feed page newer than `since` (the feed is newest first), oldest first. */
async function readFeed(gateway: Gateway, since: string, types: string | undefined): Promise<FeedItem[]> {
  const items: FeedItem[] = [];
  let startingAfter: string | undefined;
  for (let page = 0; page < 50; page++) {
    const answer = await gateway.request<{ items: FeedItem[]; hasMore: boolean }>('GET', '/Gateway/v1/Events', {
      query: { since, limit: 100, type: types, startingAfter },
    });
    items.push(...answer.items);
    if (!answer.hasMore || answer.items.length === 0) break;
    startingAfter = answer.items.at(-1)!.eventId;
  }
  return items.reverse();
}

/**
 * Forwards one event as a real delivery: the same body bytes and every signature header the
 * dispatcher sends (X-Svc-* and Standard Webhooks), with a fresh delivery id.
 */
export async function forward(
  url: string,
  secret: string,
  item: FeedItem,
  timeoutMs = 10_000,
): Promise<{ status: number | string; ms: number }> {
  const body = JSON.stringify(item.event);
  const headers = signedHeaders({
    body,
    secrets: [secret],
    eventId: item.eventId,
    eventType: item.type,
    deliveryId: `dlv_listen_${randomUUID()}`,
    timestamp: Math.floor(Date.now() / 1000),
  });
  const started = Date.now();
  try {
    const response = await fetch(url, { method: 'POST', headers, body, signal: AbortSignal.timeout(timeoutMs) });
    await response.arrayBuffer();
    return { status: response.status, ms: Date.now() - started };
  } catch (error) {
    // The receiver's failure by its cause (ECONNREFUSED: nothing listens there), else the error's name (TimeoutError).
    const code = (error as { cause?: { code?: unknown } }).cause?.code;
    return { status: typeof code === 'string' ? code : error instanceof Error ? error.name : 'error', ms: Date.now() - started };
  }
}

export interface ListenOptions {
  apiKey: string;
  secret: string;
  forwardTo: string;
  baseUrl: string;
  events?: string | undefined;
  since?: string | undefined;
  pollMs: number;
  /** Stop after this many forwarded events (tests, scripts). */
  max?: number | undefined;
  print?: (line: string) => void;
}

/** The listen loop: poll the feed, forward what is new, print one line per event. */
export async function listen(options: ListenOptions, signal?: AbortSignal): Promise<number> {
  const print = options.print ?? ((line: string) => console.log(line));
  const gateway = new Gateway({ apiKey: options.apiKey, baseUrl: options.baseUrl });
  const seen = new Map<string, number>(); // eventId → created (ms), pruned as the window moves
  let since = options.since ?? new Date().toISOString();
  let forwarded = 0;
  await checkAccess(gateway, options.baseUrl);
  print(`Ready. Forwarding ${options.events ?? 'all'} events of ${options.baseUrl} to ${options.forwardTo} (Ctrl-C stops).`);
  while (!signal?.aborted) {
    let fresh: FeedItem[] = [];
    try {
      fresh = (await readFeed(gateway, since, options.events)).filter((item) => !seen.has(item.eventId));
    } catch (error) {
      print(`feed: ${errorMessage(error)}`);
    }
    for (const item of fresh) {
      seen.set(item.eventId, item.created * 1000);
      const { status, ms } = await forward(options.forwardTo, options.secret, item);
      print(`${new Date(item.created * 1000).toISOString()}  ${item.type.padEnd(26)} ${item.eventId}  → ${status} (${ms} ms)`);
      forwarded++;
      if (options.max !== undefined && forwarded >= options.max) return forwarded;
    }
    // Events can commit a little out of order: re-read a minute back, the seen set drops repeats.
    const newest = Math.max(Date.parse(since), ...[...seen.values()]);
    since = new Date(newest - 60_000).toISOString();
    for (const [id, created] of seen) if (created < newest - 120_000) seen.delete(id);
    await new Promise((resolveSleep) => setTimeout(resolveSleep, options.pollMs));
  }
  return forwarded;
}

export const defaultBaseUrl = () => process.env.GATEWAY_BASE_URL ?? `http://localhost:${process.env.PORT ?? 3000}`;

export const listenUsage = `Usage: svc-gateway-listen --api-key pk_test_… --secret whsec_… --forward-to <url> [options]

Forward a gateway's test-mode events to a local URL, signed like real deliveries.

Options:
  --api-key <key>      test-mode API key (pk_test_…) with the read scope (or GATEWAY_API_KEY)
  --secret <whsec>     endpoint secret the forwarded events are signed with (whsec_…)
  --forward-to <url>   where to POST each event, e.g. http://localhost:4000/hooks
  --base-url <url>     the gateway (default: GATEWAY_BASE_URL, else http://localhost:3000)
  --events <types>     comma-separated event types (default: all)
  --since <when>       also forward events created since then: 2026-11-25T09:00:00Z, 2026-11-25 or 30m, 2h, 7d (default: now)
  --poll-ms <ms>       how often to read the feed (default 1000)
  --max <n>            exit after forwarding n events
  -h, --help           this text`;

/** The options of the command line, checked (an OptionError names the first bad one). */
export function listenOptions(argv: readonly string[], env: NodeJS.ProcessEnv = process.env): ListenOptions | 'help' {
  const { values } = parseArgs({
    args: [...argv],
    options: {
      'api-key': { type: 'string' },
      secret: { type: 'string' },
      'forward-to': { type: 'string' },
      'base-url': { type: 'string' },
      events: { type: 'string' },
      since: { type: 'string' },
      'poll-ms': { type: 'string' },
      max: { type: 'string' },
      help: { type: 'boolean', short: 'h' },
    },
    strict: true,
  });
  if (values.help) return 'help';
  const option = <T>(name: string, check: () => T): T => {
    try {
      return check();
    } catch (error) {
      throw new OptionError(`--${name}: ${error instanceof Error ? error.message : String(error)}`);
    }
  };
  const apiKey = values['api-key'] ?? env.GATEWAY_API_KEY;
  if (!apiKey) throw new OptionError('--api-key pk_test_… is required (a test-mode key of the gateway with the read scope)');
  if (!values.secret || !/^whsec_/.test(values.secret))
    throw new OptionError('--secret whsec_… is required (the endpoint secret your receiver verifies with)');
  if (!values['forward-to']) throw new OptionError('--forward-to <url> is required');
  const forwardTo = option('forward-to', () => new URL(values['forward-to']!).toString());
  return {
    apiKey: option('api-key', () => testKey(apiKey)),
    secret: values.secret,
    forwardTo,
    baseUrl: values['base-url'] ?? defaultBaseUrl(),
    events: values.events,
    since: values.since === undefined ? undefined : option('since', () => sinceOption(values.since!)),
    pollMs: values['poll-ms'] === undefined ? 1000 : option('poll-ms', () => positive(values['poll-ms']!)),
    max: values.max === undefined ? undefined : option('max', () => positive(values.max!)),
  };
}

/** The bin: parse, check access, forward until Ctrl-C (or --max); exit code 2 for bad options, 1 for a refusal. */
export async function main(argv: readonly string[]): Promise<number> {
  let options: ListenOptions | 'help';
  try {
    options = listenOptions(argv);
  } catch (error) {
    console.error(`svc-gateway-listen: ${error instanceof Error ? error.message : String(error)}\n\n${listenUsage}`);
    return 2;
  }
  if (options === 'help') {
    console.log(listenUsage);
    return 0;
  }
  const controller = new AbortController();
  process.once('SIGINT', () => controller.abort());
  try {
    await listen(options, controller.signal);
    return 0;
  } catch (error) {
    console.error(`svc-gateway-listen: ${error instanceof Error ? error.message : String(error)}`);
    return 1;
  }
}
