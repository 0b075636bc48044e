import { randomBytes, randomUUID } from 'node:crypto';
import { validateCard, type CardInput } from '#shared/domain/cards.ts';
import {
  approvalDeadline,
  awaitingApproval,
  checkoutDetails,
  checkoutFee,
  completedMovements,
  isExpired,
  maxOtpAttempts,
  normaliseWalletNumber,
  offeredMethods,
  sessionLifetimeMs,
  walletChargeStarted,
  type CheckoutDetails,
  type WalletSession,
} from '#shared/domain/checkout.ts';
import { BusinessRuleError, DomainError } from '#shared/domain/errors.ts';
import type { Mode } from '#shared/domain/credentials.ts';
import { isTerminal, requestedFields, type CardSummary, type OrderRef, type PaymentIntent } from '#shared/domain/intent.ts';
import { journal } from '#shared/domain/ledger.ts';
import { defaultFees, type Fee } from '#shared/domain/merchant.ts';
import type { Currency } from '#shared/domain/money.ts';
import type { WalletProviderId } from '#shared/domain/providers.ts';
import { logger } from '#shared/logger.ts';
import { walletDecline } from '#shared/domain/reasons.ts';
import { firstInquiryAt, walletAdapter, type ChargeStatus } from '#shared/providers/wallet.ts';
import { cardNetwork } from '#shared/providers/cards.ts';
import { transact, TransactionFailed, type TxItem } from '#shared/store/client.ts';
import { getMerchant } from '#shared/store/merchants.ts';
import { createIntentWrites, getIntent, orderRefWriteIndex, rescheduleDue, sameStatusUpdate } from '#shared/store/intents.ts';
import { holdApprovalIfSuspended, isHeld } from './held-approvals.ts';
import { changeStatus, type ChangeResult, type Decision } from './transactions.ts';
import '#shared/providers/live/boot.ts';

/** Live checkout offers the wallet option once a live wallet provider is configured (shared/providers/live). */
export { liveWalletConfigured } from '#shared/providers/wallet.ts';

/**
 * Hosted checkout (docs/merchant-guide.md, Hosted checkout; Hosted checkout: Sandbox): creating a session, and what the
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
    ...requestedFields(input),
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

/** `{checkout_url}/pay/{paymentIntentId}` (docs/merchant-guide.md, Hosted checkout); PUBLIC_BASE_URL is the checkout host. */
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
    if (error instanceof TransactionFailed && error.failedAt(orderRefWriteIndex)) {
      throw new BusinessRuleError(`orderRef ${intent.orderRef.orderRef} was already used for another transaction.`, 'duplicate_order_ref');
    }
    throw error;
  }
}

// ---------------------------------------------------------------------------------------------
// The page

/**
 * A request the page refuses without changing anything: a DomainError (invalid, not_found or
 * business_rule) that also says which form of the page shows it and the messages of its fields.
 */
export class CheckoutRefusal extends DomainError {
  constructor(
    category: 'invalid' | 'not_found' | 'business_rule',
    message: string,
    readonly form: 'card' | 'wallet' | 'otp' | 'page' = 'page',
    readonly fields: Record<string, string> = {},
  ) {
    super(category, message);
  }
}

/** A card result keeps no wallet fields (a card can only pay before any wallet charge was started). */
const noWallet = { wallet: null, walletProvider: null, walletNumberLast4: null };
const notFound = () => new CheckoutRefusal('not_found', 'This payment link is not valid.');
const expiredDecision = (): Decision => ({ to: 'Expired', reason: 'expired' });
const liveUnavailable = (form: 'card' | 'wallet') =>
  new CheckoutRefusal('business_rule', 'Live payments are not available: no payment provider is configured for this deployment.', form);
const awaitingApprovalRefusal = (form: CheckoutRefusal['form']) =>
  new CheckoutRefusal(
    'business_rule',
    form === 'page'
      ? 'A wallet payment is waiting for your approval on your phone, so it can no longer be cancelled here. Approve ' +
          'or decline it in your wallet app; if you do nothing, it ends by itself and no money is taken.'
      : 'A wallet payment is waiting for your approval on your phone. Approve or ' +
          'decline it in your wallet app; this page updates by itself.',
    form,
  );
const chargeStartedRefusal = (form: CheckoutRefusal['form']) =>
  new CheckoutRefusal(
    'business_rule',
    'A wallet payment was already started for this order: enter the code sent to your phone. To ' +
      'pay another way, cancel this payment and start again from the merchant’s site.',
    form,
  );
const suspendedRefusal = (form: CheckoutRefusal['form']) =>
  new CheckoutRefusal(
    'business_rule',
    'This merchant is not accepting payments at the moment. No money was taken; contact the merchant.',
    form,
  );

/** A suspended merchant's hosted pages take no payment (docs/security-and-limits.md). */
async function assertMerchantAcceptsPayments(merchantId: string, form: CheckoutRefusal['form']): Promise<void> {
  const merchant = await getMerchant(merchantId, true);
  if (!merchant || merchant.status !== 'active') throw suspendedRefusal(form);
}

const changedRefusal = () => new CheckoutRefusal('business_rule', 'The payment changed meanwhile. Check the page and try again.', 'page');
const tryAgainRefusal = () =>
  new CheckoutRefusal('business_rule', 'The wallet provider could not be reached. Try again in a moment.', 'page');
/** How often the sweep asks the provider about a charge awaiting approval. */
const approvalRecheckMs = 15_000;

export function completedDecision(current: PaymentIntent, source: { card: CardSummary } | { walletProvider: WalletProviderId }): Decision {
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
      movements: completedMovements(
        current.amountMinor,
        feeMinor,
        'card' in source ? { card: true } : { walletProvider: source.walletProvider },
      ),
    }),
  };
}

/**
 * The provider's answer about a wallet charge decides the payment; Pending decides nothing, and
 * neither does any answer about a held approval (suspended merchant: the operator decides).
 */
function walletAnswerDecision(current: PaymentIntent, wallet: WalletSession, answer: ChargeStatus): Decision | null {
  if (isHeld(current)) return null;
  if (answer.status === 'Approved') return completedDecision(current, { walletProvider: wallet.provider });
  if (answer.status === 'Declined') return { to: 'Failed', ...walletDecline(answer.reason) };
  return null;
}

/** The session still waits for this very charge (a newer one may have replaced it). */
const sameCharge = (current: PaymentIntent, wallet: WalletSession) =>
  checkoutDetails(current).wallet?.providerReference === wallet.providerReference;

/**
 * Withdraws a started wallet charge nobody will credit (cancelled or expired before the OTP, an
 * approval unanswered at its deadline, a charge that lost a race), where the adapter can. Returns
 * whether the provider confirmed it; throws (`required`) or logs when it could not.
 */
async function abandonCharge(intent: PaymentIntent, wallet: WalletSession, required: boolean): Promise<boolean> {
  const adapter = walletAdapter(intent.mode, wallet.provider);
  if (!adapter?.cancelCharge) return false;
  try {
    await adapter.cancelCharge(wallet.providerReference);
    return true;
  } catch (error) {
    logger.warn('wallet charge not cancelled', { paymentIntentId: intent.paymentIntentId, provider: wallet.provider, error });
    if (required) throw error;
    return false;
  }
}

/**
 * What a due or overdue session comes to: the one decision of the sweep (checkoutDue) and of every
 * customer path that finds the session overdue. A wallet charge awaiting approval ends only by the
 * provider's answer: Approved → Completed and credited, even after the session's 30 minutes (the
 * customer has paid); Declined → Failed; still unanswered at approvalDeadline() the charge is
 * withdrawn (cancelCharge, where the adapter has it) and the session Expired. Otherwise an overdue
 * session expires, withdrawing a charge started in the OTP stage first. When the provider cannot
 * confirm a withdrawal, or does not answer, the session stays Pending and is looked at again.
 */
async function resolveCheckout(intent: PaymentIntent, now: Date): Promise<{ result: ChangeResult; answer?: ChargeStatus }> {
  const wallet = checkoutDetails(intent).wallet ?? undefined;
  const adapter = wallet ? walletAdapter(intent.mode, wallet.provider) : undefined;
  let answer: ChargeStatus | undefined;
  let keepOpen = false; // no answer, or a withdrawal the provider did not confirm: do not expire yet
  if (intent.status === 'Pending' && wallet?.stage === 'approval' && adapter) {
    try {
      answer = await adapter.statusInquiry(wallet.providerReference, now);
    } catch (error) {
      logger.warn('wallet status inquiry failed', { paymentIntentId: intent.paymentIntentId, provider: wallet.provider, error });
      keepOpen = true; // no answer: decide nothing, ask again later
    }
    if (answer?.status === 'Pending' && now.getTime() >= approvalDeadline(intent, wallet)) {
      try {
        // Approved between the inquiry and the withdrawal: the second answer completes it.
        if (await abandonCharge(intent, wallet, true)) answer = await adapter.statusInquiry(wallet.providerReference, now);
      } catch {
        keepOpen = true;
      }
    }
  } else if (intent.status === 'Pending' && wallet && isExpired(intent, now)) {
    try {
      await abandonCharge(intent, wallet, true);
    } catch {
      keepOpen = true;
    }
  }
  if (answer?.status === 'Approved' && wallet?.stage === 'approval') {
    // A suspended merchant is not credited: the approval is held for the operator (held-approvals.ts).
    const stillThisCharge = (current: PaymentIntent) =>
      checkoutDetails(current).wallet?.stage === 'approval' && sameCharge(current, wallet);
    const held = await holdApprovalIfSuspended(
      intent.paymentIntentId,
      { source: 'inquiry', providerReference: wallet.providerReference },
      now,
      stillThisCharge,
    );
    if (held) return { result: { changed: false, intent: held }, answer };
  }
  const result = await changeStatus(intent.paymentIntentId, (current) => {
    if (isHeld(current)) return null; // held for the operator: neither completed nor expired here
    const waiting = checkoutDetails(current).wallet;
    if (waiting?.stage === 'approval') {
      // Decide only on the answer about this very charge; a charge that reached approval since is looked at again.
      if (wallet?.stage !== 'approval' || !sameCharge(current, wallet)) return null;
      const decision = answer ? walletAnswerDecision(current, waiting, answer) : null;
      return decision ?? (!keepOpen && now.getTime() >= approvalDeadline(current, waiting) ? expiredDecision() : null);
    }
    if (waiting && (!wallet || !sameCharge(current, wallet))) return null; // started since: withdrawn on the next look
    return !keepOpen && isExpired(current, now) ? expiredDecision() : null;
  });
  return answer ? { result, answer } : { result };
}

/** The session as the page shows it; an overdue Pending session is resolved first (resolveCheckout). */
export async function openCheckout(paymentIntentId: string, now = new Date()): Promise<PaymentIntent | undefined> {
  const intent = await getIntent(paymentIntentId);
  if (!intent || intent.intentType !== 'checkout') return undefined;
  if (intent.status !== 'Pending' || !isExpired(intent, now)) return intent;
  return (await resolveCheckout(intent, now)).result.intent ?? intent;
}

/** A customer action on an overdue session: resolved instead (resolveCheckout); refused while it still waits. */
async function resolveOverdue(current: PaymentIntent, now: Date, form: CheckoutRefusal['form']): Promise<PaymentIntent> {
  const resolved = (await resolveCheckout(current, now)).result.intent ?? current;
  if (resolved.intentType !== 'checkout') throw notFound();
  if (resolved.status !== 'Pending') return resolved;
  throw awaitingApproval(checkoutDetails(resolved)) ? awaitingApprovalRefusal(form) : tryAgainRefusal();
}

/** The checks every customer action repeats on the intent it is about to change. */
function assertPayable(current: PaymentIntent, form: 'card' | 'wallet' | 'otp'): CheckoutDetails {
  if (current.intentType !== 'checkout') throw notFound();
  const details = checkoutDetails(current);
  if (awaitingApproval(details)) throw awaitingApprovalRefusal(form);
  return details;
}

/**
 * A customer action that ends a session that is not overdue (card payment, cancel); what `decide`
 * refuses changes nothing. An overdue session is resolved instead, never paid or cancelled.
 */
async function customerOutcome(
  paymentIntentId: string,
  now: Date,
  form: CheckoutRefusal['form'],
  decide: (current: PaymentIntent) => Decision,
): Promise<PaymentIntent> {
  const seen: { overdue?: PaymentIntent } = {};
  const result = await changeStatus(paymentIntentId, (current) => {
    if (current.intentType !== 'checkout') throw notFound();
    if (isExpired(current, now)) {
      seen.overdue = current;
      return null;
    }
    delete seen.overdue;
    return decide(current);
  });
  if (!result.intent || result.intent.intentType !== 'checkout') throw notFound();
  if (!result.changed && seen.overdue && result.intent.status === 'Pending') return resolveOverdue(result.intent, now, form);
  return result.intent;
}

/**
 * Card payment. The number is validated (Luhn, brand, expiry, CVC) and, in test mode, chosen
 * outcome by the sandbox cards; only brand, last four and expiry are kept. Refused once a wallet
 * charge was started on the session: the customer could approve that one too.
 */
export async function payByCard(paymentIntentId: string, input: CardInput, now = new Date()): Promise<PaymentIntent> {
  const card = validateCard(input, now);
  if (!card.ok) throw new CheckoutRefusal('invalid', 'Check the card details.', 'card', card.errors);
  const intent = await getIntent(paymentIntentId);
  if (intent?.intentType === 'checkout' && intent.status === 'Pending') await assertMerchantAcceptsPayments(intent.merchantId, 'card');
  return customerOutcome(paymentIntentId, now, 'card', (current) => {
    const details = assertPayable(current, 'card');
    if (walletChargeStarted(details)) throw chargeStartedRefusal('card');
    if (!offeredMethods(details).card)
      throw new CheckoutRefusal('business_rule', 'Card payments are not offered for this payment.', 'card');
    const network = cardNetwork(current.mode);
    if (!network) throw liveUnavailable('card');
    const outcome = network(card.digits);
    if (outcome.result === 'approved') return completedDecision(current, { card: card.summary });
    return { to: 'Failed', reason: outcome.reason, details: { card: card.summary, ...noWallet } };
  });
}

/**
 * Applies a details-only change to a Pending session (no status change, no event), retrying lost
 * races. An overdue session is resolved instead (resolveCheckout).
 */
async function changePending(
  paymentIntentId: string,
  now: Date,
  form: 'wallet' | 'otp',
  decide: (current: PaymentIntent) => { details: Record<string, unknown>; dueAt?: string } | { status: Decision },
): Promise<PaymentIntent> {
  for (let attempt = 0; attempt < 8; attempt++) {
    const current = await getIntent(paymentIntentId);
    if (!current || current.intentType !== 'checkout') throw notFound();
    if (isTerminal(current.status)) return current;
    if (isExpired(current, now)) return resolveOverdue(current, now, form);
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
 * One wallet charge per session: once one was started, another (or a card payment) is refused.
 */
export async function startWalletPayment(
  paymentIntentId: string,
  input: { provider: string | undefined; mobileNumber: string },
  now = new Date(),
): Promise<PaymentIntent> {
  const number = normaliseWalletNumber(input.mobileNumber);
  const intent = await getIntent(paymentIntentId);
  if (!intent || intent.intentType !== 'checkout') throw notFound();
  if (isTerminal(intent.status)) return intent;
  if (isExpired(intent, now)) return resolveOverdue(intent, now, 'wallet');
  await assertMerchantAcceptsPayments(intent.merchantId, 'wallet');
  const details = assertPayable(intent, 'wallet');
  if (walletChargeStarted(details)) throw chargeStartedRefusal('wallet');
  const offered = offeredMethods(details).walletProviders;
  const chosen = Number(input.provider ?? (offered.length === 1 ? offered[0] : NaN));
  const provider = offered.find((p) => p === chosen);
  const fields: Record<string, string> = {};
  if (!provider) fields.provider = 'Choose your wallet.';
  if (!number) fields.mobileNumber = 'Enter your mobile wallet number, for example 0300 1234567.';
  if (!provider || !number) throw new CheckoutRefusal('invalid', 'Check the wallet details.', 'wallet', fields);
  const adapter = walletAdapter(intent.mode, provider);
  if (!adapter) throw liveUnavailable('wallet');
  const started = await adapter.startCharge(
    { reference: intent.transactionReference, mobileNumber: number, amountMinor: intent.amountMinor, currency: intent.currency },
    now,
  );
  if (!started.accepted) throw new CheckoutRefusal('business_rule', started.message, 'wallet');
  const wallet: WalletSession = { provider, stage: 'otp', providerReference: started.providerReference, otpAttempts: 0 };
  let result: PaymentIntent | undefined;
  try {
    result = await changePending(paymentIntentId, now, 'wallet', (current) => {
      if (walletChargeStarted(assertPayable(current, 'wallet'))) throw chargeStartedRefusal('wallet'); // another tab was faster
      return { details: { wallet, walletProvider: adapter.name, walletNumberLast4: number.slice(-4) } };
    });
  } finally {
    // Not recorded (refused, expired or ended meanwhile): nobody would credit this charge.
    if (!result || !sameCharge(result, wallet)) await abandonCharge(intent, wallet, false);
  }
  return result;
}

/**
 * Wallet payment, step 2: the OTP. Right: the customer is asked to approve the charge on the
 * handset, and the session is due a few seconds later, when the sweep asks the provider for its
 * answer (sandbox: 0000 approves, 1111 declines, 4444 never answers). Wrong five times: Failed.
 */
export async function confirmWalletOtp(paymentIntentId: string, otp: string, now = new Date()): Promise<PaymentIntent> {
  const intent = await getIntent(paymentIntentId);
  if (intent?.intentType === 'checkout' && intent.status === 'Pending') await assertMerchantAcceptsPayments(intent.merchantId, 'otp');
  const result = await changePending(paymentIntentId, now, 'otp', (current) => {
    const session = assertPayable(current, 'otp').wallet;
    const adapter = session && walletAdapter(current.mode, session.provider);
    if (!session || session.stage !== 'otp' || !adapter)
      throw new CheckoutRefusal('business_rule', 'Enter your wallet number first.', 'wallet');
    if (!(adapter.otpMatches?.(otp) ?? false)) {
      const attempts = session.otpAttempts + 1;
      if (attempts >= maxOtpAttempts) return { status: { to: 'Failed', reason: 'otp_failed' } };
      return { details: { wallet: { ...session, otpAttempts: attempts } } };
    }
    return {
      details: { wallet: { ...session, stage: 'approval', approvalRequestedAt: now.toISOString() } },
      dueAt: firstInquiryAt(adapter, now).toISOString(),
    };
  });
  const session = checkoutDetails(result).wallet;
  if (result.status === 'Failed' && result.reason === 'otp_failed' && session) await abandonCharge(result, session, false);
  if (result.status === 'Pending' && session?.stage === 'otp') {
    const left = maxOtpAttempts - session.otpAttempts;
    throw new CheckoutRefusal('invalid', `That code is not right. ${left} attempt${left === 1 ? '' : 's'} left.`, 'otp', {
      otp: 'Enter the 6-digit code.',
    });
  }
  return result;
}

/**
 * The customer cancels. Refused while a wallet charge awaits approval on the handset (only the
 * provider's answer ends it); a charge started in the OTP stage is withdrawn first.
 */
export async function cancelCheckout(paymentIntentId: string, now = new Date()): Promise<PaymentIntent> {
  const intent = await getIntent(paymentIntentId);
  if (!intent || intent.intentType !== 'checkout') throw notFound();
  const started = intent.status === 'Pending' && !isExpired(intent, now) ? (checkoutDetails(intent).wallet ?? undefined) : undefined;
  if (started?.stage === 'approval') throw awaitingApprovalRefusal('page');
  if (started) {
    try {
      await abandonCharge(intent, started, true);
    } catch {
      throw tryAgainRefusal();
    }
  }
  return customerOutcome(paymentIntentId, now, 'page', (current) => {
    const details = checkoutDetails(current);
    if (awaitingApproval(details)) throw awaitingApprovalRefusal('page');
    if (details.wallet && (!started || !sameCharge(current, started))) throw changedRefusal(); // a charge was started meanwhile
    return { to: 'Cancelled', reason: 'customer_cancelled' };
  });
}

/**
 * The due handler of checkouts (shared/services/due.ts): resolveCheckout. While the handset has not
 * answered, the provider is asked again every 15 seconds until approvalDeadline().
 */
export async function checkoutDue(listed: PaymentIntent, now: Date): Promise<void> {
  // The due index is eventually consistent: decide on the intent as it is now.
  const intent = await getIntent(listed.paymentIntentId);
  if (!intent || intent.intentType !== 'checkout' || intent.status !== 'Pending') return;
  const { result } = await resolveCheckout(intent, now);
  const after = result.intent;
  if (result.changed || !after || after.status !== 'Pending' || isHeld(after)) return; // a held approval leaves the due index
  const wallet = checkoutDetails(after).wallet;
  const soon = now.getTime() + approvalRecheckMs;
  const deadline = wallet?.stage === 'approval' ? approvalDeadline(after, wallet) : Date.parse(after.expiresAt!);
  // Past the deadline (a withdrawal the provider did not confirm): try again soon, not at every sweep.
  const next = deadline <= now.getTime() ? soon : wallet?.stage === 'approval' ? Math.min(soon, deadline) : deadline;
  await rescheduleDue(after, new Date(Math.max(next, now.getTime() + 1_000)).toISOString());
}
