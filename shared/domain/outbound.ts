/**
 * The pure decisions of the outbound-transfer protocol (withdrawals, settlements, refunds; the
 * engine that applies them is shared/services/outbound.ts, docs/architecture.md).
 */

/** A submission that never reached the provider is forgotten after this long: the funds are released. */
export const notFoundGraceMs = 15 * 60_000;

/** True once a submission recorded at `submittedAt` is older than the NotFound grace period, by the given clock. */
export const pastNotFoundGrace = (submittedAt: string, now: Date) => now.getTime() - Date.parse(submittedAt) >= notFoundGraceMs;

/** Why a submission ends without paying: the provider refused it, said Failed, or never received it. */
export type Failure =
  | { kind: 'rejected'; reason: string; internal?: boolean }
  | { kind: 'failed'; reason: string }
  | { kind: 'not_received' };

/** What the provider said to a status inquiry; undefined when it did not answer (error, timeout). */
export type InquiryAnswer =
  | { status: 'Completed' }
  | { status: 'Failed'; reason: string }
  | { status: 'Processing' }
  | { status: 'NotFound' }
  | undefined;

export type InquiryDecision =
  | { kind: 'completed' }
  | { kind: 'failed'; failure: Failure }
  /** Ask again: after the rail's poll interval, or (no answer) after the re-inquiry wait. */
  | { kind: 'again'; after: 'poll' | 'reinquire' };

/**
 * What a status inquiry's answer means for the outstanding submission. NotFound is believed only
 * after the grace period; so is Failed when it may still describe an earlier request with the same
 * reference (a retried refund).
 */
export function decideInquiry(answer: InquiryAnswer, graceOver: boolean, failedMayBeStale = false): InquiryDecision {
  if (!answer) return { kind: 'again', after: 'reinquire' };
  switch (answer.status) {
    case 'Completed':
      return { kind: 'completed' };
    case 'Failed':
      return failedMayBeStale && !graceOver
        ? { kind: 'again', after: 'poll' }
        : { kind: 'failed', failure: { kind: 'failed', reason: answer.reason } };
    case 'NotFound':
      return graceOver ? { kind: 'failed', failure: { kind: 'not_received' } } : { kind: 'again', after: 'poll' };
    case 'Processing':
      return { kind: 'again', after: 'poll' };
  }
}
