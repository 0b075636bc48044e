import type { ReasonCode } from '#shared/domain/reasons.ts';
import { merchantMaySubmitNow } from '#shared/services/merchant-gate.ts';
import { randomUUID } from 'node:crypto';
import type { Bank } from '#shared/domain/bank-codes.ts';
import { BusinessRuleError, NotFoundError } from '#shared/domain/errors.ts';
import type { Mode } from '#shared/domain/credentials.ts';
import type { OrderRef, PaymentIntent } from '#shared/domain/intent.ts';
import type { Fee } from '#shared/domain/merchant.ts';
import { feeFor, fromMinor, type Currency } from '#shared/domain/money.ts';
import {
  finalBeneficiary,
  maskAccount,
  minimumWithdrawalMinor,
  payoutInfo,
  payoutMessages,
  states,
  withdrawalDetails,
  withdrawalJournals,
  withdrawalResponse,
  type InfoChange,
  type PayoutInfo,
  type WithdrawalDetails,
  type WithdrawalResponse,
} from '#shared/domain/payout.ts';
import { assertSafeWebhookUrl, UnsafeWebhookUrl } from '#shared/domain/webhook-url.ts';
import { logger } from '#shared/logger.ts';
import { bankRailFor, type BankRail, type PayoutInstruction, type SubmitResult } from '#shared/providers/bank-rail.ts';
import { transact, TransactionFailed, type TxItem } from '#shared/store/client.ts';
import { createIntentWrites, findIntent, getIntent, orderRefWriteIndex, rescheduleDue, sameStatusUpdate } from '#shared/store/intents.ts';
import { getWallet, postJournal, walletWriteIndex } from '#shared/store/wallets.ts';
import { bounded, outboundTimings, pastNotFoundGrace } from './outbound.ts';
import { changeStatus, transactionView } from './transactions.ts';

/**
 * Withdrawals (payouts), SPEC "Withdrawal request" and CONTRACT §6/§9.
 *
 *   create    ONE transaction: the intent (+ orderRef uniqueness), the hold journal whose wallet
 *             update refuses an overdraft, and (auto) the submission record: concurrent
 *             withdrawals can never together exceed the available balance.
 *   submit    the bank rail is called only by whoever wrote the submission record (creation with
 *             autoProcessPayout, or the operator's Pending → Processing approval), at most once.
 *             An unknown outcome leaves Processing + WP_OUTCOME_PENDING, due for the reconciler.
 *   settle    the due sweeper asks the rail's status inquiry (never submits): Completed pays out
 *             through the ledger, Failed / Cancelled release the hold.
 */
/** A business rule refused the withdrawal (422 over HTTP; an error line in the ops tool). Nothing changed. */
export class WithdrawalRefused extends BusinessRuleError {}

export interface WithdrawalRequest {
  merchantId: string;
  mode: Mode;
  traceId: string;
  fee: Fee;
  amountMinor: number;
  currency: Currency;
  description: string;
  autoProcessPayout: boolean;
  metadataJson: string | null;
  callbackUrl: string | null;
  orderRef: OrderRef;
  bank: Bank;
  accountNumber: string;
  accountTitle: string;
  /** The other customerRef members as given (bankName, name, email, cnic, phone). */
  customer: Record<string, string>;
  allowInsecureWebhooks: boolean;
}

/** The Idempotency-Key of a two-step request: claimed in flight with the first commit, completed with the last. */
export interface ResponseRecord {
  claim?: TxItem;
  complete?: (body: WithdrawalResponse) => TxItem | undefined;
}

const retryInquiryMs = outboundTimings.reinquireAfterMs;

const providerUnavailable = () =>
  new WithdrawalRefused('Payout provider unavailable: no payout provider is configured for this mode.', 'payout_provider_unavailable');

const newReference = () => `WD${randomUUID().replaceAll('-', '').slice(0, 20).toUpperCase()}`;

export async function requestWithdrawal(req: WithdrawalRequest, record: ResponseRecord = {}): Promise<WithdrawalResponse> {
  if (req.amountMinor < minimumWithdrawalMinor(req.currency)) {
    throw new WithdrawalRefused(`The minimum withdrawal is 300 ${req.currency}.`, 'amount_below_minimum');
  }
  if (req.callbackUrl) {
    await assertSafeWebhookUrl(req.callbackUrl, { allowInsecure: req.allowInsecureWebhooks }).catch((e: unknown) => {
      throw e instanceof UnsafeWebhookUrl ? new WithdrawalRefused(`callbackUrl ${e.message}.`, 'callback_url_refused') : e;
    });
  }
  const rail = bankRailFor(req.mode);
  if (!rail) throw providerUnavailable();

  const now = new Date();
  const feeMinor = feeFor(req.amountMinor, req.fee);
  const submit = req.autoProcessPayout;
  const reconcileAt = new Date(now.getTime() + rail.reconcileAfterMs);
  const transactionReference = newReference();
  const info: PayoutInfo = {
    ...(submit ? states.outcomePending(reconcileAt) : states.pending()),
    provider: rail.name,
    transactionReference,
    traceId: req.traceId,
    customerBankName: req.bank.name,
    customerAccountNumber: maskAccount(req.accountNumber),
  };
  const details: WithdrawalDetails = {
    autoProcessPayout: submit,
    beneficiary: { bankCode: req.bank.code, bankName: req.bank.name, accountNumber: req.accountNumber, accountLast4: req.accountNumber.slice(-4), accountTitle: req.accountTitle },
    ...(submit ? { submission: { provider: rail.name, submittedAt: now.toISOString() } } : {}),
    payoutInfo: info,
  };
  const intent: PaymentIntent = {
    paymentIntentId: randomUUID(),
    merchantId: req.merchantId,
    mode: req.mode,
    intentType: 'withdrawal',
    status: submit ? 'Processing' : 'Pending',
    amountMinor: req.amountMinor,
    currency: req.currency,
    feeMinor,
    refundedMinor: 0,
    orderRef: req.orderRef,
    customerRef: { ...req.customer, bankAccountNumber: info.customerAccountNumber, bankCode: req.bank.code, accountTitle: req.accountTitle },
    description: req.description,
    metadataJson: req.metadataJson,
    callbackUrl: req.callbackUrl,
    transactionReference,
    reason: null,
    traceId: req.traceId,
    createdAt: now.toISOString(),
    updatedAt: now.toISOString(),
    expiresAt: null,
    version: 1,
    details: details as unknown as Record<string, unknown>,
  };
  const hold = withdrawalJournals.hold({ merchantId: req.merchantId, mode: req.mode, currency: req.currency, reference: intent.paymentIntentId, now }, req.amountMinor, feeMinor);
  // With autoProcessPayout the intent is created Processing WITH its submission record and due
  // for the reconciler: whatever happens after this commit, it is never submitted again.
  const creates = createIntentWrites(intent, submit ? { dueAt: reconcileAt.toISOString() } : {});
  try {
    await transact([...creates, ...postJournal(hold)], record.claim ? { idempotency: record.claim } : {});
  } catch (error) {
    if (error instanceof TransactionFailed) {
      if (error.failedAt(orderRefWriteIndex)) throw new WithdrawalRefused(`orderRef ${req.orderRef.orderRef} was already used.`, 'duplicate_order_ref');
      if (error.failedAt(creates.length + walletWriteIndex)) {
        throw new WithdrawalRefused(
          `Insufficient balance: the withdrawal needs ${fromMinor(req.amountMinor + feeMinor, req.currency)} ${req.currency} (amount plus fee ${fromMinor(feeMinor, req.currency)}), more than the available balance.`,
          'insufficient_balance',
        );
      }
    }
    throw error;
  }

  const wallet = getWallet(req.merchantId, req.mode, req.currency, true);
  wallet.catch(() => undefined); // awaited below; never an unhandled rejection meanwhile
  try {
    const outcome = submit ? await submitOnce(rail, intent) : undefined;
    const afterHold = (await wallet).available; // read after the hold, before any release below
    const respond = (i: PaymentIntent, released: boolean) => withdrawalResponse(i, afterHold + (released ? i.amountMinor + i.feeMinor : 0));
    const result = outcome
      ? await recordOutcome(intent, rail, outcome, record.complete && ((i, released) => record.complete!(respond(i, released))))
      : { intent, released: false, recorded: false };
    const body = respond(result.intent, result.released);
    const completion = result.recorded ? undefined : record.complete?.(body);
    if (completion) await transact([completion]);
    return body;
  } catch (error) {
    // After the first commit the withdrawal exists: answer from what is stored (the lookup is
    // authoritative), so the Idempotency-Key is never left in flight by a passing fault.
    logger.error('withdrawal: fault after creation', { paymentIntentId: intent.paymentIntentId, traceId: req.traceId, error });
    const stored = (await getIntent(intent.paymentIntentId)) ?? intent;
    const body = withdrawalResponse(stored, (await getWallet(req.merchantId, req.mode, req.currency, true)).available);
    const completion = record.complete?.(body);
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

type Outcome = SubmitResult | { outcome: 'unknown' };

/** The one call to the rail's submit. Only callers that just wrote the submission record call it. */
const submitOnce = (rail: BankRail, intent: PaymentIntent): Promise<Outcome> =>
  bounded(() => rail.submit(instruction(intent)), 'payout provider', { paymentIntentId: intent.paymentIntentId, provider: rail.name, call: 'submit' });

type Finish = (final: PaymentIntent, released: boolean) => TxItem | undefined;

/**
 * Records what the rail answered to the submission of `intent` (Processing, just submitted). An
 * unknown outcome changes nothing: the stored state already says WP_OUTCOME_PENDING and is due for
 * the reconciler. `finish` adds the Idempotency-Key completion to the same commit.
 */
async function recordOutcome(intent: PaymentIntent, rail: BankRail, outcome: Outcome, finish?: Finish) {
  const now = new Date();
  if (outcome.outcome === 'unknown') return { intent, released: false, recorded: false };
  if (outcome.outcome === 'accepted') {
    const d = withdrawalDetails(intent);
    const { next, write } = sameStatusUpdate(intent, {
      details: {
        submission: { ...d.submission, providerReference: outcome.providerReference },
        payoutInfo: payoutInfo(intent, states.accepted(outcome.estimatedCompletionAt, outcome.message)),
      },
      dueAt: new Date(now.getTime() + rail.firstCheckAfterMs).toISOString(),
      now,
    });
    const completion = finish?.(next, false);
    try {
      await transact([write, ...(completion ? [completion] : [])]);
      return { intent: next, released: false, recorded: Boolean(completion) };
    } catch (error) {
      if (!(error instanceof TransactionFailed && error.failedAt(0))) throw error;
      // Something settled it first (the reconciler): that outcome stands.
      return { intent: (await getIntent(intent.paymentIntentId)) ?? intent, released: false, recorded: false };
    }
  }
  if (outcome.outcome === 'not_submitted') logger.error('payout not submitted', { paymentIntentId: intent.paymentIntentId, provider: rail.name, detail: outcome.internal });
  const change = outcome.outcome === 'rejected' ? states.rejected('Failed', outcome.reason) : states.internal(payoutMessages.internal(intent.traceId));
  return fail(intent.paymentIntentId, outcome.outcome === 'rejected' ? 'bank_rejected' : 'payout_not_sent', change, finish);
}

/** Processing → Failed, releasing the hold. */
async function fail(paymentIntentId: string, reason: ReasonCode, change: InfoChange, finish?: Finish) {
  let recorded = false;
  const result = await changeStatus(paymentIntentId, (current) => {
    recorded = false;
    if (current.status !== 'Processing') return null;
    const details = { payoutInfo: payoutInfo(current, change), beneficiary: finalBeneficiary(withdrawalDetails(current).beneficiary) };
    const completion = finish?.({ ...current, status: 'Failed', details: { ...current.details, ...details } }, true);
    recorded = Boolean(completion);
    return { to: 'Failed', reason, reasonDetail: change.errorDetails, details, journal: withdrawalJournals.released(current), extraWrites: completion ? [completion] : [] };
  });
  if (result.changed) return { intent: result.intent, released: true, recorded };
  return { intent: result.intent!, released: false, recorded: false };
}

/**
 * The due handler (shared/services/due.ts): a Processing payout whose check is due. Asks the rail's
 * status inquiry, NEVER submits again. Settles Completed (amount to the bank rail, fee to the
 * platform) or Failed (hold released), or looks again later.
 */
export async function settleDueWithdrawal(due: PaymentIntent, now = new Date()): Promise<void> {
  const intent = await getIntent(due.paymentIntentId);
  if (!intent || intent.intentType !== 'withdrawal' || intent.status !== 'Processing') return;
  const d = withdrawalDetails(intent);
  const rail = bankRailFor(intent.mode);
  const later = (ms: number) => new Date(Math.max(now.getTime(), Date.now()) + ms).toISOString();
  const askAgain = async (ms: number) => void (await rescheduleDue(intent, later(ms))); // false: settled meanwhile
  if (!rail || !d.submission) {
    logger.error('withdrawal cannot be reconciled', { paymentIntentId: intent.paymentIntentId, rail: Boolean(rail), submitted: Boolean(d.submission) });
    return askAgain(retryInquiryMs);
  }
  const answer = await bounded(() => rail.statusInquiry(instruction(intent)), 'payout provider', { paymentIntentId: intent.paymentIntentId, call: 'status' });
  if ('outcome' in answer) return askAgain(retryInquiryMs);
  switch (answer.status) {
    case 'Completed': {
      const completedAt = answer.completedAt ?? new Date();
      await changeStatus(intent.paymentIntentId, (current) =>
        current.status !== 'Processing'
          ? null
          : {
              to: 'Completed',
              details: {
                payoutInfo: payoutInfo(current, states.completed(completedAt)),
                beneficiary: finalBeneficiary(withdrawalDetails(current).beneficiary),
                submission: { ...withdrawalDetails(current).submission, providerReference: answer.providerReference ?? withdrawalDetails(current).submission?.providerReference ?? null },
              },
              journal: withdrawalJournals.completed(current),
            },
      );
      return;
    }
    case 'Failed':
      await fail(intent.paymentIntentId, 'bank_rejected', states.rejected('Failed', answer.reason));
      return;
    case 'NotFound':
      if (pastNotFoundGrace(d.submission.submittedAt, now)) {
        await fail(intent.paymentIntentId, 'payout_not_sent', states.internal(payoutMessages.notReceived(intent.traceId)));
        return;
      }
      return askAgain(rail.pollIntervalMs);
    case 'Processing':
      return askAgain(rail.pollIntervalMs);
  }
}

/**
 * Recovery of a withdrawal whose request died between its two commits (its Idempotency-Key claim
 * lapsed): the withdrawal exists, so the retry answers with its current state, read from the store,
 * and completes the key. Undefined when there is no such withdrawal.
 */
export async function currentWithdrawalResponse(merchantId: string, mode: Mode, orderRef: string): Promise<WithdrawalResponse | undefined> {
  const intent = await findIntent(merchantId, mode, orderRef);
  if (!intent || intent.intentType !== 'withdrawal') return undefined;
  return withdrawalResponse(intent, (await getWallet(merchantId, mode, intent.currency, true)).available);
}

/** Operator commands (npm run ops -- withdrawal approve|reject). */

/** ID is a paymentIntentId; with merchant and mode, also an orderRef or transactionReference. */
export async function findWithdrawal(reference: string, scope?: { merchantId: string; mode: Mode }): Promise<PaymentIntent> {
  const intent = scope ? await findIntent(scope.merchantId, scope.mode, reference) : await getIntent(reference);
  if (!intent || intent.intentType !== 'withdrawal') {
    throw new NotFoundError(scope ? `no withdrawal ${reference} for merchant ${scope.merchantId} (${scope.mode})` : `no withdrawal with paymentIntentId ${reference} (give --merchant and --mode to use an orderRef)`);
  }
  return intent;
}

/** Pending → Processing with the submission record, then the one submit to the rail. */
export async function approveWithdrawal(reference: string, scope?: { merchantId: string; mode: Mode }) {
  const found = await findWithdrawal(reference, scope);
  if (found.status !== 'Pending') throw new WithdrawalRefused(`withdrawal ${found.paymentIntentId} is ${found.status}; only a Pending withdrawal can be approved`, 'not_pending');
  if (!(await merchantMaySubmitNow(found.merchantId))) throw new WithdrawalRefused(`merchant ${found.merchantId} is suspended; reactivate it before approving a payout`, 'merchant_suspended');
  const rail = bankRailFor(found.mode);
  if (!rail) throw providerUnavailable();
  const now = new Date();
  const reconcileAt = new Date(now.getTime() + rail.reconcileAfterMs);
  const approved = await changeStatus(found.paymentIntentId, (current) =>
    current.status !== 'Pending'
      ? null
      : {
          to: 'Processing',
          details: { submission: { provider: rail.name, submittedAt: now.toISOString() }, payoutInfo: payoutInfo(current, { ...states.outcomePending(reconcileAt), provider: rail.name }) },
          dueAt: reconcileAt.toISOString(),
        },
  );
  if (!approved.changed) throw new WithdrawalRefused(`withdrawal ${found.paymentIntentId} is ${approved.intent?.status}; only a Pending withdrawal can be approved`, 'not_pending');
  const outcome = await submitOnce(rail, approved.intent);
  const { intent } = await recordOutcome(approved.intent, rail, outcome);
  return transactionView(intent);
}

/** Pending → Cancelled (rejected by the operator), releasing the hold. The reason may reach an end customer. */
export async function rejectWithdrawal(reference: string, reason: string = payoutMessages.rejectedByOperator, scope?: { merchantId: string; mode: Mode }) {
  const found = await findWithdrawal(reference, scope);
  const rejected = await changeStatus(found.paymentIntentId, (current) =>
    current.status !== 'Pending'
      ? null
      : {
          to: 'Cancelled',
          reason: 'rejected_by_operator',
          reasonDetail: reason,
          details: { payoutInfo: payoutInfo(current, states.rejected('Cancelled', reason)), beneficiary: finalBeneficiary(withdrawalDetails(current).beneficiary) },
          journal: withdrawalJournals.released(current),
        },
  );
  if (!rejected.changed) throw new WithdrawalRefused(`withdrawal ${found.paymentIntentId} is ${rejected.intent?.status}; only a Pending withdrawal can be rejected`, 'not_pending');
  return transactionView(rejected.intent);
}
