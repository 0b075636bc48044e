import type { Bank } from './bank-codes.ts';
import type { Mode } from './credentials.ts';
import type { IntentStatus, OrderRef, PaymentIntent } from './intent.ts';
import type { Fee } from './merchant.ts';
import { feeFor, fromMinor, toMinor, type Currency } from './money.ts';
import type { Failure } from './outbound.ts';

/**
 * Withdrawals (payouts): the rules of docs/merchant-guide.md (Withdrawals, Transaction lookup, sandbox) that do not
 * touch a store. Amount + fee is held from `available` at creation; Completed pays the amount out
 * to the bank rail and the fee to the platform; Failed and Cancelled release the hold.
 */
/** Minimum 300 for all providers, in the withdrawal's currency (minor units follow its exponent). */
export const minimumWithdrawalMinor = (currency: Currency) => toMinor(300, currency);

export type PayoutErrorCode = 'WP_REQUEST_REJECTED' | 'WP_OUTCOME_PENDING' | 'WP_INTERNAL_ERROR';

/** `payoutInfo` (docs/merchant-guide.md, Withdrawals), as stored in intent.details.payoutInfo and returned by withdraw and the lookup. */
export interface PayoutInfo {
  status: IntentStatus;
  provider: string;
  transactionReference: string;
  message: string;
  isSuccess: boolean;
  errorCode: PayoutErrorCode | null;
  errorDetails: string | null;
  traceId: string;
  estimatedCompletionTime: string | null;
  customerBankName: string;
  customerAccountNumber: string;
}

/**
 * What the gateway keeps of the beneficiary. The full account number is needed to submit the
 * payout (and, for the sandbox, to answer a status inquiry); once the payout is final only the
 * last four characters are kept.
 */
export interface Beneficiary {
  bankCode: string;
  bankName: string;
  accountNumber: string | null;
  accountLast4: string;
  accountTitle: string;
  /** The receiver's CNIC when the operator gave it at approval (`ops withdrawal approve --receiver-cnic`); dropped when final. */
  receiverCnic?: string;
}

/** Recorded BEFORE the bank rail is called: a payout with a submission is never submitted again. */
export interface Submission {
  provider: string;
  submittedAt: string;
  /** The provider's own reference, once it answered. */
  providerReference?: string | null;
}

export interface WithdrawalDetails {
  autoProcessPayout: boolean;
  beneficiary: Beneficiary;
  submission?: Submission;
  payoutInfo: PayoutInfo;
}

/** `****************6702`: the length stays, only the last four characters show. */
export function maskAccount(accountNumber: string): string {
  return '*'.repeat(Math.max(0, accountNumber.length - 4)) + accountNumber.slice(-4);
}

export const withdrawalDetails = (intent: PaymentIntent) => intent.details as unknown as WithdrawalDetails;

/** The merchant-facing texts. errorDetails never carries internals. */
export const payoutMessages = {
  awaitingApproval: 'The withdrawal is awaiting approval.',
  heldForApproval: "The withdrawal is awaiting approval: the merchant's payoutApprovals setting holds automatic payouts for approval too.",
  submitted: 'The payout was accepted by the bank and is being processed.',
  outcomePending:
    'The payout was submitted to the bank and its outcome is not known yet. Do not submit it ' +
    'again: the final status arrives by webhook and on the transaction lookup.',
  completed: 'The payout was completed.',
  rejectedByOperator: 'The withdrawal was not approved.',
  internal: (traceId: string) => `An internal error occurred; the payout was not sent. Quote traceId ${traceId} to support.`,
  notReceived: (traceId: string) =>
    `The bank did not receive the payout; it was not sent and the funds were released. Quote traceId ${traceId} to support.`,
};

export type InfoChange = Pick<PayoutInfo, 'status' | 'message' | 'isSuccess' | 'errorCode' | 'errorDetails' | 'estimatedCompletionTime'> & {
  provider?: string;
};

/** payoutInfo for the intent after a change (status, texts), the rest from what is stored. */
export function payoutInfo(intent: PaymentIntent, change: InfoChange): PayoutInfo {
  const d = withdrawalDetails(intent);
  return {
    ...d.payoutInfo,
    ...change,
    provider: change.provider ?? d.payoutInfo.provider,
  };
}

/** The payoutInfo of each stage of a payout (merged over the stored one by payoutInfo()). */
export const payoutInfoChanges = {
  pending: (message = payoutMessages.awaitingApproval): InfoChange => ({
    status: 'Pending',
    message,
    isSuccess: true,
    errorCode: null,
    errorDetails: null,
    estimatedCompletionTime: null,
  }),
  /** Written with the submission record, before the rail answers: exactly what a crash leaves behind. */
  outcomePending: (reconcileAt: Date): InfoChange => ({
    status: 'Processing',
    message: 'Submitted to the bank; awaiting its confirmation.',
    isSuccess: false,
    errorCode: 'WP_OUTCOME_PENDING',
    errorDetails: payoutMessages.outcomePending,
    estimatedCompletionTime: reconcileAt.toISOString(),
  }),
  accepted: (estimatedCompletion: Date, message = payoutMessages.submitted): InfoChange => ({
    status: 'Processing',
    message,
    isSuccess: true,
    errorCode: null,
    errorDetails: null,
    estimatedCompletionTime: estimatedCompletion.toISOString(),
  }),
  completed: (at: Date): InfoChange => ({
    status: 'Completed',
    message: payoutMessages.completed,
    isSuccess: true,
    errorCode: null,
    errorDetails: null,
    estimatedCompletionTime: at.toISOString(),
  }),
  rejected: (status: 'Failed' | 'Cancelled', reason: string): InfoChange => ({
    status,
    message: status === 'Cancelled' ? 'The withdrawal was rejected.' : 'The bank rejected the payout.',
    isSuccess: false,
    errorCode: 'WP_REQUEST_REJECTED',
    errorDetails: reason,
    estimatedCompletionTime: null,
  }),
  internal: (detail: string): InfoChange => ({
    status: 'Failed',
    message: 'The payout failed.',
    isSuccess: false,
    errorCode: 'WP_INTERNAL_ERROR',
    errorDetails: detail,
    estimatedCompletionTime: null,
  }),
};

/** Final beneficiary: the full account number (and a CNIC the operator gave) are dropped once nothing can be sent any more. */
export const finalBeneficiary = ({ receiverCnic: _, ...b }: Beneficiary): Beneficiary => ({ ...b, accountNumber: null });

const total = (intent: Pick<PaymentIntent, 'amountMinor' | 'feeMinor'>) => intent.amountMinor + intent.feeMinor;
/** docs/merchant-guide.md, Withdrawals. availableBalance is the wallet as read after this request's change. */
export function withdrawalResponse(intent: PaymentIntent, availableMinor: number) {
  const c = intent.currency;
  return {
    paymentIntentId: intent.paymentIntentId,
    amount: fromMinor(intent.amountMinor, c),
    currency: c,
    merchantReference: intent.orderRef.orderRef,
    isLive: intent.mode === 'live',
    fee: fromMinor(intent.feeMinor, c),
    totalRequired: fromMinor(total(intent), c),
    availableBalance: fromMinor(availableMinor, c),
    payoutInfo: withdrawalDetails(intent).payoutInfo,
    traceId: intent.traceId,
  };
}

export type WithdrawalResponse = ReturnType<typeof withdrawalResponse>;

/** What a withdrawal request says, once validated. */
export interface NewWithdrawal {
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
}

/**
 * The withdrawal intent of a request: Pending (awaiting approval), or with autoProcessPayout
 * Processing WITH its submission record (the payout is submitted right after this is committed,
 * and never again), its outcome pending until `provider.reconcileAt`. `held`: the merchant's
 * approval setting holds automatic payouts too (holdsAutomaticPayouts): Pending whatever was asked.
 */
export function newWithdrawal(
  req: NewWithdrawal,
  provider: { name: string; reconcileAt: Date },
  now: Date,
  ids: { paymentIntentId: string; transactionReference: string },
  held = false,
): PaymentIntent {
  const submit = req.autoProcessPayout && !held;
  const pending = payoutInfoChanges.pending(req.autoProcessPayout ? payoutMessages.heldForApproval : payoutMessages.awaitingApproval);
  const info: PayoutInfo = {
    ...(submit ? payoutInfoChanges.outcomePending(provider.reconcileAt) : pending),
    provider: provider.name,
    transactionReference: ids.transactionReference,
    traceId: req.traceId,
    customerBankName: req.bank.name,
    customerAccountNumber: maskAccount(req.accountNumber),
  };
  const details: WithdrawalDetails = {
    autoProcessPayout: submit,
    beneficiary: {
      bankCode: req.bank.code,
      bankName: req.bank.name,
      accountNumber: req.accountNumber,
      accountLast4: req.accountNumber.slice(-4),
      accountTitle: req.accountTitle,
    },
    ...(submit ? { submission: { provider: provider.name, submittedAt: now.toISOString() } } : {}),
    payoutInfo: info,
  };
  return {
    paymentIntentId: ids.paymentIntentId,
    merchantId: req.merchantId,
    mode: req.mode,
    intentType: 'withdrawal',
    status: submit ? 'Processing' : 'Pending',
    amountMinor: req.amountMinor,
    currency: req.currency,
    feeMinor: feeFor(req.amountMinor, req.fee),
    refundedMinor: 0,
    orderRef: req.orderRef,
    customerRef: {
      ...req.customer,
      bankAccountNumber: info.customerAccountNumber,
      bankCode: req.bank.code,
      accountTitle: req.accountTitle,
    },
    description: req.description,
    metadataJson: req.metadataJson,
    callbackUrl: req.callbackUrl,
    transactionReference: ids.transactionReference,
    reason: null,
    traceId: req.traceId,
    createdAt: now.toISOString(),
    updatedAt: now.toISOString(),
    expiresAt: null,
    version: 1,
    details: details as unknown as Record<string, unknown>,
  };
}

/**
 * payoutInfo of a payout that ends without paying: the bank's reason when it refused or failed it;
 * only the trace id when the adapter could not send it (its diagnostic is internal) or the bank
 * never received it.
 */
export function payoutFailure(failure: Failure, traceId: string): InfoChange {
  if (failure.kind === 'not_received') return payoutInfoChanges.internal(payoutMessages.notReceived(traceId));
  if (failure.kind === 'rejected' && failure.internal) return payoutInfoChanges.internal(payoutMessages.internal(traceId));
  return payoutInfoChanges.rejected('Failed', failure.reason);
}
