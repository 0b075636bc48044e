import type { ReasonCode } from '#shared/domain/reasons.ts';
import { randomUUID } from 'node:crypto';
import { BusinessRuleError } from '#shared/domain/errors.ts';
import type { Mode } from '#shared/domain/credentials.ts';
import type { PaymentIntent } from '#shared/domain/intent.ts';
import { holdShardField } from '#shared/domain/ledger.ts';
import { fromMinor } from '#shared/domain/money.ts';
import {
  finalBeneficiary,
  minimumWithdrawalMinor,
  newWithdrawal,
  payoutInfo,
  payoutFailure,
  payoutInfoChanges,
  withdrawalDetails,
  withdrawalJournals,
  withdrawalResponse,
  type InfoChange,
  type NewWithdrawal,
  type WithdrawalResponse,
} from '#shared/domain/payout.ts';
import { assertSafeCallbackUrl } from '#shared/domain/webhook-url.ts';
import { logger } from '#shared/logger.ts';
import type { PayoutInstruction } from '#shared/providers/bank-rail.ts';
import { railFor } from '#shared/providers/rails.ts';
import type { SubmitAnswer } from '#shared/providers/rail.ts';
import { createIntentWrites, findIntent, getIntent } from '#shared/store/intents.ts';
import type { FinalChange, RequestChange } from '#shared/store/request.ts';
import { getWallet, postJournal, type PlaceHold } from '#shared/store/wallets.ts';
import { answerDecision, inquireOrLater, later, submitRecorded, type OutboundProduct } from './outbound.ts';
import { changeIntent, intentChange, type Decision, type SameStatus } from './transactions.ts';
import '#shared/providers/live/boot.ts';

/**
 * Withdrawals (payouts, docs/merchant-guide.md): declarations over the outbound-transfer engine
 * (shared/services/outbound.ts, docs/architecture.md).
 *
 *   create    ONE transaction: the intent (+ orderRef uniqueness), the hold journal whose wallet
 *             update refuses an overdraft, and (auto) the submission record.
 *   submit    only whoever wrote the submission record (creation with autoProcessPayout, or the
 *             operator's approval) calls the engine's one submit. Unknown: WP_OUTCOME_PENDING.
 *   due       the engine's status inquiry: Completed pays out, Failed / Cancelled release the hold.
 */

export interface WithdrawalInput extends NewWithdrawal {
  allowInsecureWebhooks: boolean;
}

export const providerUnavailable = () =>
  new BusinessRuleError('Payout provider unavailable: no payout provider is configured for this mode.', 'payout_provider_unavailable');

const newReference = () => `WD${randomUUID().replaceAll('-', '').slice(0, 20).toUpperCase()}`;

/**
 * POST /Payment/withdraw, a two-step request (shared/store/request.ts): the first commit holds the
 * funds and (auto) records the submission; `next` submits once and records the answer in the
 * commit that stores the response.
 */
export async function requestWithdrawal(input: WithdrawalInput, place: PlaceHold): Promise<RequestChange<WithdrawalResponse>> {
  if (input.amountMinor < minimumWithdrawalMinor(input.currency)) {
    throw new BusinessRuleError(`The minimum withdrawal is 300 ${input.currency}.`, 'amount_below_minimum');
  }
  if (input.callbackUrl) await assertSafeCallbackUrl(input.callbackUrl, input.allowInsecureWebhooks);
  const rail = railFor('payout', input.mode);
  if (!rail) throw providerUnavailable();
  const refusal = rail.refuses?.({ bankCode: input.bank.code });
  if (refusal) throw new BusinessRuleError(refusal, 'payout_provider_unavailable');

  const now = new Date();
  const submit = input.autoProcessPayout;
  const reconcileAt = new Date(now.getTime() + rail.timings.inquireAfterMs);
  const draft = newWithdrawal(input, { name: rail.name, reconcileAt }, now, {
    paymentIntentId: randomUUID(),
    transactionReference: newReference(),
  });
  const { feeMinor } = draft;
  const wallet = { merchantId: input.merchantId, mode: input.mode, currency: input.currency };
  // The hold's wallet shard (0 unless sharded) is recorded on the intent for its completion or release.
  const need = draft.amountMinor + feeMinor;
  const intent = { ...draft, ...holdShardField(await place({ ...wallet, reference: draft.paymentIntentId, need })) };
  const hold = withdrawalJournals.hold(
    { ...wallet, reference: intent.paymentIntentId, now, walletShard: intent.walletShard },
    input.amountMinor,
    feeMinor,
  );
  // With autoProcessPayout the intent is created Processing WITH its submission record and due
  // for the reconciler: whatever happens after this commit, it is never submitted again.
  const creates = createIntentWrites(intent, submit ? { dueAt: reconcileAt.toISOString() } : {});
  // After the first commit, once: the balance after the hold (before any release) and the one submit.
  let afterHold: Promise<[number, SubmitAnswer | undefined]> | undefined;
  const answered = () =>
    (afterHold ??= Promise.all([
      getWallet(input.merchantId, input.mode, input.currency, true).then((w) => w.available),
      submit ? submitRecorded(payouts, rail, intent) : undefined,
    ]));
  return {
    writes: [...creates, ...postJournal(hold)],
    refused: (failed) => {
      if (failed.on('orderRef'))
        return new BusinessRuleError(`orderRef ${input.orderRef.orderRef} was already used.`, 'duplicate_order_ref');
      if (!failed.on('wallet')) return undefined;
      const [total, fee] = [fromMinor(input.amountMinor + feeMinor, input.currency), fromMinor(feeMinor, input.currency)];
      return new BusinessRuleError(
        `Insufficient balance: the withdrawal needs ${total} ${input.currency} (amount plus fee ${fee}), ` +
          'more than the available balance.',
        'insufficient_balance',
      );
    },
    next: async () => {
      const [available, answer] = await answered();
      const decide = answer && answerDecision(payouts, rail, intent, answer, now);
      const current = decide ? ((await getIntent(intent.paymentIntentId)) ?? intent) : intent;
      const decision = decide?.(current);
      const change = decision ? intentChange(current, decision, new Date()) : undefined;
      const released = decision && 'to' in decision && decision.to === 'Failed';
      const final = change?.next ?? current;
      return {
        writes: change?.writes ?? [],
        response: withdrawalResponse(final, available + (released ? final.amountMinor + final.feeMinor : 0)),
        refused: (failed) => (failed.on('intent') ? 'again' : undefined),
        ...(change ? { committed: change.committed } : {}),
      };
    },
    fallback: async () => (await storedWithdrawal(intent.paymentIntentId))!,
  };
}

const instruction = (intent: PaymentIntent): PayoutInstruction => {
  const d = withdrawalDetails(intent);
  return {
    reference: intent.transactionReference,
    amountMinor: intent.amountMinor,
    currency: intent.currency,
    bankCode: d.beneficiary.bankCode,
    accountNumber: d.beneficiary.accountNumber ?? '',
    accountTitle: d.beneficiary.accountTitle,
    description: intent.description,
    submittedAt: d.submission?.submittedAt ?? intent.updatedAt,
  };
};

type PayoutChange = Decision | SameStatus;

const fail = (current: PaymentIntent, reason: ReasonCode, change: InfoChange): Decision => {
  const details = { payoutInfo: payoutInfo(current, change), beneficiary: finalBeneficiary(withdrawalDetails(current).beneficiary) };
  return { to: 'Failed', reason, reasonDetail: change.errorDetails, details, journal: withdrawalJournals.released(current) };
};

/** Payouts over the outbound-transfer engine: their instruction and transitions. */
export const payouts: OutboundProduct<PaymentIntent, PayoutInstruction, PayoutChange> = {
  who: 'payout provider',
  context: (i) => ({ paymentIntentId: i.paymentIntentId }),
  instruction,
  submittedAt: (i) => withdrawalDetails(i).submission!.submittedAt,
  outstanding: (current) => current.status === 'Processing',
  commit: async (asked, decide) => (await changeIntent(asked.paymentIntentId, decide)).intent,
  // Only the payout as submitted: if anything moved it on meanwhile (the reconciler), that stands.
  accepted: ({ current, asked, rail, now }, answer) => {
    if (current.version !== asked.version) return null;
    const details = {
      submission: { ...withdrawalDetails(current).submission, providerReference: answer.providerReference },
      payoutInfo: payoutInfo(
        current,
        payoutInfoChanges.accepted(
          answer.estimatedCompletionAt ?? new Date(now.getTime() + rail.timings.firstCheckAfterMs),
          answer.message,
        ),
      ),
    };
    return { sameStatus: true, details, dueAt: later(now, rail.timings.firstCheckAfterMs) };
  },
  completed: ({ current, rail, now }, answer) => {
    const d = withdrawalDetails(current);
    return {
      to: 'Completed',
      details: {
        payoutInfo: payoutInfo(current, payoutInfoChanges.completed(answer.completedAt ?? now)),
        beneficiary: finalBeneficiary(d.beneficiary),
        submission: { ...d.submission, providerReference: answer.providerReference ?? d.submission?.providerReference ?? null },
      },
      journal: withdrawalJournals.completed(current, rail.ledgerAccount),
    };
  },
  failed: ({ current }, why) => {
    if (why.kind === 'rejected' && why.internal)
      logger.error('payout not submitted', { paymentIntentId: current.paymentIntentId, detail: why.reason });
    const reason: ReasonCode =
      why.kind === 'not_received' || (why.kind === 'rejected' && why.internal) ? 'payout_not_sent' : 'bank_rejected';
    return fail(current, reason, payoutFailure(why, current.traceId));
  },
  dueAgain: ({ current, asked }, dueAt) => (current.version === asked.version ? { sameStatus: true, details: {}, dueAt } : null),
};

/**
 * The due handler (shared/services/due.ts): a Processing payout whose check is due. The engine asks
 * the rail's status inquiry, NEVER submits again: Completed (amount to the rail, fee to the
 * platform), Failed (hold released), or later.
 */
export async function reconcileWithdrawal(due: PaymentIntent, now = new Date()): Promise<void> {
  const intent = await getIntent(due.paymentIntentId);
  if (!intent || intent.intentType !== 'withdrawal' || intent.status !== 'Processing') return;
  await inquireOrLater(payouts, railFor('payout', intent.mode), intent, now);
}

/** The withdrawal as stored, as the response to its request (with no writes). */
async function storedWithdrawal(paymentIntentId: string): Promise<FinalChange<WithdrawalResponse> | undefined> {
  const intent = await getIntent(paymentIntentId);
  if (!intent) return undefined;
  return {
    writes: [],
    response: withdrawalResponse(intent, (await getWallet(intent.merchantId, intent.mode, intent.currency, true)).available),
  };
}

/**
 * Recovery of a withdrawal whose request died between its two commits (its Idempotency-Key claim
 * lapsed): the retry answers with the withdrawal as stored, which the pipeline commits with the
 * key's response. Undefined when there is no such withdrawal.
 */
export async function recoverWithdrawal(merchantId: string, mode: Mode, orderRef: string) {
  const intent = await findIntent(merchantId, mode, orderRef);
  return intent?.intentType === 'withdrawal' ? storedWithdrawal(intent.paymentIntentId) : undefined;
}
