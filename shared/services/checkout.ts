import { randomBytes, randomUUID } from 'node:crypto';
import { validateCard, type CardInput } from '#shared/domain/cards.ts';
import {
  checkoutDetails,
  checkoutFee,
  completedMovements,
  isExpired,
  maxOtpAttempts,
  normaliseWalletNumber,
  offeredMethods,
  sessionLifetimeMs,
  type CheckoutDetails,
  type WalletSession,
} from '#shared/domain/checkout.ts';
import type { Mode } from '#shared/domain/credentials.ts';
import { isTerminal, type CardSummary, type OrderRef, type PaymentIntent } from '#shared/domain/intent.ts';
import { journal } from '#shared/domain/ledger.ts';
import { defaultFees, type Fee } from '#shared/domain/merchant.ts';
import type { Currency } from '#shared/domain/money.ts';
import type { WalletProviderId } from '#shared/domain/providers.ts';
import { sandboxCardOutcome } from '#shared/domain/sandbox.ts';
import { walletAdapter, type ChargeStatus } from '#shared/providers/wallet.ts';
import { sandboxApprovalDelayMs, sandboxOtp } from '#shared/providers/wallet-sandbox.ts';
import { transact, TransactionFailed, type TxItem } from '#shared/store/client.ts';
import { createIntentWrites, getIntent, orderRefWriteIndex, rescheduleDue, sameStatusUpdate } from '#shared/store/intents.ts';
import { changeStatus, type Decision } from './transactions.ts';

/**
 * Hosted checkout (SPEC "Checkout request", CONTRACT §8, §9): creating a session, and what the
 * customer does on the page: pay by card, pay with a mobile wallet (number, OTP, approval on the
 * handset), cancel. Every status change goes through changeStatus() (conditional write + outbox
 * event + journal in one transaction); the session's expiry and the sandbox handset's answer come
 * from the due index (checkoutDue). Card numbers and CVCs never leave the functions that check them.
 */

// ---------------------------------------------------------------------------------------------
// Creating a session (POST /Gateway/v1/Payment/initiate-checkout)

export interface NewCheckout {
  merchantId: string;
  mode: Mode;
  amountMinor: number;
  currency: Currency;
  description: string;
  orderRef: OrderRef;
  customerRef: Record<string, string> | null;
  callbackUrl: string | null;
  paymentMethod: WalletProviderId | null;
  metadataJson: string | null;
  feeRate: Fee;
  traceId: string;
}

export class DuplicateOrderRef extends Error {}

export function newCheckout(input: NewCheckout, now = new Date()): PaymentIntent {
  const details: CheckoutDetails = { paymentMethod: input.paymentMethod, feeRate: input.feeRate };
  return {
    paymentIntentId: randomUUID(),
    merchantId: input.merchantId,
    mode: input.mode,
    intentType: 'checkout',
    status: 'Pending',
    amountMinor: input.amountMinor,
    currency: input.currency,
    feeMinor: 0,
    refundedMinor: 0,
    orderRef: input.orderRef,
    customerRef: input.customerRef,
    description: input.description,
    metadataJson: input.metadataJson,
    callbackUrl: input.callbackUrl,
    transactionReference: `chk_${randomBytes(12).toString('hex')}`,
    reason: null,
    traceId: input.traceId,
    createdAt: now.toISOString(),
    updatedAt: now.toISOString(),
    expiresAt: new Date(now.getTime() + sessionLifetimeMs).toISOString(),
    version: 1,
    details: details as unknown as Record<string, unknown>,
  };
}

/** `{checkout_url}/pay/{paymentIntentId}` (CONTRACT §8); PUBLIC_BASE_URL is the checkout host. */
export function checkoutUrl(paymentIntentId: string): string {
  const base = process.env.PUBLIC_BASE_URL;
  if (!base) throw new Error('PUBLIC_BASE_URL is not set');
  return `${base.replace(/\/+$/, '')}/pay/${paymentIntentId}`;
}

export const checkoutCreated = (intent: PaymentIntent) => ({
  paymentIntentId: intent.paymentIntentId,
  checkoutUrl: checkoutUrl(intent.paymentIntentId),
  expiresAt: intent.expiresAt,
});

/**
 * Saves the session, its orderRef claim and its reference pointer (and the request's
 * Idempotency-Key record) in one transaction. Due at expiresAt, so the sweep finds it unopened.
 */
export async function saveCheckout(intent: PaymentIntent, idempotency?: TxItem): Promise<void> {
  try {
    await transact(createIntentWrites(intent, { dueAt: intent.expiresAt! }), idempotency ? { idempotency } : {});
  } catch (error) {
    if (error instanceof TransactionFailed && error.failedAt(orderRefWriteIndex)) throw new DuplicateOrderRef();
    throw error;
  }
}

// ---------------------------------------------------------------------------------------------
// The page

/** A request the page refuses without changing anything; shown on the page with `status`. */
export class CheckoutRefusal extends Error {
  constructor(
    readonly status: 400 | 404 | 422,
    message: string,
    readonly form: 'card' | 'wallet' | 'otp' | 'page' = 'page',
    readonly fields: Record<string, string> = {},
  ) {
    super(message);
  }
}

/** Paid by card after starting a wallet payment: the wallet attempt is not what paid. */
const noWallet = { wallet: null, walletProvider: null, walletNumberLast4: null };
const notFound = () => new CheckoutRefusal(404, 'This payment link is not valid.');
const expiredDecision = (): Decision => ({ to: 'Expired', reason: 'expired' });
const liveUnavailable = (form: 'card' | 'wallet') =>
  new CheckoutRefusal(422, 'Live payments are not available: no payment provider is configured for this deployment.', form);

function completedDecision(current: PaymentIntent, source: { card: CardSummary } | { walletProvider: WalletProviderId }): Decision {
  const details = checkoutDetails(current);
  const feeMinor = checkoutFee(current.amountMinor, details.feeRate ?? defaultFees.checkout);
  return {
    to: 'Completed',
    reason: null,
    feeMinor,
    ...('card' in source ? { details: { card: source.card, ...noWallet } } : {}),
    journal: journal({
      merchantId: current.merchantId,
      mode: current.mode,
      currency: current.currency,
      kind: 'checkout.completed',
      reference: current.paymentIntentId,
      movements: completedMovements(current.amountMinor, feeMinor, 'card' in source ? { card: true } : { walletProvider: source.walletProvider }),
    }),
  };
}

/** The session as the page shows it; an overdue Pending session becomes Expired first. */
export async function openCheckout(paymentIntentId: string, now = new Date()): Promise<PaymentIntent | undefined> {
  const intent = await getIntent(paymentIntentId);
  if (!intent || intent.intentType !== 'checkout') return undefined;
  if (intent.status !== 'Pending' || !isExpired(intent, now)) return intent;
  const result = await changeStatus(paymentIntentId, (current) => (isExpired(current, now) ? expiredDecision() : null));
  return result.intent;
}

/** The checks every customer action repeats on the intent it is about to change. */
function assertPayable(current: PaymentIntent, form: 'card' | 'wallet' | 'otp'): CheckoutDetails {
  if (current.intentType !== 'checkout') throw notFound();
  const details = checkoutDetails(current);
  if (details.wallet?.stage === 'approval') throw new CheckoutRefusal(422, 'A wallet payment is waiting for your approval on your phone.', form);
  return details;
}

async function statusChange(paymentIntentId: string, decide: (current: PaymentIntent) => Decision | null): Promise<PaymentIntent> {
  const result = await changeStatus(paymentIntentId, decide);
  if (!result.intent || result.intent.intentType !== 'checkout') throw notFound();
  return result.intent;
}

/**
 * Card payment. The number is validated (Luhn, brand, expiry, CVC) and, in test mode, chosen
 * outcome by the sandbox cards; only brand, last four and expiry are kept.
 */
export async function payByCard(paymentIntentId: string, input: CardInput, now = new Date()): Promise<PaymentIntent> {
  const card = validateCard(input, now);
  if (!card.ok) throw new CheckoutRefusal(400, 'Check the card details.', 'card', card.errors);
  const outcome = sandboxCardOutcome(card.digits);
  return statusChange(paymentIntentId, (current) => {
    if (isExpired(current, now)) return expiredDecision();
    const details = assertPayable(current, 'card');
    if (!offeredMethods(details).card) throw new CheckoutRefusal(422, 'Card payments are not offered for this payment.', 'card');
    if (current.mode !== 'test') throw liveUnavailable('card');
    if (outcome.result === 'approved') return completedDecision(current, { card: card.summary });
    return { to: 'Failed', reason: outcome.reason, details: { card: card.summary, ...noWallet } };
  });
}

/** Applies a details-only change to a Pending session (no status change, no event), retrying lost races. */
async function changePending(
  paymentIntentId: string,
  decide: (current: PaymentIntent) => { details: Record<string, unknown>; dueAt?: string } | { status: Decision },
): Promise<PaymentIntent> {
  for (let attempt = 0; attempt < 8; attempt++) {
    const current = await getIntent(paymentIntentId);
    if (!current || current.intentType !== 'checkout') throw notFound();
    if (isTerminal(current.status)) return current;
    const step = decide(current);
    if ('status' in step) {
      const result = await changeStatus(paymentIntentId, (latest) => (latest.version === current.version ? step.status : null));
      if (!result.intent) throw notFound();
      if (result.changed || isTerminal(result.intent.status)) return result.intent;
      continue; // changed meanwhile: decide again on the new version
    }
    // A checkout is due at its expiry, or earlier while the handset's answer is awaited.
    const { next, write } = sameStatusUpdate(current, { details: step.details, dueAt: step.dueAt ?? current.expiresAt! });
    try {
      await transact([write]);
      return next;
    } catch (error) {
      if (error instanceof TransactionFailed && error.failedAt(0)) continue;
      throw error;
    }
  }
  throw new Error(`could not update checkout ${paymentIntentId}: too much contention`);
}

/**
 * Wallet payment, step 1: the customer's provider and number. The charge is started with the
 * provider, which prompts the customer (test mode: the OTP is always 123456). A refusal at request
 * time (sandbox numbers ending 2222: balance too low, 3333: provider unavailable) changes nothing.
 */
export async function startWalletPayment(paymentIntentId: string, input: { provider: string | undefined; mobileNumber: string }, now = new Date()): Promise<PaymentIntent> {
  const number = normaliseWalletNumber(input.mobileNumber);
  const intent = await getIntent(paymentIntentId);
  if (!intent || intent.intentType !== 'checkout') throw notFound();
  if (isTerminal(intent.status)) return intent;
  if (isExpired(intent, now)) return statusChange(paymentIntentId, (current) => (isExpired(current, now) ? expiredDecision() : null));
  const offered = offeredMethods(assertPayable(intent, 'wallet')).walletProviders;
  const chosen = Number(input.provider ?? (offered.length === 1 ? offered[0] : NaN));
  const provider = offered.find((p) => p === chosen);
  const fields: Record<string, string> = {};
  if (!provider) fields.provider = 'Choose your wallet.';
  if (!number) fields.mobileNumber = 'Enter your mobile wallet number, for example 0300 1234567.';
  if (!provider || !number) throw new CheckoutRefusal(400, 'Check the wallet details.', 'wallet', fields);
  const adapter = walletAdapter(intent.mode, provider);
  if (!adapter) throw liveUnavailable('wallet');
  const started = await adapter.startCharge(
    { reference: intent.transactionReference, mobileNumber: number, amountMinor: intent.amountMinor, currency: intent.currency },
    now,
  );
  if (!started.accepted) throw new CheckoutRefusal(422, started.message, 'wallet');
  const wallet: WalletSession = { provider, stage: 'otp', providerReference: started.providerReference, otpAttempts: 0 };
  return changePending(paymentIntentId, (current) => {
    if (isExpired(current, now)) return { status: expiredDecision() };
    assertPayable(current, 'wallet');
    return { details: { wallet, walletProvider: adapter.name, walletNumberLast4: number.slice(-4) } };
  });
}

/** The provider's answer about a wallet charge decides the payment; Pending decides nothing. */
function walletAnswerDecision(current: PaymentIntent, wallet: WalletSession, answer: ChargeStatus): Decision | null {
  if (answer.status === 'Approved') return completedDecision(current, { walletProvider: wallet.provider });
  if (answer.status === 'Declined') return { to: 'Failed', reason: answer.reason };
  return null;
}

/** The session still waits for this very charge (a newer one may have replaced it). */
const sameCharge = (current: PaymentIntent, wallet: WalletSession) => checkoutDetails(current).wallet?.providerReference === wallet.providerReference;

/**
 * Wallet payment, step 2: the OTP. Right: the customer is asked to approve the charge on the
 * handset, and the session is due a few seconds later, when the sweep asks the provider for its
 * answer (sandbox: 0000 approves, 1111 declines, 4444 never answers). Wrong five times: Failed.
 */
export async function confirmWalletOtp(paymentIntentId: string, otp: string, now = new Date()): Promise<PaymentIntent> {
  const right = otp.trim() === sandboxOtp;
  const result = await changePending(paymentIntentId, (current) => {
    if (isExpired(current, now)) return { status: expiredDecision() };
    const session = assertPayable(current, 'otp').wallet;
    if (!session || session.stage !== 'otp' || !walletAdapter(current.mode, session.provider)) throw new CheckoutRefusal(422, 'Enter your wallet number first.', 'wallet');
    if (!right) {
      const attempts = session.otpAttempts + 1;
      if (attempts >= maxOtpAttempts) return { status: { to: 'Failed', reason: 'otp_failed' } };
      return { details: { wallet: { ...session, otpAttempts: attempts } } };
    }
    return { details: { wallet: { ...session, stage: 'approval' } }, dueAt: new Date(now.getTime() + sandboxApprovalDelayMs).toISOString() };
  });
  const session = checkoutDetails(result).wallet;
  if (result.status === 'Pending' && session?.stage === 'otp') {
    const left = maxOtpAttempts - session.otpAttempts;
    throw new CheckoutRefusal(400, `That code is not right. ${left} attempt${left === 1 ? '' : 's'} left.`, 'otp', { otp: 'Enter the 6-digit code.' });
  }
  return result;
}

export async function cancelCheckout(paymentIntentId: string, now = new Date()): Promise<PaymentIntent> {
  return statusChange(paymentIntentId, (current) => {
    if (current.intentType !== 'checkout') throw notFound();
    return isExpired(current, now) ? expiredDecision() : { to: 'Cancelled', reason: 'customer_cancelled' };
  });
}

/**
 * The due handler of checkouts (shared/services/due.ts). A wallet charge awaiting approval: the
 * provider's answer decides (an approved charge completes even if the session ran out meanwhile:
 * the customer has paid); while it is pending the session waits until it expires. Otherwise an
 * overdue session expires.
 */
export async function checkoutDue(listed: PaymentIntent, now: Date): Promise<void> {
  // The due index is eventually consistent: decide on the intent as it is now.
  const intent = await getIntent(listed.paymentIntentId);
  if (!intent || intent.status !== 'Pending') return;
  const wallet = checkoutDetails(intent).wallet;
  const adapter = wallet?.stage === 'approval' ? walletAdapter(intent.mode, wallet.provider) : undefined;
  const answer = adapter && wallet ? await adapter.statusInquiry(wallet.providerReference, now) : undefined;
  const result = await changeStatus(intent.paymentIntentId, (current) => {
    const decision = wallet && answer && sameCharge(current, wallet) ? walletAnswerDecision(current, wallet, answer) : null;
    return decision ?? (isExpired(current, now) ? expiredDecision() : null);
  });
  // The handset has not answered yet: look again when the session expires, not at every sweep.
  if (!result.changed && answer?.status === 'Pending' && result.intent?.status === 'Pending' && result.intent.expiresAt && !isExpired(result.intent, now)) {
    await rescheduleDue(result.intent, result.intent.expiresAt);
  }
}
