import { subjectOf } from '#shared/domain/events.ts';
import { endpointWants, type Merchant } from '#shared/domain/merchant.ts';
import type { FeedEntry } from '#shared/store/event-feed.ts';
import { masterKey, open } from '#shared/crypto/seal.ts';
import { logger } from '#shared/logger.ts';
import { db } from '#shared/store/client.ts';
import { sqs } from './queue.ts';
import { getMerchantCached, webhookSecretAssociatedData } from '#shared/store/merchants.ts';
import { destinationKey, recordAttempts, type Destination as HealthTarget, type EndpointHealth } from '#shared/store/webhook-health.ts';
import {
  closedStates,
  deliveryKey,
  getDispatchState,
  maxLoggedAttempts,
  sweepGraceSeconds,
  writeDeliveries,
  type AttemptRecord,
  type DeliveryRecord,
  type DeliveryState,
} from '#shared/store/webhooks.ts';
import { postWebhook, type PostResult } from './http.ts';
import { newDeliveryId, newRedriveRound, roundTrigger, type DeliveryMessage } from './messages.ts';
import { disableAfterFailingMs, maxAttempts, maxQueueDelaySeconds, parseRetryAfter, retryDelay, timeoutMs } from './policy.ts';
import { emitMetrics, metricNames, MetricUnit, type MetricPoint } from '#shared/metrics.ts';
import { signedHeaders } from './signing.ts';

/**
 * Delivery attempts for a batch of queue messages (docs/merchant-guide.md, Webhooks). Per message:
 *   1. its event's delivery item says how many attempts its round has had (our own log, not SQS's
 *      receive count); a message whose round has ended (delivered, dead-lettered, no destination)
 *      is acknowledged without an attempt;
 *   2. destination = the request's callbackUrl, else the merchant's endpoint for the mode; signing
 *      secrets = the endpoint's unexpired secrets (two during a rotation overlap);
 *   3. POST, signed, 5 s deadline, SSRF guard at connect time, redirects not followed;
 *   4. on failure: the next step of the schedule (a 429/503's Retry-After honoured), or after the
 *      8th attempt of the round, the dead-letter queue (the message goes there with a fresh round
 *      id, so an operator's redrive starts a new round of 8). A retry holds no message in flight:
 *      up to 15 min it is a new message with DelaySeconds (sent after the log is written), longer
 *      it is parked on the delivery item in the due index and the webhook sweep sends it when due;
 *   5. destination health (shared/store/webhook-health.ts): a 410 disables the destination at
 *      once, 5 days of nothing but failures too; a disabled destination's rounds end as
 *      `endpoint_disabled` without a request. A batch writes each destination's health once
 *      (healthWrites), after its attempts and before its delivery log.
 * An event with no destination (or no signing secret) is recorded once and not retried.
 * The batch reads its events' delivery items and its destinations' health with ONE BatchGetItem,
 * writes the delivery items back, each with its new attempt (the one it displaces beside it;
 * shared/store/webhooks.ts), with one BatchWriteItem (with the feed entries from before whose state
 * changed), before any message is acknowledged, and emits its metrics together (one EMF line per dimension set).
 */
export type DispatchResult =
  | { kind: 'skipped' }
  /** Another message of the same event is in this batch: try this one again shortly. */
  | { kind: 'deferred' }
  | { kind: 'delivered'; attempt: number }
  | { kind: 'no_destination'; attempt: number }
  | { kind: 'retry'; attempt: number; delaySeconds: number; parked: boolean }
  | { kind: 'dead_lettered'; attempt: number }
  | { kind: 'endpoint_disabled'; attempt: number };

export interface DispatchPorts {
  /** Puts the message on the dead-letter queue; runs before the attempt is recorded. */
  deadLetter(message: DeliveryMessage): Promise<void>;
  /** Sends the next attempt as a new message delayed by `delaySeconds` (≤ 900); runs after the log is written. */
  requeue(message: DeliveryMessage, delaySeconds: number): Promise<void>;
}

/** Rounds kept on a delivery item (a merchant may resend an event many times). */
const keptRounds = 20;

/**
 * Merchants (endpoint URL, sealed secrets, local switch) are cached per process for
 * WEBHOOK_MERCHANT_CACHE_MS (default 5 s): a changed endpoint or rotated secret is used within
 * seconds, and a busy dispatcher does not read the same merchant for every delivery.
 */
const cachedMerchant = (merchantId: string): Promise<Merchant | undefined> =>
  getMerchantCached(merchantId, Number(process.env.WEBHOOK_MERCHANT_CACHE_MS ?? 5_000));

type Destination =
  | { url: string; source: 'callbackUrl' | 'endpoint'; secrets: string[]; allowInsecure: boolean }
  | { missing: string; url: string | null; source: 'callbackUrl' | 'endpoint' | null };

/** The local-development switch never applies inside a deployed Lambda (docs/operator-guide.md). */
export const insecureAllowed = (merchant: Merchant) => merchant.allowInsecureWebhooks === true && !process.env.AWS_LAMBDA_FUNCTION_NAME;

async function destinationFor(message: DeliveryMessage, merchant: Merchant | undefined, now: Date): Promise<Destination> {
  const endpoint = merchant?.webhooks?.[message.mode];
  const url = message.callbackUrl ?? endpoint?.url ?? null;
  const source = message.callbackUrl ? 'callbackUrl' : endpoint ? 'endpoint' : null;
  if (!merchant) return { missing: 'the merchant no longer exists', url, source };
  if (!url || !source) return { missing: `no callbackUrl and no webhook endpoint configured for ${message.mode} mode`, url, source };
  // An endpoint may subscribe to a subset of event types; a request's own callbackUrl gets its events.
  if (source === 'endpoint' && !endpointWants(endpoint!, message.event.type))
    return { missing: `the ${message.mode} webhook endpoint is not subscribed to ${message.event.type}`, url, source };
  const live = (endpoint?.secrets ?? []).filter((s) => s.expiresAt === null || Date.parse(s.expiresAt) > now.getTime());
  if (live.length === 0)
    return { missing: `no webhook signing secret for ${message.mode} mode: configure a webhook endpoint`, url, source };
  const key = await masterKey();
  const secrets = live.map((s) => open(key, s.sealed, webhookSecretAssociatedData(merchant.merchantId, message.mode)));
  return { url, source, secrets, allowInsecure: insecureAllowed(merchant) };
}

interface Outcome {
  result: DispatchResult;
  delivery?: DeliveryRecord;
  metrics?: MetricPoint[];
  feed?: FeedEntry;
  requeue?: { message: DeliveryMessage; delaySeconds: number };
  health?: HealthSeen;
}

/** What one attempt tells about its destination's health (written once per destination and batch, healthWrites). */
interface HealthSeen {
  target: HealthTarget;
  ok: boolean;
  gone: boolean;
  /** This attempt disables the destination: a 410, or a failure 5 days into a streak of nothing but failures. */
  disables: boolean;
  /** When the response (or its failure) came, for the order of the batch's attempts. */
  at: Date;
}

function healthSeen(target: HealthTarget, health: EndpointHealth | undefined, post: PostResult, at: Date): HealthSeen {
  const ok = post.error === null;
  const gone = post.statusCode === 410;
  const failingLong = Boolean(health?.failingSince) && at.getTime() - Date.parse(health!.failingSince!) >= disableAfterFailingMs;
  return { target, ok, gone, disables: gone || (!ok && failingLong), at };
}

/**
 * The batch's health writes: ONE UpdateItem per destination whose health changes (a failure, a
 * disable, or a success that ends a streak), not one per attempt. They run after every attempt of
 * the batch and before its delivery log is written and its messages acknowledged. A crash in
 * between loses at most these health updates, as a crash between an attempt and its update did
 * before: every attempt is still in the delivery log (written before any message is
 * acknowledged, or the messages come back and are attempted again), and health only decides
 * when a destination that keeps failing is disabled, which the next failing batch records again.
 * So a write that fails is logged, not thrown (dispatchBatch): the batch still writes its delivery
 * log and acknowledges its messages rather than sending every one of them again.
 */
function healthWrites(seen: readonly HealthSeen[], healthOf: (target: HealthTarget) => EndpointHealth | undefined): Promise<void>[] {
  const byDestination = new Map<string, HealthSeen[]>();
  for (const s of seen) byDestination.set(destinationKey(s.target), [...(byDestination.get(destinationKey(s.target)) ?? []), s]);
  return [...byDestination.values()].flatMap((attempts) => {
    const ordered = attempts.toSorted((a, b) => a.at.getTime() - b.at.getTime());
    const lastOk = ordered.findLastIndex((s) => s.ok);
    const failures = ordered.slice(lastOk + 1).filter((s) => !s.gone);
    const disabling = ordered.filter((s) => s.disables);
    const target = ordered[0]!.target;
    const health = healthOf(target);
    const succeeded = lastOk === ordered.length - 1 && Boolean(health?.failingSince);
    if (!failures.length && !disabling.length && !succeeded) return [];
    const at = ordered.at(-1)!.at;
    return [
      recordAttempts(
        target,
        {
          ...(failures.length
            ? { failures: { firstAt: failures[0]!.at.toISOString(), lastAt: failures.at(-1)!.at.toISOString(), restart: lastOk >= 0 } }
            : { succeeded }),
          ...(disabling.length
            ? { disable: { reason: disabling.some((s) => s.gone) ? 'gone' : 'failing', at: disabling[0]!.at.toISOString() } }
            : {}),
        },
        at,
      ),
    ];
  });
}

async function attemptOne(
  message: DeliveryMessage,
  merchant: Merchant | undefined,
  current: DeliveryRecord | undefined,
  healthOf: (merchantId: string, mode: DeliveryMessage['mode'], url: string) => EndpointHealth | undefined,
  ports: DispatchPorts,
  clock: () => Date,
): Promise<Outcome> {
  const round = current?.rounds?.[message.roundId];
  if (round && closedStates.includes(round.state)) return { result: { kind: 'skipped' } };
  const startedAt = clock();
  const attempt = (current?.attempts ?? 0) + 1;
  const roundAttempt = (round?.attempts ?? 0) + 1;
  const deliveryId = newDeliveryId();

  const destination = await destinationFor(message, merchant, startedAt);
  const target = 'missing' in destination ? undefined : { merchantId: message.merchantId, mode: message.mode, url: destination.url };
  const health = target ? healthOf(target.merchantId, target.mode, target.url) : undefined;
  let disabled = Boolean(health?.disabledAt);
  let seen: HealthSeen | undefined;
  let post: PostResult;
  if ('missing' in destination) post = { statusCode: null, durationMs: 0, error: destination.missing, refused: false };
  else if (disabled)
    post = {
      statusCode: null,
      durationMs: 0,
      error: `endpoint disabled (${health!.disabledReason}) since ${health!.disabledAt}`,
      refused: false,
    };
  else {
    const body = JSON.stringify(message.event);
    const headers = signedHeaders({
      body,
      secrets: destination.secrets,
      eventId: message.eventId,
      eventType: message.event.type,
      deliveryId,
      timestamp: Math.floor(clock().getTime() / 1000),
    });
    post = await postWebhook(destination.url, body, headers, { allowInsecure: destination.allowInsecure, timeoutMs: timeoutMs() });
    seen = healthSeen(target!, health, post, clock());
    disabled = seen.disables;
  }

  let state: DeliveryState;
  let result: DispatchResult;
  let nextAttemptAt: string | null = null;
  let waiting: DeliveryRecord['waiting'] = null;
  let requeue: Outcome['requeue'];
  if ('missing' in destination) {
    state = 'no_destination';
    result = { kind: 'no_destination', attempt };
  } else if (disabled) {
    state = 'endpoint_disabled';
    result = { kind: 'endpoint_disabled', attempt };
  } else if (post.error === null) {
    state = 'delivered';
    result = { kind: 'delivered', attempt };
  } else {
    const delay = roundAttempt < maxAttempts() ? retryDelay(roundAttempt, parseRetryAfter(post.retryAfter, clock())) : undefined;
    if (delay === undefined) {
      await ports.deadLetter({ ...message, roundId: newRedriveRound() }); // before the log says so
      state = 'dead_lettered';
      result = { kind: 'dead_lettered', attempt };
    } else {
      state = 'retrying';
      const due = clock().getTime() + delay * 1000;
      nextAttemptAt = new Date(due).toISOString();
      const parked = delay > maxQueueDelaySeconds;
      // Queued: the sweep sends it again only if the delayed message got lost; parked: the sweep sends it.
      waiting = { message, sweepAt: new Date(parked ? due : due + sweepGraceSeconds() * 1000).toISOString() };
      if (!parked) requeue = { message, delaySeconds: delay };
      result = { kind: 'retry', attempt, delaySeconds: delay, parked };
    }
  }

  const finishedAt = clock().toISOString();
  const record: AttemptRecord = {
    eventId: message.eventId,
    paymentIntentId: message.paymentIntentId,
    attempt,
    roundAttempt,
    roundId: message.roundId,
    trigger: roundTrigger(message.roundId),
    deliveryId,
    attemptedAt: startedAt.toISOString(),
    url: destination.url,
    destination: destination.source,
    statusCode: post.statusCode,
    durationMs: post.durationMs,
    error: post.error,
    outcome: state === 'delivered' || state === 'no_destination' || state === 'endpoint_disabled' ? state : 'failed',
    nextAttemptAt,
  };
  const rounds = Object.entries({
    ...current?.rounds,
    [message.roundId]: { attempts: roundAttempt, state, startedAt: round?.startedAt ?? startedAt.toISOString() },
  })
    .sort(([, a], [, b]) => (a.startedAt < b.startedAt ? -1 : 1))
    .slice(-keptRounds);
  // A version 2 item (written with the event) is the feed's index by state; one from before has its feed entry follow.
  const indexed = current?.v === 2;
  const delivery: DeliveryRecord = {
    ...(indexed ? { v: 2 as const, listedAs: { type: message.event.type, createdAt: message.eventCreatedAt } } : {}),
    eventId: message.eventId,
    paymentIntentId: message.paymentIntentId,
    subject: subjectOf(message),
    merchantId: message.merchantId,
    mode: message.mode,
    attempts: attempt,
    rounds: Object.fromEntries(rounds),
    roundId: message.roundId,
    state,
    lastAttemptAt: startedAt.toISOString(),
    lastStatusCode: post.statusCode,
    lastError: post.error,
    nextAttemptAt,
    waiting,
    deliveredAt: current?.deliveredAt ?? (state === 'delivered' ? finishedAt : null),
    updatedAt: finishedAt,
    log: [...(current?.log ?? []), record].slice(-maxLoggedAttempts),
  };
  const log = {
    eventId: message.eventId,
    merchantId: message.merchantId,
    deliveryId,
    attempt,
    roundAttempt,
    statusCode: post.statusCode,
    durationMs: post.durationMs,
  };
  if (state === 'delivered') logger.info('webhook delivered', log);
  else if (state === 'retrying') logger.info('webhook attempt failed', { ...log, error: post.error, nextAttemptAt });
  else logger.warn(`webhook ${state.replace('_', ' ')}`, { ...log, error: post.error });
  // An entry from before follows the delivery state (shared/store/event-feed.ts): rewritten when it changes.
  const feed: FeedEntry | undefined =
    indexed || (current?.state ?? 'pending') === state
      ? undefined
      : {
          eventId: message.eventId,
          merchantId: message.merchantId,
          mode: message.mode,
          type: message.event.type,
          createdAt: message.eventCreatedAt,
          deliveryState: state,
          event: message.event,
        };
  const metrics = deliveryMetrics(state, message, current?.deliveredAt ?? null, clock());
  return { result, delivery, metrics, ...(feed ? { feed } : {}), ...(requeue ? { requeue } : {}), ...(seen ? { health: seen } : {}) };
}

/**
 * An attempt's data points: WebhookAttempts by outcome, dead letters, and the commit-to-delivery
 * latency of a first delivery. The batch emits them together (emitMetrics: one EMF line per
 * dimension set, not one Metrics instance and line per point).
 */
function deliveryMetrics(state: DeliveryState, message: DeliveryMessage, deliveredBefore: string | null, at: Date): MetricPoint[] {
  const points: MetricPoint[] = [{ name: metricNames.webhookAttempts, value: 1, dimensions: { Outcome: state } }];
  if (state === 'dead_lettered') points.push({ name: metricNames.deadLetters, value: 1 });
  const committedAt = Date.parse(message.eventCreatedAt ?? '');
  if (state === 'delivered' && !deliveredBefore && Number.isFinite(committedAt)) {
    points.push({ name: metricNames.commitToDelivery, value: at.getTime() - committedAt, unit: MetricUnit.Milliseconds });
  }
  return points;
}

export async function dispatchBatch<T>(
  entries: readonly { ref: T; message: DeliveryMessage }[],
  ports: DispatchPorts,
  clock: () => Date = () => new Date(),
): Promise<{ ref: T; result: DispatchResult }[]> {
  // The batch's delivery items and its destinations' health: ONE BatchGetItem (issue 26). The
  // destinations come from the merchant cache (a miss reads the merchant first).
  const merchants = await Promise.all(entries.map(({ message }) => cachedMerchant(message.merchantId)));
  const destinations = entries.flatMap(({ message }, i) => {
    const url = message.callbackUrl ?? merchants[i]?.webhooks?.[message.mode]?.url;
    return url ? [{ merchantId: message.merchantId, mode: message.mode, url }] : [];
  });
  const { deliveries: current, health } = await getDispatchState(
    entries.map((e) => e.message),
    destinations,
  );
  const healthOf = (merchantId: string, mode: DeliveryMessage['mode'], url: string) =>
    health.get(destinationKey({ merchantId, mode, url }));
  const taken = new Set<string>();
  const outcomes = await Promise.all(
    entries.map(async ({ message }, i): Promise<Outcome> => {
      const key = deliveryKey(message);
      if (taken.has(key)) return { result: { kind: 'deferred' } }; // one attempt per event per batch
      taken.add(key);
      return attemptOne(message, merchants[i], current.get(key), healthOf, ports, clock);
    }),
  );
  // Best effort: a health write that fails (throttled, say) is logged and the batch goes on to its
  // delivery log. Failing the batch instead would bring every message back and POST each again.
  await Promise.all(
    healthWrites(
      outcomes.flatMap((o) => (o.health ? [o.health] : [])),
      (t) => healthOf(t.merchantId, t.mode, t.url),
    ).map((write) =>
      write.catch((error: unknown) =>
        logger.warn('webhook destination health not recorded; the next attempt records it', {
          errorName: (error as Error)?.name,
          errorMessage: (error as Error)?.message,
        }),
      ),
    ),
  );
  emitMetrics(outcomes.flatMap((o) => o.metrics ?? []));
  const attempted = outcomes.flatMap((o) => (o.delivery ? [o.delivery] : []));
  if (attempted.length)
    await writeDeliveries(
      attempted,
      outcomes.flatMap((o) => (o.feed ? [o.feed] : [])),
      clock(),
    );
  await Promise.all(
    outcomes.flatMap((o) =>
      o.requeue
        ? [
            ports.requeue(o.requeue.message, o.requeue.delaySeconds).catch((error: unknown) =>
              // The delivery item waits in the due index: the webhook sweep sends it a little later.
              logger.warn('webhook retry not queued; the sweep will send it', { eventId: o.requeue!.message.eventId, error }),
            ),
          ]
        : [],
    ),
  );
  return entries.map((e, i) => ({ ref: e.ref, result: outcomes[i]!.result }));
}

/** One message (tests, tools): a batch of one. */
export async function dispatch(message: DeliveryMessage, ports: DispatchPorts, clock?: () => Date): Promise<DispatchResult> {
  const [only] = await dispatchBatch([{ ref: 0, message }], ports, clock);
  return only!.result;
}

/**
 * The SDK's logger middleware walks every request and response through its sensitive-data filter
 * even with no logger configured, and the delivery log's batch writes are large. Nothing is logged
 * by it in the dispatcher, so the dispatcher's Lambda drops it from both clients.
 */
export function dropSdkLogging(): void {
  for (const client of [db(), sqs()]) client.middlewareStack.remove('loggerMiddleware');
}
