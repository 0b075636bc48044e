import type { PaymentIntent } from '../intent.ts';
import { movements } from '../ledger.ts';
import type { Failure } from '../outbound.ts';
import { feeFor, fromMinor } from '../money.ts';
import {
  finalBeneficiary,
  minimumWithdrawalMinor,
  newWithdrawal,
  payoutFailure,
  payoutInfo,
  payoutInfoChanges,
  withdrawalDetails,
  type NewWithdrawal,
} from '../payout.ts';
import { decided, draft, refuse, type Decision, type JournalDraft, type Refusal } from './decision.ts';
import { canTransition } from './machines.ts';
import { intentTransition, keepingStatus, type IntentChange } from './intent.ts';

/**
 * Payouts (withdrawals): money goes OUT. Amount + fee are held from `available` when the payout is created (the
 * wallet's no-overdraft condition refuses a hold the balance does not cover, at commit); Completed pays the amount
 * to the rail's external account and the fee to the platform, exactly once; Failed and Cancelled release the hold,
 * exactly once. The status machine is the withdrawal's (./machines.ts).
 */
export type PayoutCommand =
  | {
      type: 'create';
      request: NewWithdrawal;
      ids: { paymentIntentId: string; transactionReference: string };
      provider: { name: string; reconcileAt: Date };
      /** The merchant's approval setting holds automatic payouts too. */
      held?: boolean;
      /** The wallet shard the hold is placed on (shared/store/wallets.ts withFunds). */
      walletShard?: number;
    }
  /** The operator approves a Pending payout: Processing with its submission record (submitted once, after the commit). */
  | { type: 'approve'; provider: string; reconcileAt: Date; receiverCnic?: string }
  /** The operator rejects a Pending payout: Cancelled, the hold released. */
  | { type: 'reject'; reason: string }
  | { type: 'complete'; ledgerAccount: string; completedAt?: Date; providerReference?: string | null }
  | { type: 'fail'; failure: Failure }
  /**
   * The rail accepted a Processing payout's submission: its reference and the expected completion noted (payoutInfo
   * says it is being processed); it stays Processing until the rail's answer completes or fails it.
   */
  | { type: 'accepted'; providerReference: string | null; expectedBy: Date; message?: string | undefined }
  /** Nothing known yet: the payout keeps its status and is looked at again later. */
  | { type: 'note' };

const held = (p: Pick<PaymentIntent, 'amountMinor' | 'feeMinor'>) => p.amountMinor + p.feeMinor;

/** What a new payout holds from the available balance: its amount and its fee at the merchant's rate. */
export const payoutNeed = (request: Pick<NewWithdrawal, 'amountMinor' | 'fee'>) =>
  request.amountMinor + feeFor(request.amountMinor, request.fee);

/** A payout request's own refusal, asked before anything is read or held: below the minimum (300 of its currency). */
export function payoutRequestRefusal(request: Pick<NewWithdrawal, 'amountMinor' | 'currency'>): Refusal | undefined {
  const minimum = minimumWithdrawalMinor(request.currency);
  if (request.amountMinor >= minimum) return undefined;
  return refuse('amount_below_minimum', `The minimum withdrawal is ${fromMinor(minimum, request.currency)} ${request.currency}.`);
}

const journals = {
  hold: (p: PaymentIntent) => draft('withdrawal.hold', p.paymentIntentId, movements.hold('Withdrawal', held(p)), p.walletShard),
  released: (p: PaymentIntent) => draft('withdrawal.released', p.paymentIntentId, movements.release('Withdrawal', held(p)), p.walletShard),
  completed: (p: PaymentIntent, ledgerAccount: string) =>
    draft(
      'withdrawal.completed',
      p.paymentIntentId,
      movements.payOut('Withdrawal', ledgerAccount, p.amountMinor, p.feeMinor),
      p.walletShard,
    ),
};

function move(
  p: PaymentIntent,
  to: 'Processing' | 'Completed' | 'Failed' | 'Cancelled',
  change: IntentChange,
  now: Date,
  j: JournalDraft[],
) {
  const next = intentTransition(p, to, change, now);
  if (!next) return refuse('invalid_status', `Withdrawal ${p.paymentIntentId} is ${p.status}; it cannot become ${to}.`);
  return decided(next, j, [{ object: 'transaction' as const, id: p.paymentIntentId, from: p.status, to }]);
}

/**
 * A submission is outstanding: the payout is Processing (approved or auto-processed, submitted once, its rail's answer
 * not final yet), so the rail's answer or its status inquiry is still about it; a final status it reached meanwhile stands.
 */
export const payoutOutstanding = (p: Pick<PaymentIntent, 'status'>) => p.status === 'Processing';

export function decidePayout(payout: PaymentIntent | undefined, command: PayoutCommand, now: Date): Decision<PaymentIntent> {
  if (command.type === 'create') {
    if (payout) return refuse('unchanged', `Withdrawal ${payout.paymentIntentId} exists.`);
    const refusal = payoutRequestRefusal(command.request);
    if (refusal) return refusal;
    const created = newWithdrawal(command.request, command.provider, now, command.ids, command.held);
    const p = command.walletShard ? { ...created, walletShard: command.walletShard } : created;
    return decided(p, [journals.hold(p)], [{ object: 'transaction', id: p.paymentIntentId, from: null, to: p.status }]);
  }
  if (!payout) return refuse('not_found', 'No such withdrawal.');
  const d = withdrawalDetails(payout);
  const final = (info: ReturnType<typeof payoutInfo>) => ({ payoutInfo: info, beneficiary: finalBeneficiary(d.beneficiary) });
  switch (command.type) {
    case 'approve': {
      if (!canTransition('withdrawal', payout.status, 'Processing') || payout.status !== 'Pending')
        return refuse('invalid_status', `Withdrawal ${payout.paymentIntentId} is ${payout.status}; only a Pending one can be approved.`);
      const details = {
        ...(command.receiverCnic ? { beneficiary: { ...d.beneficiary, receiverCnic: command.receiverCnic } } : {}),
        submission: { provider: command.provider, submittedAt: now.toISOString() },
        payoutInfo: payoutInfo(payout, { ...payoutInfoChanges.outcomePending(command.reconcileAt), provider: command.provider }),
      };
      return move(payout, 'Processing', { details }, now, []);
    }
    case 'reject': {
      if (payout.status !== 'Pending')
        return refuse('invalid_status', `Withdrawal ${payout.paymentIntentId} is ${payout.status}; only a Pending one can be rejected.`);
      const details = final(payoutInfo(payout, payoutInfoChanges.rejected('Cancelled', command.reason)));
      return move(payout, 'Cancelled', { reason: 'rejected_by_operator', reasonDetail: command.reason, details }, now, [
        journals.released(payout),
      ]);
    }
    case 'complete': {
      const details = {
        ...final(payoutInfo(payout, payoutInfoChanges.completed(command.completedAt ?? now))),
        submission: { ...d.submission, providerReference: command.providerReference ?? d.submission?.providerReference ?? null },
      };
      return move(payout, 'Completed', { details }, now, [journals.completed(payout, command.ledgerAccount)]);
    }
    case 'accepted': {
      if (!payoutOutstanding(payout))
        return refuse('invalid_status', `Withdrawal ${payout.paymentIntentId} is ${payout.status}, not Processing.`);
      return keepingStatus(
        payout,
        {
          submission: { ...d.submission, providerReference: command.providerReference },
          payoutInfo: payoutInfo(payout, payoutInfoChanges.accepted(command.expectedBy, command.message)),
        },
        now,
      );
    }
    case 'note':
      return keepingStatus(payout, {}, now);
    case 'fail': {
      const why = command.failure;
      const notSent = why.kind === 'not_received' || (why.kind === 'rejected' && why.internal);
      const change = payoutFailure(why, payout.traceId);
      const details = final(payoutInfo(payout, change));
      const reason = notSent ? 'payout_not_sent' : 'bank_rejected';
      return move(payout, 'Failed', { reason, reasonDetail: change.errorDetails, details }, now, [journals.released(payout)]);
    }
  }
}
