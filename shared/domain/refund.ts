import type { Mode } from './credentials.ts';
import { paymentReference } from './checkout.ts';
import type { PaymentIntent } from './intent.ts';
import { fromMinor, toMinor, type Currency } from './money.ts';
import type { Failure } from './outbound.ts';
import type { WalletProviderId } from './providers.ts';
import type { ErrorCode } from './error-codes.ts';
import { RefundStatus } from './core/machines.ts';

/**
 * Refunds (docs/merchant-guide.md: Refunds; Transaction lookup). Pure rules: statuses, transitions, what is refundable.
 *
 * The status machine is in ./core/machines.ts; the decisions in ./core/refund.ts.
 *
 * Every attempt of a refund is sent with the same provider reference (the refund id). While an
 * attempt's outcome is not known (`attemptedAt` set: in flight, timed out, or a crash before its
 * answer was recorded) the refund is only ever settled by the provider's status inquiry, never by
 * another attempt; only a definite decline (or NotFound after a grace period) allows the next one.
 *
 * The refunds of one transaction never add up to more than its amount: every refund that is not
 * Failed, Cancelled, Rejected or Expired is reserved on the transaction (`refundReservedMinor`).
 */
export { canRefundTransition, refundStatusNames, RefundStatus } from './core/machines.ts';

export const maxRefundAttempts = 3;
export const refundExpiryDays = 7;
/** Minimum refund amount, in the transaction's currency (docs/merchant-guide.md, Refunds: minimum 10). */
export const minimumRefundMinor = (currency: Currency) => toMinor(10, currency);

export interface Refund {
  id: string;
  paymentIntentId: string;
  merchantId: string;
  mode: Mode;
  /** The transaction's type (checkout or deposit) and reference, for views and the ledger. */
  intentType: PaymentIntent['intentType'];
  transactionReference: string;
  /**
   * The provider's reference of the payment attempt that took the money, when it is not
   * transactionReference (a checkout paid at its second or third attempt); the refund rail names it.
   */
  paymentReference?: string;
  /**
   * What took the payment: a wallet provider's id, or null for a card (the refund rail picks the provider's
   * refund API by it). Absent on refunds requested before it was recorded: the rail asks the provider then.
   */
  walletProviderId?: WalletProviderId | null;
  amountMinor: number;
  /** Refund fee (merchant fee schedule, default 0), held and charged with the amount. */
  feeMinor: number;
  currency: Currency;
  reason: string | null;
  status: RefundStatus;
  attemptCount: number;
  /**
   * When the current attempt was recorded (just before it was sent), while its outcome is not
   * recorded; null when no attempt is outstanding (none yet, or the last one was declined).
   * Absent on refunds stored before this field existed.
   */
  attemptedAt?: string | null;
  requestedAt: string;
  approvedAt: string | null;
  processedAt: string | null;
  /** Pending refunds not approved by then expire. */
  expiresAt: string;
  failureReason: string | null;
  providerReference: string | null;
  traceId: string;
  updatedAt: string;
  version: number;
  /** The hold's shard of a sharded wallet (shared/store/wallets.ts), set at approval; absent = shard 0. */
  walletShard?: number;
}

/** The intent as refunds see it: with the reservation counter kept on the intent item. */
export type RefundableIntent = PaymentIntent & { refundReservedMinor?: number };

export const reservedOf = (intent: RefundableIntent) => intent.refundReservedMinor ?? 0;

/**
 * What a refund rail can refund of a payment it took (its adapter declares it; decideRefund decides with it): `partial`
 * any refunds up to the payment, `once` a single refund (a payment with an earlier refund is refused), `none` no refund
 * through the gateway (the provider has no refund API). `provider` names it in the refusal.
 */
export interface RefundCapability {
  refundsAllowed: 'partial' | 'once' | 'none';
  provider: string;
}

/** What remains refundable of a payment: a Completed one's amount less what its refunds reserve (0 otherwise). */
export const refundableMinor = (intent: RefundableIntent) => (intent.status === 'Completed' ? intent.amountMinor - reservedOf(intent) : 0);

/** Why a transaction cannot be refunded at all, or undefined when it can. */
export function refundRefusal(intent: RefundableIntent): string | undefined {
  if (intent.intentType !== 'checkout' && intent.intentType !== 'deposit') return 'Only checkouts and deposits can be refunded.';
  if (intent.status !== 'Completed') return `Only a Completed transaction can be refunded; this one is ${intent.status}.`;
  if (refundableMinor(intent) <= 0) return 'The transaction is already refunded.';
  return undefined;
}

/** The refund object merchants see (docs/merchant-guide.md, Refunds). */
export function refundView(r: Refund) {
  return {
    id: r.id,
    paymentIntentId: r.paymentIntentId,
    transactionReference: r.transactionReference,
    amount: fromMinor(r.amountMinor, r.currency),
    currency: r.currency,
    fee: fromMinor(r.feeMinor, r.currency),
    reason: r.reason,
    status: r.status,
    isLive: r.mode === 'live',
    requestedAt: r.requestedAt,
    approvedAt: r.approvedAt,
    processedAt: r.processedAt,
    expiresAt: r.expiresAt,
    attemptCount: r.attemptCount,
    failureReason: r.failureReason,
  };
}

export type RefundView = ReturnType<typeof refundView>;

/**
 * The amount a refund request may take from a transaction: the whole remainder when no amount is
 * given, else the amount if it is at least the minimum and no more than the remainder. A refusal
 * carries its stable code and the merchant-facing text.
 */
export function refundAmount(
  intent: RefundableIntent,
  requestedMinor: number | undefined,
): { amountMinor: number } | { code: ErrorCode; message: string } {
  const refusal = refundRefusal(intent);
  if (refusal) return { code: refusal.includes('already refunded') ? 'already_refunded' : 'not_refundable', message: refusal };
  const remaining = refundableMinor(intent);
  if (requestedMinor === undefined) return { amountMinor: remaining };
  const minimum = minimumRefundMinor(intent.currency);
  if (requestedMinor < minimum)
    return { code: 'amount_below_minimum', message: `The minimum refund is ${fromMinor(minimum, intent.currency)} ${intent.currency}.` };
  if (requestedMinor > remaining) {
    return {
      code: 'amount_exceeds_refundable',
      message: `The amount exceeds what remains refundable: ${fromMinor(remaining, intent.currency)} ${intent.currency}.`,
    };
  }
  return { amountMinor: requestedMinor };
}

/** After a declined (or never received) attempt: the next attempt, with the same reference, while attempts remain. */
export const refundRetries = (r: Pick<Refund, 'attemptCount'>) => r.attemptCount < maxRefundAttempts;

/** Whether the sweep may start a new attempt now: approved, or the last attempt was declined and attempts remain. */
export const refundReadyForAttempt = (r: Refund) =>
  r.status === RefundStatus.Approved || (r.status === RefundStatus.Processing && r.attemptedAt === null && refundRetries(r));

/** A Pending refund past its expiry. */
export const refundOverdue = (r: Refund, now: Date) => r.status === RefundStatus.Pending && now.toISOString() >= r.expiresAt;

/**
 * When a new refund is first due (docs/merchant-guide.md, Refunds: test mode): a test-mode refund
 * at once, so the sandbox approves and processes it within seconds (shared/services/refunds.ts
 * `advanceRefund`); a live one at its expiry, unless the operator approves it first.
 */
export const refundFirstDueAt = (r: Pick<Refund, 'mode' | 'requestedAt' | 'expiresAt'>) =>
  r.mode === 'test' ? r.requestedAt : r.expiresAt;

/** How long the sandbox waits before approving again a test refund whose approval was refused (balance short). */
export const sandboxApprovalRetryMs = 60_000;

/** What approval holds: amount + refund fee. */
export const refundHeldMinor = (r: Refund) => r.amountMinor + r.feeMinor;

/** The wallet provider that took a payment (a deposit's, or a checkout's wallet), or null for a card. */
export function paidThrough(intent: PaymentIntent): WalletProviderId | null {
  const d = intent.details as { providerId?: WalletProviderId; wallet?: { provider?: WalletProviderId } | null } | undefined;
  return d?.providerId ?? d?.wallet?.provider ?? null;
}

/** A new Pending refund of `intent`, due at its expiry. */
export function newRefund(
  owner: { merchantId: string; mode: Mode; traceId: string },
  intent: PaymentIntent,
  amountMinor: number,
  feeMinor: number,
  reason: string | null,
  now: Date,
  id: string,
): Refund {
  const at = now.toISOString();
  return {
    id,
    paymentIntentId: intent.paymentIntentId,
    merchantId: owner.merchantId,
    mode: owner.mode,
    intentType: intent.intentType,
    transactionReference: intent.transactionReference,
    ...(paymentReference(intent) === intent.transactionReference ? {} : { paymentReference: paymentReference(intent) }),
    walletProviderId: paidThrough(intent),
    amountMinor,
    feeMinor,
    currency: intent.currency,
    reason,
    status: RefundStatus.Pending,
    attemptCount: 0,
    requestedAt: at,
    approvedAt: null,
    processedAt: null,
    expiresAt: new Date(now.getTime() + refundExpiryDays * 86_400_000).toISOString(),
    failureReason: null,
    providerReference: null,
    attemptedAt: null,
    traceId: owner.traceId,
    updatedAt: at,
    version: 1,
  };
}

/** failureReason when an attempt never reached the provider. Shown to the merchant. */
export const refundNotReceivedReason = 'The refund request did not reach the refund provider.';

/**
 * After an attempt that did not pay (declined, or never received): retried with the same
 * reference while attempts remain, else Failed. The failureReason shown meanwhile keeps the last
 * decline when the retry was never received.
 */
export function refundAfterFailure(
  r: Pick<Refund, 'attemptCount' | 'failureReason'>,
  failure: Failure,
): { retry: boolean; failureReason: string } {
  const retry = refundRetries(r);
  if (failure.kind !== 'not_received') return { retry, failureReason: failure.reason };
  return { retry, failureReason: retry ? (r.failureReason ?? refundNotReceivedReason) : refundNotReceivedReason };
}
