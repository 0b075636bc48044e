import { createHmac, timingSafeEqual } from 'node:crypto';
import type { RefundStatusChanged, SettlementStatusChanged, TransactionStatusChanged } from './types.gen.ts';

/**
 * Webhook verification for merchants (docs/merchant-guide.md "Webhooks"). Node's crypto only (plus type-only imports of
 * the generated event types), so it can be imported as `@svc-gateway/node/webhooks`.
 *
 *   X-Svc-Signature-V2: t=<unix seconds>,v1=<hex>[,v1=<hex>…]
 *   v1 = hex HMAC-SHA256(key = the endpoint secret `whsec_…` as UTF-8, message = `<t>.<raw body>`)
 *
 * This is Stripe's construction, so Stripe's libraries verify it too. Rules: use the RAW body bytes
 * exactly as received (never re-serialised JSON), compare in constant time, refuse timestamps more
 * than 300 s away from your clock, and accept any of your secrets (during a secret rotation the
 * gateway signs with the old and the new one; each gives its own `v1=`).
 */
export const defaultToleranceSeconds = 300;

export class WebhookSignatureError extends Error {
  override name = 'WebhookSignatureError';
}

export type RawBody = string | Uint8Array;
export type HeaderBag = Headers | Record<string, string | string[] | undefined>;

export interface VerifyOptions {
  /** Maximum distance between the signature timestamp and `now`, in seconds: a positive finite number (default 300). */
  toleranceSeconds?: number;
  /** The receiver's clock, Unix seconds (default: now). */
  now?: number;
}

/** The `t` and `v1` values of a V2 header; other schemes (`v0=`, …) are ignored, as Stripe does. */
export function parseSignatureHeader(header: string): { timestamp: number; signatures: string[] } {
  let timestamp = Number.NaN;
  const signatures: string[] = [];
  for (const part of header.split(',')) {
    const eq = part.indexOf('=');
    if (eq === -1) continue;
    const key = part.slice(0, eq).trim();
    const value = part.slice(eq + 1).trim();
    if (key === 't' && /^\d+$/.test(value)) timestamp = Number(value);
    else if (key === 'v1') signatures.push(value);
  }
  return { timestamp, signatures };
}

/** hex HMAC-SHA256 of `<timestamp>.<raw body>`: what one `v1=` carries. */
export function computeSignature(rawBody: RawBody, timestamp: number, secret: string): string {
  return createHmac('sha256', secret).update(`${timestamp}.`, 'utf8').update(rawBody).digest('hex');
}

/**
 * Fails closed on a misconfigured receiver (a TypeError, not a WebhookSignatureError): a missing,
 * empty or non-string secret, alone or in a rotation list, would otherwise verify an HMAC anyone
 * can compute.
 */
function checkedSecrets(secrets: unknown): readonly string[] {
  const keys: unknown[] = typeof secrets === 'string' ? [secrets] : Array.isArray(secrets) ? secrets : [];
  if (keys.length === 0) throw new TypeError('webhook verification needs at least one secret');
  for (const key of keys)
    if (typeof key !== 'string' || key.length === 0) throw new TypeError('every webhook secret must be a non-empty string');
  return keys as string[];
}

function checkedTolerance(tolerance: unknown): number {
  if (typeof tolerance !== 'number' || !Number.isFinite(tolerance) || tolerance <= 0) {
    throw new TypeError('toleranceSeconds must be a positive finite number of seconds');
  }
  return tolerance;
}

function sameHex(a: string, b: string): boolean {
  const x = Buffer.from(a, 'utf8');
  const y = Buffer.from(b, 'utf8');
  return x.length === y.length && timingSafeEqual(x, y);
}

/**
 * Checks an `X-Svc-Signature-V2` header against the raw body with one or several secrets. Returns
 * the signed timestamp; throws WebhookSignatureError when the header is missing or malformed, the
 * timestamp is outside the tolerance, or no `v1` matches any secret.
 */
export function verifySignature(
  rawBody: RawBody,
  header: string | null | undefined,
  secrets: string | readonly string[],
  options: VerifyOptions = {},
): number {
  const keys = checkedSecrets(secrets);
  const tolerance = checkedTolerance(options.toleranceSeconds ?? defaultToleranceSeconds);
  if (!header) throw new WebhookSignatureError('missing X-Svc-Signature-V2 header');
  const { timestamp, signatures } = parseSignatureHeader(header);
  if (!Number.isFinite(timestamp)) throw new WebhookSignatureError('the signature header has no timestamp');
  if (signatures.length === 0) throw new WebhookSignatureError('the signature header has no v1 signature');
  const now = options.now ?? Math.floor(Date.now() / 1000);
  if (!(Math.abs(now - timestamp) <= tolerance)) throw new WebhookSignatureError('the signature timestamp is outside the tolerance');
  // Every comparison runs, so the time taken does not reveal which secret or signature matched.
  let matched = false;
  for (const secret of keys) {
    const expected = computeSignature(rawBody, timestamp, secret);
    for (const given of signatures) matched = sameHex(expected, given) || matched;
  }
  if (!matched) throw new WebhookSignatureError('no signature matches');
  return timestamp;
}

/** The deprecated `X-Svc-Signature`: hex HMAC-SHA256 of the raw body alone (no timestamp, no replay protection). */
export function verifyLegacySignature(rawBody: RawBody, header: string | null | undefined, secrets: string | readonly string[]): boolean {
  const keys = checkedSecrets(secrets);
  if (!header) return false;
  let matched = false;
  for (const secret of keys) {
    matched = sameHex(createHmac('sha256', secret).update(rawBody).digest('hex'), header.trim()) || matched;
  }
  return matched;
}

function header(headers: HeaderBag, name: string): string | undefined {
  if (typeof (headers as Headers).get === 'function') return (headers as Headers).get(name) ?? undefined;
  const bag = headers as Record<string, string | string[] | undefined>;
  const value = bag[name] ?? bag[name.toLowerCase()] ?? Object.entries(bag).find(([k]) => k.toLowerCase() === name.toLowerCase())?.[1];
  return Array.isArray(value) ? value[0] : value;
}

/**
 * A transaction's status changed: the envelope of docs/merchant-guide.md, Webhooks (lower-case envelope, PascalCase data), generated from
 * the OpenAPI document.
 */
export type WebhookEvent = TransactionStatusChanged;

/** A refund's status changed (statuses are the refund's integers: 0 Pending … 7 Expired). */
export type RefundStatusChangedEvent = RefundStatusChanged;

/** A settlement's status changed (statuses are the settlement's integers: 0 Pending … 5 Cancelled). */
export type SettlementStatusChangedEvent = SettlementStatusChanged;

/** Any event a delivery may carry: switch on `type` (`X-Svc-Event-Type`). */
export type AnyWebhookEvent = WebhookEvent | RefundStatusChangedEvent | SettlementStatusChangedEvent;

/**
 * Verifies a delivery and returns its parsed event: the one call a receiver needs.
 *
 *   const event = constructEvent(rawBody, request.headers, [process.env.WEBHOOK_SECRET]);
 */
export function constructEvent<T = WebhookEvent>(
  rawBody: RawBody,
  headers: HeaderBag,
  secrets: string | readonly string[],
  options: VerifyOptions = {},
): T {
  verifySignature(rawBody, header(headers, 'X-Svc-Signature-V2'), secrets, options);
  const text = typeof rawBody === 'string' ? rawBody : Buffer.from(rawBody).toString('utf8');
  return JSON.parse(text) as T;
}

/** Statuses a transaction never leaves (docs/merchant-guide.md, Transaction lookup). */
export const terminalStatuses: readonly string[] = ['Completed', 'Failed', 'Cancelled', 'Expired'];

/** What a receiver keeps per transaction to order deliveries. */
export interface ReceivedState {
  status: string;
  /** `created` of the event that set it (Unix seconds). */
  created: number;
  /** `data.Timestamp` of that event (ISO 8601, millisecond precision): breaks ties within a second. */
  timestamp: string;
  eventId: string;
}

/**
 * Out-of-order and duplicate deliveries (docs/merchant-guide.md, Webhooks): apply an event only if it is newer than
 * what you hold, and never leave a terminal status. Returns the state to store, or `undefined` when
 * the event must be ignored (a duplicate, an older event, or anything after a terminal status).
 */
export function nextState(
  current: ReceivedState | undefined,
  event: Pick<WebhookEvent, 'id' | 'created' | 'data'>,
): ReceivedState | undefined {
  const incoming: ReceivedState = {
    status: event.data.CurrentStatus,
    created: event.created,
    timestamp: event.data.Timestamp,
    eventId: event.id,
  };
  if (!current) return incoming;
  if (current.eventId === incoming.eventId) return undefined;
  if (terminalStatuses.includes(current.status)) return undefined;
  const newer = incoming.created > current.created || (incoming.created === current.created && incoming.timestamp > current.timestamp);
  return newer || terminalStatuses.includes(incoming.status) ? incoming : undefined;
}

/** The User-Agent of every delivery (and of `svc-gateway-listen`'s forwarded ones). */
export const userAgent = 'Svc-Webhook/1.0';

export interface SigningInput {
  body: string;
  /** Unexpired endpoint secrets, newest first: one `v1=` each. */
  secrets: readonly string[];
  eventId: string;
  eventType: string;
  deliveryId: string;
  /** Unix seconds. */
  timestamp: number;
}

/**
 * Standard Webhooks (standardwebhooks.com) signature of one delivery: base64 HMAC-SHA256 of
 * `<webhook-id>.<webhook-timestamp>.<body>`, keyed with the bytes the base64 part of a `whsec_`
 * secret decodes to (docs/merchant-guide.md "Webhooks"). The secrets are `whsec_` + base64 of 32
 * random bytes, so the same secret verifies with Standard Webhooks libraries and with Stripe's.
 */
export function standardWebhooksSignature(secret: string, eventId: string, timestamp: number, body: string): string {
  // What the standardwebhooks libraries do with the secret they are given: drop `whsec_`, base64-decode.
  const key = Buffer.from(secret.startsWith('whsec_') ? secret.slice('whsec_'.length) : secret, 'base64');
  return createHmac('sha256', key).update(`${eventId}.${timestamp}.`, 'utf8').update(body, 'utf8').digest('base64');
}

/**
 * The headers of one delivery attempt, exactly as the gateway's dispatcher sends them (it calls this
 * function) and as `svc-gateway-listen` forwards events: the timestamp is the attempt's, so a retry
 * is signed afresh; the body is the same bytes every time.
 */
export function signedHeaders(input: SigningInput): Record<string, string> {
  const [current] = input.secrets;
  if (!current) throw new Error('no signing secret');
  const v1 = input.secrets.map((secret) => `v1=${computeSignature(input.body, input.timestamp, secret)}`).join(',');
  return {
    'Content-Type': 'application/json',
    'User-Agent': userAgent,
    'X-Svc-Signature-V2': `t=${input.timestamp},${v1}`,
    'X-Svc-Signature-Timestamp': String(input.timestamp),
    // Deprecated (docs/merchant-guide.md, Endpoints): HMAC of the body alone, with the newest secret only.
    'X-Svc-Signature': createHmac('sha256', current).update(input.body, 'utf8').digest('hex'),
    'X-Svc-Event-Type': input.eventType,
    'X-Svc-Event-Id': input.eventId,
    'X-Svc-Delivery-Id': input.deliveryId,
    // Standard Webhooks: one `v1,<base64>` per live secret, space separated, as the spec allows.
    'webhook-id': input.eventId,
    'webhook-timestamp': String(input.timestamp),
    'webhook-signature': input.secrets
      .map((secret) => `v1,${standardWebhooksSignature(secret, input.eventId, input.timestamp, input.body)}`)
      .join(' '),
  };
}
