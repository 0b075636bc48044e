import type { Mode } from '../credentials.ts';
import { movements } from '../ledger.ts';
import type { Fee } from '../merchant.ts';
import { feeFor } from '../money.ts';
import type { Failure } from '../outbound.ts';
import {
  newRefund,
  refundAfterFailure,
  refundAmount,
  refundHeldMinor,
  refundOverdue,
  refundReadyForAttempt,
  reservedOf,
  type Refund,
  type RefundCapability,
  type RefundableIntent,
} from '../refund.ts';
import { decided, draft, refuse, touchedAt, type Decision, type JournalDraft } from './decision.ts';
import { canRefundTransition, RefundStatus, refundStatusNames } from './machines.ts';

/**
 * Refunds: money goes back OUT to the customer. Requesting RESERVES the amount on the payment (the refunds of one
 * payment never add up to more than it: `refundAmount`); approval HOLDS amount + fee from the wallet; Completed pays
 * the amount to the provider and the fee to the platform and counts it refunded on the payment; Failed releases the
 * hold and the reservation; Rejected, Cancelled and Expired (Pending: nothing held) release the reservation. Each once.
 * A decision reads the refund (and, to request one, the payment it refunds); it returns the refund after it and what
 * it does to the payment's counters (`effect`, the store's ADDs), committed in the same transaction.
 */
export interface RefundState {
  refund: Refund | undefined;
  /** Needed to request a refund (what remains refundable); the other commands only move its counters. */
  payment?: RefundableIntent;
}

/** What a refund's decision does to its payment: the reservation and the refunded amount move by these (minor units). */
export interface PaymentEffect {
  reservedMinor: number;
  refundedMinor: number;
  /**
   * A reservation's over-refund bound: what may be reserved on the payment, at most, when it is committed (its amount
   * less this refund's), so the refunds of a payment never add up to more than it (the commit's condition).
   */
  reservedAtMost?: number;
}

export interface RefundOutcome {
  refund: Refund;
  effect: PaymentEffect;
}

const noEffect: PaymentEffect = { reservedMinor: 0, refundedMinor: 0 };

export type RefundCommand =
  | {
      type: 'request';
      id: string;
      owner: { merchantId: string; mode: Mode; traceId: string };
      /** undefined: the whole remainder. */
      amountMinor: number | undefined;
      /** The merchant's refund fee schedule: the fee of the amount decided is held and charged with it. */
      fee: Fee;
      reason: string | null;
      /** What the refund rail can refund of this payment (absent: partial refunds up to the payment). */
      capability?: RefundCapability | undefined;
    }
  | { type: 'approve'; walletShard?: number }
  | { type: 'reject'; failureReason: string }
  | { type: 'cancel'; failureReason: string }
  | { type: 'expire' }
  /** A new attempt is recorded before it is sent (the same reference every time). */
  | { type: 'attempt' }
  /**
   * The provider's answer to the outstanding attempt (`asked`: the attempt it is about; absent, whichever is
   * outstanding). `accepted` is the refund provider's answer to the submission itself: a refund provider confirms a
   * refund synchronously, so its acceptance IS the completion (the amount paid out, the fee charged), as `complete`
   * (the status inquiry's Completed) is. A settlement's or payout's rail, by contrast, accepts and completes later.
   */
  | { type: 'complete' | 'accepted'; ledgerAccount: string; providerReference: string | null; asked?: AskedAttempt }
  | { type: 'fail'; failure: Failure; asked?: AskedAttempt };

/** The attempt a provider's answer is about: its number and when it was recorded (the engine's `asked`). */
export type AskedAttempt = Pick<Refund, 'attemptCount' | 'attemptedAt'>;

const journals = {
  hold: (r: Refund) => draft('refund.hold', r.id, movements.hold('Refund', refundHeldMinor(r)), r.walletShard),
  released: (r: Refund) => draft('refund.failed', r.id, movements.release('Refund', refundHeldMinor(r)), r.walletShard),
  completed: (r: Refund, ledgerAccount: string) =>
    draft('refund.completed', r.id, movements.payOut('Refund', ledgerAccount, r.amountMinor, r.feeMinor), r.walletShard),
};

/** The reservation given back (a refund that ends without paying). */
const unreserved = (r: Refund): PaymentEffect => ({ reservedMinor: -r.amountMinor, refundedMinor: 0 });

function move(
  r: Refund,
  to: RefundStatus,
  changes: Partial<Refund>,
  now: Date,
  effect = noEffect,
  j: JournalDraft[] = [],
): Decision<RefundOutcome> {
  if (!canRefundTransition(r.status, to))
    return refuse('invalid_status', `Refund ${r.id} is ${refundStatusNames[r.status]}; it cannot become ${refundStatusNames[to]}.`);
  const refund: Refund = { ...r, ...changes, status: to, updatedAt: touchedAt(r.updatedAt, now), version: r.version + 1 };
  return decided({ refund, effect }, j, to === r.status ? [] : [{ object: 'refund', id: r.id, from: r.status, to }]);
}

/**
 * An attempt is outstanding: recorded and not answered (absent `attemptedAt`: a refund stored before it existed); with
 * `asked`, it is still the attempt the answer is about (a late answer to an earlier attempt changes nothing).
 */
export const refundOutstanding = (r: Refund, asked?: AskedAttempt) =>
  r.status === RefundStatus.Processing &&
  r.attemptedAt !== null &&
  (!asked || (r.attemptCount === asked.attemptCount && r.attemptedAt === asked.attemptedAt));

/** Why the rail cannot refund this payment (RefundCapability), or undefined: no refund at all, or a second one. */
function railRefusal(payment: RefundableIntent, capability: RefundCapability | undefined): string | undefined {
  const provider = capability?.provider;
  if (capability?.refundsAllowed === 'none')
    return (
      `Live refunds of ${provider} payments are not available: ${provider} publishes no refund API this gateway can use. ` +
      `Refund the customer from the ${provider} merchant portal.`
    );
  if (capability?.refundsAllowed === 'once' && reservedOf(payment) > 0)
    return (
      `This payment already has a refund: ${provider} refunds a payment once (no partial refunds after a first one). ` +
      `Refund the rest from the ${provider} merchant portal.`
    );
  return undefined;
}

const pendingOnly = (r: Refund, action: string) =>
  refuse('invalid_status', `Refund ${r.id} is ${refundStatusNames[r.status]}; only a Pending refund can be ${action}.`);

export function decideRefund(state: RefundState, command: RefundCommand, now: Date): Decision<RefundOutcome> {
  if (command.type === 'request') {
    const { payment } = state;
    if (state.refund) return refuse('unchanged', `Refund ${state.refund.id} exists.`);
    if (!payment) return refuse('not_found', 'No such transaction.');
    const railRefused = railRefusal(payment, command.capability);
    if (railRefused) return refuse('refund_provider_unavailable', railRefused);
    const amount = refundAmount(payment, command.amountMinor);
    if ('code' in amount) return refuse(amount.code, amount.message);
    const feeMinor = feeFor(amount.amountMinor, command.fee);
    const refund = newRefund(command.owner, payment, amount.amountMinor, feeMinor, command.reason, now, command.id);
    // The commit's condition maps both rules onto the payment as it is then: at most the rest of the amount reserved
    // before this one (never over-refunded), and for a rail that refunds once, nothing (two requests decided on one
    // read: the second is refused at commit and decided again, then refused above).
    const once = command.capability?.refundsAllowed === 'once';
    const reservedAtMost = once ? 0 : payment.amountMinor - amount.amountMinor;
    const effect = { reservedMinor: amount.amountMinor, refundedMinor: 0, reservedAtMost };
    return decided({ refund, effect }, [], [{ object: 'refund', id: refund.id, from: null, to: refund.status }]);
  }
  const r = state.refund;
  if (!r) return refuse('not_found', 'No such refund.');
  const at = now.toISOString();
  switch (command.type) {
    case 'approve': {
      if (r.status !== RefundStatus.Pending) return pendingOnly(r, 'approved');
      if (refundOverdue(r, now)) return refuse('invalid_status', `Refund ${r.id} expired at ${r.expiresAt} without approval.`);
      const shard = command.walletShard ? { walletShard: command.walletShard } : {};
      return move(r, RefundStatus.Approved, { approvedAt: at, ...shard }, now, noEffect, [journals.hold({ ...r, ...shard })]);
    }
    case 'reject':
      if (r.status !== RefundStatus.Pending) return pendingOnly(r, 'rejected');
      return move(r, RefundStatus.Rejected, { failureReason: command.failureReason }, now, unreserved(r));
    case 'cancel':
      if (r.status !== RefundStatus.Pending) return pendingOnly(r, 'cancelled');
      return move(r, RefundStatus.Cancelled, { failureReason: command.failureReason }, now, unreserved(r));
    case 'expire':
      if (!refundOverdue(r, now)) return refuse('invalid_status', `Refund ${r.id} is not overdue.`);
      return move(r, RefundStatus.Expired, { failureReason: 'Not approved within 7 days.' }, now, unreserved(r));
    case 'attempt':
      if (!refundReadyForAttempt(r)) return refuse('invalid_status', `Refund ${r.id} is not ready for an attempt.`);
      return move(r, RefundStatus.Processing, { attemptCount: r.attemptCount + 1, attemptedAt: at }, now);
    case 'accepted':
    case 'complete': {
      if (!refundOutstanding(r, command.asked)) return refuse('invalid_status', `Refund ${r.id} has no attempt outstanding.`);
      const changes = { processedAt: at, providerReference: command.providerReference, failureReason: null, attemptedAt: null };
      const effect = { reservedMinor: 0, refundedMinor: r.amountMinor };
      return move(r, RefundStatus.Completed, changes, now, effect, [journals.completed(r, command.ledgerAccount)]);
    }
    case 'fail': {
      if (!refundOutstanding(r, command.asked)) return refuse('invalid_status', `Refund ${r.id} has no attempt outstanding.`);
      const { retry, failureReason } = refundAfterFailure(r, command.failure);
      if (retry) return move(r, RefundStatus.Processing, { failureReason, attemptedAt: null }, now);
      const failed = { processedAt: at, failureReason, attemptedAt: null };
      return move(r, RefundStatus.Failed, failed, now, unreserved(r), [journals.released(r)]);
    }
  }
}
