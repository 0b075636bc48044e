import { decideInquiry, notFoundGraceMs, pastNotFoundGrace, type Failure } from '#shared/domain/outbound.ts';
import { logger } from '#shared/logger.ts';
import type { Instruction, Rail, StatusAnswer, SubmitAnswer } from '#shared/providers/rail.ts';

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
  notFoundGraceMs,
} as const;

/** `now` plus `ms`, as the ISO time the store keeps. */
export const later = (now: Date, ms: number) => new Date(now.getTime() + ms).toISOString();

export { pastNotFoundGrace };

export type Unknown = { outcome: 'unknown' };

/**
 * One provider call raced against the timeout; a throw or a timeout is an unknown outcome (never a
 * failure). The call receives an AbortSignal that is aborted when the time is up.
 */
export async function bounded<T>(
  call: (signal: AbortSignal) => Promise<T>,
  who: string,
  context: Record<string, unknown>,
): Promise<T | Unknown> {
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

export type { Failure };

/** What a product's transition sees: the item now, the item the provider was asked about, the rail, the clock. */
export interface Step<T, I extends Instruction> {
  current: T;
  asked: T;
  rail: Rail<I>;
  now: Date;
}

/**
 * A product over the protocol (withdrawals, settlements, refunds): how to read and change its item,
 * its instruction, and its transitions. Each transition returns the product's change (its own
 * shape, committed by `commit`) or null for "nothing to do". The engine only calls them while the
 * item is still the submission that was asked about (`outstanding`).
 */
export interface OutboundProduct<T, I extends Instruction, C> {
  /** In logs: 'settlement rail'. */
  who: string;
  context(item: T): Record<string, unknown>;
  instruction(item: T): I;
  /** When the submission now outstanding was recorded: the NotFound grace starts there. */
  submittedAt(item: T): string;
  outstanding(current: T, asked: T): boolean;
  /** Read → decide → commit → retry (changeVersioned); returns the item after. */
  commit(asked: T, decide: (current: T) => C | null): Promise<T | undefined>;
  accepted(step: Step<T, I>, answer: Extract<SubmitAnswer, { outcome: 'accepted' }>): C | null;
  completed(step: Step<T, I>, answer: Extract<StatusAnswer, { status: 'Completed' }>): C | null;
  /** Failed, hold released (or, for a product that retries, the next attempt scheduled). */
  failed(step: Step<T, I>, failure: Failure): C | null;
  /** Nothing known yet: due again at `dueAt`. */
  dueAgain(step: Step<T, I>, dueAt: string): C | null;
  /**
   * True when a Failed status may still describe an earlier request with the same reference (a
   * retried refund): it is then believed only after the grace period, as NotFound is.
   */
  failedMayBeStale?(item: T): boolean;
}

type Transition<T, I extends Instruction, C> = (step: Step<T, I>) => C | null;

/** Commits a transition of `asked`, if it is still outstanding when read again. */
const decide = <T, I extends Instruction, C>(
  p: OutboundProduct<T, I, C>,
  rail: Rail<I>,
  asked: T,
  now: Date,
  transition: Transition<T, I, C>,
) => p.commit(asked, (current) => (p.outstanding(current, asked) ? transition({ current, asked, rail, now }) : null));

/** The ONE submit of a submission the caller just recorded, bounded; an unknown outcome is returned as such. */
export function submitRecorded<T, I extends Instruction>(
  p: OutboundProduct<T, I, unknown>,
  rail: Rail<I>,
  recorded: T,
): Promise<SubmitAnswer> {
  return bounded((signal) => rail.submit(p.instruction(recorded), signal), p.who, {
    ...p.context(recorded),
    provider: rail.name,
    call: 'submit',
  }).then((a) => ('status' in a ? { outcome: 'unknown' as const } : a));
}

/**
 * What the answer to the submission of `recorded` changes, as a decision about the item read again
 * (for a caller that commits it itself); undefined for an unknown outcome, which changes nothing:
 * the item already says Processing with its submission record and is due for the inquiry.
 */
export function answerDecision<T, I extends Instruction, C>(
  p: OutboundProduct<T, I, C>,
  rail: Rail<I>,
  recorded: T,
  answer: SubmitAnswer,
  now: Date,
): ((current: T) => C | null) | undefined {
  if (answer.outcome === 'unknown') return undefined;
  const transition: Transition<T, I, C> =
    answer.outcome === 'accepted'
      ? (step) => p.accepted(step, answer)
      : (step) => p.failed(step, { kind: 'rejected', reason: answer.reason, ...(answer.internal ? { internal: true } : {}) });
  return (current) => (p.outstanding(current, recorded) ? transition({ current, asked: recorded, rail, now }) : null);
}

/**
 * The status inquiry of an outstanding submission (never a new submit): Completed / Failed are
 * recorded; NotFound after the grace period is a submission that never arrived (released);
 * Processing, NotFound within the grace, or no answer: due again later.
 */
export async function inquire<T, I extends Instruction, C>(
  p: OutboundProduct<T, I, C>,
  rail: Rail<I>,
  asked: T,
  now: Date,
): Promise<T | undefined> {
  const answer = await bounded((signal) => rail.status(p.instruction(asked), signal), p.who, { ...p.context(asked), call: 'status' });
  const answered = 'outcome' in answer ? undefined : answer;
  const decision = decideInquiry(answered, pastNotFoundGrace(p.submittedAt(asked), now), p.failedMayBeStale?.(asked));
  if (decision.kind === 'again') {
    const ms = decision.after === 'poll' ? rail.timings.pollIntervalMs : outboundTimings.reinquireAfterMs;
    return decide(p, rail, asked, now, (step) => p.dueAgain(step, later(now, ms)));
  }
  if (decision.kind === 'completed')
    return decide(p, rail, asked, now, (step) => p.completed(step, answered as Extract<StatusAnswer, { status: 'Completed' }>));
  if (decision.failure.kind === 'not_received')
    logger.error(`${p.who} never received the submission`, { ...p.context(asked), submittedAt: p.submittedAt(asked) });
  return decide(p, rail, asked, now, (step) => p.failed(step, decision.failure));
}

/**
 * Whoever's version-conditioned write of the submission record landed (`recording`) submits, once,
 * and records the answer (accepted or rejected; unknown changes nothing: the item already says
 * Processing with its submission record and is due for the inquiry); anyone else gets the item as it is.
 */
export async function submitOnce<T, I extends Instruction, C>(
  p: OutboundProduct<T, I, C>,
  rail: Rail<I>,
  now: Date,
  recording: Promise<{ changed: boolean; value: T | undefined }>,
): Promise<T | undefined> {
  const { changed, value: recorded } = await recording;
  if (!changed || recorded === undefined) return recorded;
  const decision = answerDecision(p, rail, recorded, await submitRecorded(p, rail, recorded), now);
  return decision ? p.commit(recorded, decision) : recorded;
}

/** An outstanding submission: the rail's status inquiry; without a rail for its mode, logged and due again later. */
export function inquireOrLater<T, I extends Instruction, C>(p: OutboundProduct<T, I, C>, rail: Rail<I> | undefined, asked: T, now: Date) {
  if (rail) return inquire(p, rail, asked, now);
  logger.error(`${p.who}: none is configured for the mode; asking again later`, p.context(asked));
  return askLater(p, rail, asked, now);
}

/** An outstanding submission that cannot be asked about (no rail configured for its mode): due again later. */
const askLater = <T, I extends Instruction, C>(p: OutboundProduct<T, I, C>, rail: Rail<I> | undefined, asked: T, now: Date) =>
  p.commit(asked, (current) =>
    p.outstanding(current, asked) ? p.dueAgain({ current, asked, rail: rail!, now }, later(now, outboundTimings.reinquireAfterMs)) : null,
  );
