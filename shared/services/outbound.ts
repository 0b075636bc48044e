import { logger } from '#shared/logger.ts';

/**
 * The shared timings and the bounded call of the outbound-transfer protocol (withdrawals,
 * settlements, refunds): record the submission → submit once, bounded → record the answer →
 * status inquiry, bounded → NotFound after the grace period (measured with the caller's injected
 * clock) → release. See docs/architecture.md.
 */
export const outboundTimings = {
  /** A provider call (submit or status) that has not answered by then is an unknown outcome. */
  callTimeoutMs: 5_000,
  /** How long before asking again when the provider is unreachable, not configured or did not answer. One value for every product. */
  reinquireAfterMs: 30_000,
  /** A submission the provider still does not know after this long never arrived: the funds are released. */
  notFoundGraceMs: 15 * 60_000,
} as const;

/** `now` plus `ms`, as the ISO time the store keeps. */
export const later = (now: Date, ms: number) => new Date(now.getTime() + ms).toISOString();

/** True once a submission recorded at `submittedAt` is older than the NotFound grace period, by the injected clock. */
export const pastNotFoundGrace = (submittedAt: string, now: Date) => now.getTime() - Date.parse(submittedAt) >= outboundTimings.notFoundGraceMs;

export type Unknown = { outcome: 'unknown' };

/**
 * One provider call raced against the timeout; a throw or a timeout is an unknown outcome (never a
 * failure). The call receives an AbortSignal that is aborted when the time is up.
 */
export async function bounded<T>(call: (signal: AbortSignal) => Promise<T>, who: string, context: Record<string, unknown>): Promise<T | Unknown> {
  const controller = new AbortController();
  let timer: NodeJS.Timeout | undefined;
  try {
    const timeout = new Promise<Unknown>((resolve) => {
      timer = setTimeout(() => {
        controller.abort(new Error(`${who} did not answer within ${outboundTimings.callTimeoutMs} ms`));
        resolve({ outcome: 'unknown' });
      }, outboundTimings.callTimeoutMs);
    });
    const answer = await Promise.race([Promise.resolve().then(() => call(controller.signal)), timeout]);
    if ((answer as Unknown).outcome === 'unknown') logger.warn(`${who} did not answer in time`, context);
    return answer;
  } catch (error) {
    logger.warn(`${who} outcome unknown`, { ...context, error: error instanceof Error ? error.message : String(error) });
    return { outcome: 'unknown' };
  } finally {
    clearTimeout(timer);
  }
}
