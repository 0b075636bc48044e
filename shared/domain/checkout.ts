import type { Account } from './ledger.ts';
import type { ReasonCode } from './reasons.ts';
import type { Fee } from './merchant.ts';
import { walletProviders, type WalletProviderId } from './providers.ts';
import type { CardSummary, PaymentIntent } from './intent.ts';

/**
 * Hosted checkout rules (docs/merchant-guide.md, Hosted checkout): session lifetime, what the page
 * offers, the wallet number format, the fee and the money movement of a completed payment. Pure.
 */
export const sessionLifetimeMs = 30 * 60 * 1000;

/** The checkout's per-type details (PaymentIntent.details). Names are read by transactionView. */
export interface CheckoutDetails {
  /** The request's restriction: 1 or 2 = only that wallet provider; null = card and every wallet. */
  paymentMethod: WalletProviderId | null;
  /** The merchant's checkout fee when the session was created; charged on Completed. */
  feeRate: Fee;
  /** Set when paid by card: never the number or CVC. */
  card?: CardSummary;
  walletProvider?: string | null;
  walletNumberLast4?: string | null;
  /** The wallet charge of the attempt under way; null once that attempt failed and the session is payable again. */
  wallet?: WalletSession | null;
  /** A live card payment in its 3-D Secure step (never the number or CVC); null as `wallet`. */
  cardAuth?: CardAuthSession | null;
  /** Every finished payment attempt, oldest first (absent on sessions stored before attempts were kept). */
  attempts?: CheckoutAttempt[];
  /** Where the customer goes back to after the payment, when it is not the callbackUrl. */
  returnUrl?: string | null;
  /** The payment link the customer paid through (docs/payment-links.md); its use is released or counted at the end. */
  paymentLinkId?: string;
  /**
   * A payment link's session: whether it holds one of the link's uses (docs/payment-links.md, Payment
   * limits): false from creation, true from the start of a payment attempt until the attempt ends
   * unpaid, or waits for the customer longer than linkUseHoldMs; a paid session keeps it. Absent on
   * link sessions stored before uses were held per attempt: those held one from their creation.
   */
  linkUseHeld?: boolean;
}

/** A payment link's session that holds one of the link's uses (shared/store/payment-links.ts linkUseWrites). */
export const holdsLinkUse = (details: CheckoutDetails) => details.paymentLinkId !== undefined && details.linkUseHeld !== false;

/**
 * How long a payment attempt that waits for the customer before any money can move holds a payment link's use
 * (docs/payment-links.md, Payment limits): a live card's 3-D Secure challenge (nothing is authorised before the
 * customer's verified return) or a sandbox wallet charge whose code was not entered (nothing is asked of the handset
 * before it). Past it, the sweep gives the use back and the attempt stays on the session; the customer's late return or
 * code then takes a use again, only while one is left (linkUseAttempt in the same conditional write), before any card
 * is authorised or handset asked, so paid uses never exceed maxPayments. Ten minutes: the issuers' challenge window.
 */
export const linkUseHoldMs = 10 * 60_000;

/**
 * When the sweep gives back the link use held by an attempt that waits for the customer (linkUseHoldMs); undefined when
 * the session holds none such: no link use held, or an attempt that may move money without us (a wallet approval on the
 * handset, a card being authorised), whose use is held until its own outcome.
 */
export function linkUseReleaseAt(details: CheckoutDetails): number | undefined {
  if (details.paymentLinkId === undefined || details.linkUseHeld !== true) return undefined;
  const since =
    details.cardAuth?.stage === 'challenge'
      ? details.cardAuth.startedAt
      : details.wallet?.stage === 'otp' && !details.cardAuth
        ? details.wallet.startedAt
        : undefined;
  return since ? Date.parse(since) + linkUseHoldMs : undefined;
}

/**
 * The details that mark a payment attempt on a link's session as started (it takes one of the
 * link's uses in the same transaction, while any is left; nothing when it already holds one or is
 * not a link's session) or as ended unpaid (gives the use back).
 */
export const linkUseAttempt = (details: CheckoutDetails, started: boolean): { linkUseHeld?: boolean } =>
  details.paymentLinkId === undefined || details.linkUseHeld === undefined || details.linkUseHeld === started
    ? {}
    : { linkUseHeld: started };

/**
 * A live card payment between the 3-D Secure enrollment and its outcome. `challenge`: the customer
 * is sent to the issuer's page and returns to /pay/{id}/card/return; `confirming`: the return was
 * verified and the authorisation is under way, or its answer was lost (the sweep asks the
 * provider's inquiry; it never authorises again).
 */
export interface CardAuthSession {
  stage: 'challenge' | 'confirming';
  providerReference: string;
  authenticationId: string;
  /** Where the browser POSTs `fields` for the challenge (the issuer's ACS). */
  url: string;
  fields: Record<string, string>;
  card: CardSummary;
  startedAt: string;
  /** The reference the provider was given for this attempt (attemptReference); absent on older sessions. */
  reference?: string;
  /** No answer from the provider within cardConfirmCapMs: left for the operator (alarm CardOutcomeUnresolved). */
  operatorAlertedAt?: string;
}

/** A card payment's 3-D Secure step was started: no wallet charge and no other card may start on the session. */
export const cardAuthStarted = (details: CheckoutDetails) => details.cardAuth != null;

/**
 * A wallet payment in progress: the charge was started with the provider (which prompts the
 * customer), the customer enters the OTP, then approves on the handset.
 */
export interface WalletSession {
  provider: WalletProviderId;
  stage: 'otp' | 'approval';
  /** The provider's reference of the charge, for its status inquiry. */
  providerReference: string;
  otpAttempts: number;
  /** When the charge was started (its code step, sandbox): a payment link's use held meanwhile goes back after linkUseHoldMs. */
  startedAt?: string;
  /** When the customer was asked to approve on the handset (the right OTP); absent before. */
  approvalRequestedAt?: string;
  /** The reference the provider was given for this attempt (attemptReference); absent on older sessions. */
  reference?: string;
  /**
   * The provider never answered the charge request (a timeout, a cut connection, a 5xx): the charge awaits the approval
   * like any other, and its inquiry's "no such charge" waits until approvalDeadline() (shared/providers/wallet-contract.ts).
   */
  chargeUnanswered?: true;
  /**
   * Recorded before the charge request was sent (startWalletPayment), its answer not yet recorded: the attempt holds the
   * session (no second charge, no card payment), awaiting the approval as an unanswered charge until the answer is
   * recorded; a request that crashed is settled by the sweep's inquiry like a lost answer.
   */
  requesting?: true;
}

/**
 * How many payment attempts one session takes (docs/merchant-guide.md, Hosted checkout: Declined
 * and failed attempts). A declined or failed attempt leaves the session payable by another card or
 * wallet until this many have failed; the last one fails the transaction.
 */
export const maxPaymentAttempts = 3;

/** A finished payment attempt of a session, as the merchant sees it (the lookup's `attempts`, the dashboard). */
export interface CheckoutAttempt {
  /** 1-based, in the order they finished. */
  number: number;
  method: 'card' | 'wallet';
  outcome: 'succeeded' | 'failed';
  reason: ReasonCode | null;
  reasonDetail: string | null;
  card: CardSummary | null;
  walletProvider: string | null;
  walletNumberLast4: string | null;
  at: string;
  /** The reference the provider was given (internal: refunds of the paying attempt name it; never shown). */
  reference: string;
}

export const attemptsOf = (details: CheckoutDetails | undefined): CheckoutAttempt[] => details?.attempts ?? [];

/** The failed attempts left before the transaction fails. */
export const attemptsLeft = (details: CheckoutDetails) =>
  Math.max(0, maxPaymentAttempts - attemptsOf(details).filter((a) => a.outcome === 'failed').length);

/**
 * The reference a session's next attempt gives the provider: the transaction reference for the
 * first (as before attempts existed), suffixed after, so that a provider that takes a reference
 * once (JazzCash's pp_TxnRefNo) sees a new one per attempt.
 */
export function attemptReference(intent: PaymentIntent): string {
  const n = attemptsOf(checkoutDetails(intent)).length + 1;
  return n === 1 ? intent.transactionReference : `${intent.transactionReference}R${n}`;
}

/** The provider's reference of the payment that took the money (a refund names it): the paying attempt's. */
export function paymentReference(intent: PaymentIntent): string {
  if (intent.intentType !== 'checkout') return intent.transactionReference;
  return attemptsOf(checkoutDetails(intent)).findLast((a) => a.outcome === 'succeeded')?.reference ?? intent.transactionReference;
}

/** An attempt as the merchant sees it: everything but the provider reference. */
export const attemptView = ({ reference: _reference, ...shown }: CheckoutAttempt) => shown;

/**
 * How long a started wallet approval is honoured: the provider's own approval window, counted from
 * the approval request. A charge awaiting approval ends only by the provider's answer (Approved:
 * Completed, Declined: Failed), even after the session's 30 minutes; still unanswered at
 * approvalDeadline() it expires.
 */
export const walletApprovalWindowMs = 10 * 60 * 1000;

/** A wallet charge the customer may still approve on the handset: only the provider's answer (or approvalDeadline) ends it. */
export const awaitingApproval = (details: CheckoutDetails) => details.wallet?.stage === 'approval';

/** A wallet charge was started with the provider (the customer was prompted): no other charge may start on the session. */
export const walletChargeStarted = (details: CheckoutDetails) => details.wallet != null;

/** When an unanswered approval expires: the session's expiry or the approval window, whichever is later. */
export function approvalDeadline(intent: PaymentIntent, wallet: WalletSession): number {
  const expiresAt = intent.expiresAt ? Date.parse(intent.expiresAt) : 0;
  const requested = wallet.approvalRequestedAt ? Date.parse(wallet.approvalRequestedAt) : expiresAt;
  return Math.max(expiresAt, requested + walletApprovalWindowMs);
}

export const maxOtpAttempts = 5;

export const checkoutDetails = (intent: PaymentIntent) => intent.details as unknown as CheckoutDetails;

/** What the page offers: card only without a paymentMethod; wallets restricted to the one given. */
export function offeredMethods(details: CheckoutDetails): { card: boolean; walletProviders: WalletProviderId[] } {
  if (details.paymentMethod) return { card: false, walletProviders: [details.paymentMethod] };
  return { card: true, walletProviders: [1, 2] };
}

export const isExpired = (intent: PaymentIntent, now: Date) => intent.expiresAt !== null && Date.parse(intent.expiresAt) <= now.getTime();

/** Production wallet numbers (docs/merchant-guide.md, Deposits): `^(\+92|0)?3\d{9}$`; spaces and dashes are ignored. */
export function normaliseWalletNumber(text: string): string | undefined {
  const compact = text.replace(/[\s-]/g, '');
  return /^(\+92|0)?3\d{9}$/.test(compact) ? compact : undefined;
}

/**
 * Completed: the money arrives from the card network or wallet provider, net of the fee. A deposit's wallet account
 * has its own name (`wallet:<CODE>`, as its journals have always had), a checkout's `wallet_<code>`.
 */
export function completedMovements(
  amountMinor: number,
  feeMinor: number,
  source: { card: true } | { walletProvider: WalletProviderId } | { deposit: WalletProviderId },
): { account: Account; amount: number }[] {
  const external =
    'card' in source
      ? 'card_network'
      : 'deposit' in source
        ? `wallet:${walletProviders[source.deposit].code}`
        : `wallet_${walletProviders[source.walletProvider].code.toLowerCase()}`;
  return [
    { account: { kind: 'external', name: external }, amount: -amountMinor },
    { account: { kind: 'available' }, amount: amountMinor - feeMinor },
    { account: { kind: 'fees' }, amount: feeMinor },
  ];
}

/**
 * Where the customer goes back to the merchant: the session's `returnUrl`, else its `callbackUrl`
 * (the specification's single URL for both the webhook and the customer's return).
 */
export const customerReturnBase = (intent: PaymentIntent): string | null =>
  (intent.intentType === 'checkout' ? checkoutDetails(intent).returnUrl : null) ?? intent.callbackUrl;

/**
 * docs/merchant-guide.md, Hosted checkout: GET the return URL (returnUrl, else callbackUrl) with
 * paymentIntentId, orderRef and status added to its query.
 */
export function customerRedirectUrl(intent: PaymentIntent): string | null {
  const base = customerReturnBase(intent);
  if (!base) return null;
  const url = new URL(base);
  url.searchParams.set('paymentIntentId', intent.paymentIntentId);
  url.searchParams.set('orderRef', intent.orderRef.orderRef);
  url.searchParams.set('status', intent.status);
  return url.toString();
}
