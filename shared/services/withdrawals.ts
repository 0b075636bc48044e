import type { ReasonCode } from '#shared/domain/reasons.ts';
import { randomUUID } from 'node:crypto';
import { BusinessRuleError } from '#shared/domain/errors.ts';
import type { Mode } from '#shared/domain/credentials.ts';
import type { PaymentIntent } from '#shared/domain/intent.ts';
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
import { transact, TransactionFailed, type TxItem } from '#shared/store/client.ts';
import type { RecordResponse } from '#shared/store/idempotency.ts';
import { createIntentWrites, findIntent, getIntent } from '#shared/store/intents.ts';
import { getWallet, postJournal, withFunds } from '#shared/store/wallets.ts';
import { askLater, inquire, later, recordAnswer, submitRecorded, type OutboundProduct } from './outbound.ts';
import { changeIntent, type Decision, type SameStatus } from './transactions.ts';
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

/** The Idempotency-Key of a two-step request: claimed in flight with the first commit, completed with the last. */
export interface TwoStepKey {
  claim?: TxItem;
  complete?: RecordResponse<WithdrawalResponse>;
}

export const providerUnavailable = () =>
  new BusinessRuleError('Payout provider unavailable: no payout provider is configured for this mode.', 'payout_provider_unavailable');

const newReference = () => `WD${randomUUID().replaceAll('-', '').slice(0, 20).toUpperCase()}`;

export async function requestWithdrawal(input: WithdrawalInput, key: TwoStepKey = {}): Promise<WithdrawalResponse> {
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
  const intent = newWithdrawal(input, { name: rail.name, reconcileAt }, now, {
    paymentIntentId: randomUUID(),
    transactionReference: newReference(),
  });
  const { feeMinor } = intent;
  const hold = withdrawalJournals.hold(
    { merchantId: input.merchantId, mode: input.mode, currency: input.currency, reference: intent.paymentIntentId, now },
    input.amountMinor,
    feeMinor,
  );
  // With autoProcessPayout the intent is created Processing WITH its submission record and due
  // for the reconciler: whatever happens after this commit, it is never submitted again.
  const creates = createIntentWrites(intent, submit ? { dueAt: reconcileAt.toISOString() } : {});
  try {
    await withFunds(input, () => transact([...creates, ...postJournal(hold)], key.claim ? { idempotency: key.claim } : {}));
  } catch (error) {
    if (error instanceof TransactionFailed) {
      if (error.on('orderRef')) throw new BusinessRuleError(`orderRef ${input.orderRef.orderRef} was already used.`, 'duplicate_order_ref');
      if (error.on('wallet')) {
        throw new BusinessRuleError(
          `Insufficient balance: the withdrawal needs ${fromMinor(input.amountMinor + feeMinor, input.currency)} ${input.currency} ` +
            `(amount plus fee ${fromMinor(feeMinor, input.currency)}), more than the available balance.`,
          'insufficient_balance',
        );
      }
    }
    throw error;
  }

  const wallet = getWallet(input.merchantId, input.mode, input.currency, true);
  wallet.catch(() => undefined); // awaited below; never an unhandled rejection meanwhile
  try {
    const payout = payouts(key.complete && ((i, released) => key.complete!(respond(i, released))));
    const answer = submit ? await submitRecorded(payout.product, rail, intent) : undefined;
    const afterHold = (await wallet).available; // read after the hold, before any release below
    const respond = (i: PaymentIntent, released: boolean) => withdrawalResponse(i, afterHold + (released ? i.amountMinor + i.feeMinor : 0));
    const final = (answer && (await recordAnswer(payout.product, rail, intent, answer, now))) ?? intent;
    const { recorded, released } = payout.outcome();
    const body = respond(final, released);
    const completion = recorded ? undefined : key.complete?.(body);
    if (completion) await transact([completion]);
    return body;
  } catch (error) {
    // After the first commit the withdrawal exists: answer from what is stored (the lookup is
    // authoritative), so the Idempotency-Key is never left in flight by a passing fault.
    logger.error('withdrawal: fault after creation', { paymentIntentId: intent.paymentIntentId, traceId: input.traceId, error });
    const stored = (await getIntent(intent.paymentIntentId)) ?? intent;
    const body = withdrawalResponse(stored, (await getWallet(input.merchantId, input.mode, input.currency, true)).available);
    const completion = key.complete?.(body);
    if (completion) await transact([completion]);
    return body;
  }
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
/** The Idempotency-Key completion committed with the answer, from the payout after it (and whether its hold was released). */
type Finish = (final: PaymentIntent, released: boolean) => TxItem | undefined;

/**
 * Payouts over the outbound-transfer engine. `finish` (the request that created the payout) adds
 * the Idempotency-Key completion to the commit that records the answer; `outcome()` says whether
 * that commit happened and released the hold.
 */
export function payouts(finish?: Finish) {
  let recorded = false;
  let released = false;
  const finishing = (final: PaymentIntent, release: boolean) => {
    const completion = finish?.(final, release);
    recorded = Boolean(completion);
    released = release;
    return completion ? [completion] : [];
  };
  const fail = (current: PaymentIntent, reason: ReasonCode, change: InfoChange): Decision => {
    const details = { payoutInfo: payoutInfo(current, change), beneficiary: finalBeneficiary(withdrawalDetails(current).beneficiary) };
    const extraWrites = finishing({ ...current, status: 'Failed', details: { ...current.details, ...details } }, true);
    return { to: 'Failed', reason, reasonDetail: change.errorDetails, details, journal: withdrawalJournals.released(current), extraWrites };
  };
  const product: OutboundProduct<PaymentIntent, PayoutInstruction, PayoutChange> = {
    who: 'payout provider',
    context: (i) => ({ paymentIntentId: i.paymentIntentId }),
    instruction,
    submittedAt: (i) => withdrawalDetails(i).submission!.submittedAt,
    outstanding: (current) => current.status === 'Processing',
    commit: async (asked, decide) =>
      (
        await changeIntent(asked.paymentIntentId, (current) => {
          recorded = released = false;
          return decide(current);
        })
      ).intent,
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
      const extraWrites = finishing({ ...current, details: { ...current.details, ...details } }, false);
      return { sameStatus: true, details, dueAt: later(now, rail.timings.firstCheckAfterMs), extraWrites };
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
  return { product, outcome: () => ({ recorded, released }) };
}

/**
 * The due handler (shared/services/due.ts): a Processing payout whose check is due. The engine asks
 * the rail's status inquiry, NEVER submits again: Completed (amount to the rail, fee to the
 * platform), Failed (hold released), or later.
 */
export async function reconcileWithdrawal(due: PaymentIntent, now = new Date()): Promise<void> {
  const intent = await getIntent(due.paymentIntentId);
  if (!intent || intent.intentType !== 'withdrawal' || intent.status !== 'Processing') return;
  const rail = railFor('payout', intent.mode);
  if (rail && withdrawalDetails(intent).submission) {
    await inquire(payouts().product, rail, intent, now);
    return;
  }
  logger.error('withdrawal cannot be reconciled', {
    paymentIntentId: intent.paymentIntentId,
    rail: Boolean(rail),
    submitted: Boolean(withdrawalDetails(intent).submission),
  });
  await askLater(payouts().product, rail, intent, now);
}

/**
 * Recovery of a withdrawal whose request died between its two commits (its Idempotency-Key claim
 * lapsed): the withdrawal exists, so the retry answers with its current state, read from the store,
 * and commits the key's completion. Undefined when there is no such withdrawal (or no key to complete).
 */
export async function recoverWithdrawal(
  merchantId: string,
  mode: Mode,
  orderRef: string,
  complete: RecordResponse<WithdrawalResponse>,
): Promise<WithdrawalResponse | undefined> {
  const intent = await findIntent(merchantId, mode, orderRef);
  if (!intent || intent.intentType !== 'withdrawal') return undefined;
  const body = withdrawalResponse(intent, (await getWallet(merchantId, mode, intent.currency, true)).available);
  const completion = complete(body);
  if (!completion) return undefined;
  await transact([completion]);
  return body;
}
