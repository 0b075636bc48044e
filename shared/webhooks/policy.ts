/**
 * Delivery policy (docs/merchant-guide.md, Webhooks). After a failed attempt (non-2xx, no complete response within
 * 5 s, connection error, refused destination, redirect) the next one follows this schedule; after
 * the last step the message goes to the dead-letter queue. 8 attempts in all, over about 27.5 hours.
 *
 * WEBHOOK_RETRY_SCHEDULE (comma-separated seconds) and WEBHOOK_TIMEOUT_MS override the schedule and
 * the timeout for tests and local experiments; they are read on every use.
 */
export const retryScheduleSeconds: readonly number[] = [5, 5 * 60, 30 * 60, 2 * 3600, 5 * 3600, 10 * 3600, 10 * 3600];
export const deliveryTimeoutMs = 5_000;
/** SQS refuses a visibility timeout over 12 hours. */
const maxVisibilitySeconds = 12 * 3600;

export function retrySchedule(): readonly number[] {
  const raw = process.env.WEBHOOK_RETRY_SCHEDULE;
  if (!raw) return retryScheduleSeconds;
  const steps = raw.split(',').map((s) => Number(s.trim()));
  if (steps.length === 0 || steps.some((s) => !Number.isInteger(s) || s < 0 || s > maxVisibilitySeconds)) {
    throw new Error('WEBHOOK_RETRY_SCHEDULE must be comma-separated whole seconds, each at most 43200');
  }
  return steps;
}

/** Attempts per round (the first one plus one per schedule step). */
export const maxAttempts = () => retrySchedule().length + 1;

/**
 * Seconds to wait after the `roundAttempt`-th failed attempt of a round; undefined = dead-letter.
 * A 429 or 503 answer's Retry-After is honoured: never sooner than it asks, never later than the
 * schedule's following step (the last step caps itself).
 */
export function retryDelay(roundAttempt: number, retryAfterSeconds: number | null = null): number | undefined {
  const schedule = retrySchedule();
  const step = schedule[roundAttempt - 1];
  if (step === undefined || retryAfterSeconds === null) return step;
  const cap = schedule[roundAttempt] ?? step;
  return Math.min(Math.max(step, Math.ceil(retryAfterSeconds)), Math.max(cap, step));
}

/**
 * SQS's largest DelaySeconds. A shorter retry waits on the queue as a delayed message; a longer one
 * is parked in the table's due index and sent by the webhook sweep when due (no message in flight).
 */
export const maxQueueDelaySeconds = 900;

/** A 410 Gone answer disables the destination at once; failing every attempt this long, too. */
export const disableAfterFailingMs = 5 * 24 * 3600 * 1000;

/** Retry-After: delay-seconds or an HTTP date; null when absent or unreadable. */
export function parseRetryAfter(value: string | undefined, now: Date): number | null {
  if (!value) return null;
  const trimmed = value.trim();
  if (/^\d+$/.test(trimmed)) return Number(trimmed);
  const at = Date.parse(trimmed);
  return Number.isNaN(at) ? null : Math.max(0, Math.ceil((at - now.getTime()) / 1000));
}

export function timeoutMs(): number {
  const raw = Number(process.env.WEBHOOK_TIMEOUT_MS);
  return Number.isInteger(raw) && raw > 0 ? raw : deliveryTimeoutMs;
}

/**
 * The webhook queue's redrive count (CDK stack and local queue). The dispatcher dead-letters a
 * message itself after its 8th recorded attempt; SQS's receive count also grows with deferred and
 * failed-batch receives, so the queue's own redrive is only a safety net set well above that.
 */
export const queueMaxReceiveCount = 24;
