/**
 * Delivery policy (CONTRACT §10). After a failed attempt (non-2xx, no complete response within
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

/** Seconds to wait after the `roundAttempt`-th failed attempt of a round; undefined = dead-letter. */
export function retryDelay(roundAttempt: number): number | undefined {
  return retrySchedule()[roundAttempt - 1];
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
