import type { Mode } from '../credentials.ts';
import { movements } from '../ledger.ts';
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
  type RefundableIntent,
} from '../refund.ts';
import { decided, draft, refuse, type Decision, type JournalDraft } from './decision.ts';
import { canRefundTransition, RefundStatus, refundStatusNames } from './machines.ts';

/**
 * Refunds: money goes back OUT to the customer. Requesting RESERVES the amount on the payment (the refunds of one
 * payment never add up to more than it: `refundAmount`); approval HOLDS amount + fee from the wallet; Completed pays
 * the amount to the provider and the fee to the platform and counts it refunded on the payment; Failed releases the
 * hold and the reservation; Rejected, Cancelled and Expired (Pending: nothing held) release the reservation. Each once.
 * The state is the refund with the payment it refunds (both change in one transaction).
 */
export interface RefundState {
  refund: Refund | undefined;
  payment: RefundableIntent;
}

export type RefundCommand =
  | {
      type: 'request';
      id: string;
      owner: { merchantId: string; mode: Mode; traceId: string };
      /** undefined: the whole remainder. */
      amountMinor: number | undefined;
      feeMinor: number;
      reason: string | null;
    }
  | { type: 'approve'; walletShard?: number }
  | { type: 'reject'; failureReason: string }
  | { type: 'cancel'; failureReason: string }
  | { type: 'expire' }
  /** A new attempt is recorded before it is sent (the same reference every time). */
  | { type: 'attempt' }
  | { type: 'complete'; ledgerAccount: string; providerReference: string | null }
  | { type: 'fail'; failure: Failure };

const journals = {
  hold: (r: Refund) => draft('refund.hold', r.id, movements.hold('Refund', refundHeldMinor(r)), r.walletShard),
  released: (r: Refund) => draft('refund.failed', r.id, movements.release('Refund', refundHeldMinor(r)), r.walletShard),
  completed: (r: Refund, ledgerAccount: string) =>
    draft('refund.completed', r.id, movements.payOut('Refund', ledgerAccount, r.amountMinor, r.feeMinor), r.walletShard),
};

const unreserved = (payment: RefundableIntent, r: Refund): RefundableIntent => ({
  ...payment,
  refundReservedMinor: reservedOf(payment) - r.amountMinor,
});

function move(
  s: RefundState & { refund: Refund },
  to: RefundStatus,
  changes: Partial<Refund>,
  now: Date,
  payment = s.payment,
  j: JournalDraft[] = [],
): Decision<RefundState> {
  const r = s.refund;
  if (!canRefundTransition(r.status, to))
    return refuse('invalid_status', `Refund ${r.id} is ${refundStatusNames[r.status]}; it cannot become ${refundStatusNames[to]}.`);
  const refund: Refund = { ...r, ...changes, status: to, updatedAt: now.toISOString(), version: r.version + 1 };
  return decided({ refund, payment }, j, to === r.status ? [] : [{ object: 'refund', id: r.id, from: r.status, to }]);
}

const pendingOnly = (r: Refund, action: string) =>
  refuse('invalid_status', `Refund ${r.id} is ${refundStatusNames[r.status]}; only a Pending refund can be ${action}.`);

export function decideRefund(state: RefundState, command: RefundCommand, now: Date): Decision<RefundState> {
  const { payment } = state;
  if (command.type === 'request') {
    if (state.refund) return refuse('unchanged', `Refund ${state.refund.id} exists.`);
    const amount = refundAmount(payment, command.amountMinor);
    if ('code' in amount) return refuse(amount.code, amount.message);
    const refund = newRefund(command.owner, payment, amount.amountMinor, command.feeMinor, command.reason, now, command.id);
    const reserved = { ...payment, refundReservedMinor: reservedOf(payment) + amount.amountMinor };
    return decided({ refund, payment: reserved }, [], [{ object: 'refund', id: refund.id, from: null, to: refund.status }]);
  }
  const r = state.refund;
  if (!r) return refuse('not_found', 'No such refund.');
  const s = { refund: r, payment };
  const at = now.toISOString();
  switch (command.type) {
    case 'approve': {
      if (r.status !== RefundStatus.Pending) return pendingOnly(r, 'approved');
      if (refundOverdue(r, now)) return refuse('invalid_status', `Refund ${r.id} expired at ${r.expiresAt} without approval.`);
      const shard = command.walletShard ? { walletShard: command.walletShard } : {};
      return move(s, RefundStatus.Approved, { approvedAt: at, ...shard }, now, payment, [journals.hold({ ...r, ...shard })]);
    }
    case 'reject':
      if (r.status !== RefundStatus.Pending) return pendingOnly(r, 'rejected');
      return move(s, RefundStatus.Rejected, { failureReason: command.failureReason }, now, unreserved(payment, r));
    case 'cancel':
      if (r.status !== RefundStatus.Pending) return pendingOnly(r, 'cancelled');
      return move(s, RefundStatus.Cancelled, { failureReason: command.failureReason }, now, unreserved(payment, r));
    case 'expire':
      if (!refundOverdue(r, now)) return refuse('invalid_status', `Refund ${r.id} is not overdue.`);
      return move(s, RefundStatus.Expired, { failureReason: 'Not approved within 7 days.' }, now, unreserved(payment, r));
    case 'attempt':
      if (!refundReadyForAttempt(r)) return refuse('invalid_status', `Refund ${r.id} is not ready for an attempt.`);
      return move(s, RefundStatus.Processing, { attemptCount: r.attemptCount + 1, attemptedAt: at }, now);
    case 'complete': {
      if (r.status !== RefundStatus.Processing || !r.attemptedAt)
        return refuse('invalid_status', `Refund ${r.id} has no attempt outstanding.`);
      const refunded = { ...payment, refundedMinor: payment.refundedMinor + r.amountMinor };
      const changes = { processedAt: at, providerReference: command.providerReference, failureReason: null, attemptedAt: null };
      return move(s, RefundStatus.Completed, changes, now, refunded, [journals.completed(r, command.ledgerAccount)]);
    }
    case 'fail': {
      if (r.status !== RefundStatus.Processing || !r.attemptedAt)
        return refuse('invalid_status', `Refund ${r.id} has no attempt outstanding.`);
      const { retry, failureReason } = refundAfterFailure(r, command.failure);
      if (retry) return move(s, RefundStatus.Processing, { failureReason, attemptedAt: null }, now);
      const failed = { processedAt: at, failureReason, attemptedAt: null };
      return move(s, RefundStatus.Failed, failed, now, unreserved(payment, r), [journals.released(r)]);
    }
  }
}
