import { randomBytes, randomUUID } from 'node:crypto';
import { again, retry, retryPolicies } from '#shared/retry.ts';
import { validateCard, type CardInput } from '#shared/domain/cards.ts';
import {
  approvalDeadline,
  attemptReference,
  awaitingApproval,
  cardAuthStarted,
  checkoutDetails,
  isExpired,
  linkUseReleaseAt,
  maxOtpAttempts,
  normaliseWalletNumber,
  offeredMethods,
  walletChargeStarted,
  type CardAuthSession,
  type CheckoutDetails,
  type WalletSession,
} from '#shared/domain/checkout.ts';
import { BusinessRuleError, DomainError } from '#shared/domain/errors.ts';
import type { Mode } from '#shared/domain/credentials.ts';
import { isTerminal, requestedFields, type CardSummary, type OrderRef, type PaymentIntent } from '#shared/domain/intent.ts';
import { merchantMaySubmit, type Fee } from '#shared/domain/merchant.ts';
import type { Currency } from '#shared/domain/money.ts';
import type { WalletProviderId } from '#shared/domain/providers.ts';
import { logger } from '#shared/logger.ts';
import { emitMetric, metricNames } from '#shared/metrics.ts';
import { firstInquiryAt, inquireCharge, requestedCharge, walletAdapter, type SettledStatus } from '#shared/providers/wallet.ts';
import { cardNetwork, liveCardProvider, type CardConfirmation, type CardReturn } from '#shared/providers/cards.ts';
import { transact, TransactionFailed } from '#shared/store/client.ts';
import { getMerchantCached } from '#shared/store/merchants.ts';
import { createIntentWrites, getIntent, sameStatusWrites } from '#shared/store/intents.ts';
import { getLink } from '#shared/store/payment-links.ts';
import { limitReachedMessage } from '#shared/domain/payment-link.ts';
import type { FinalChange } from '#shared/store/request.ts';
import { holdApprovalIfSuspended, isHeld } from './held-approvals.ts';
import { changeIntent, intentReader, lookAgainLater, type IntentOutcome } from './transactions.ts';
import { isRefusal } from '#shared/domain/core/decision.ts';
import { answersCurrent, checkoutRefusal, decideAnswer, decideIntent, newIntent } from '#shared/domain/core/intent.ts';

/** Live checkout offers the wallet option once a live wallet provider is configured (shared/providers/live). */
export { liveWalletConfigured } from '#shared/providers/wallet.ts';

/**
 * Hosted checkout (docs/merchant-guide.md, Hosted checkout; Hosted checkout: Sandbox): creating a session, and what the
 * customer does on the page: pay by card, pay with a mobile wallet (number, OTP, approval on the
 * handset), cancel. Every change goes through changeIntent() (conditional write + outbox
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
  /** Where the customer returns after paying or cancelling, when not to callbackUrl (issue 27). */
  returnUrl?: string | null;
  /** A checkout created from a payment link (shared/services/payment-links.ts). */
  paymentLinkId?: string;
  paymentMethod: WalletProviderId | null;
  metadataJson: string | null;
  feeRate: Fee;
  traceId: string;
}

export function newCheckout(input: NewCheckout, now = new Date()): PaymentIntent {
  const details: CheckoutDetails = {
    paymentMethod: input.paymentMethod,
    feeRate: input.feeRate,
    ...(input.returnUrl ? { returnUrl: input.returnUrl } : {}),
    // A link's session holds none of the link's uses until a payment attempt starts (holdLinkUse).
    ...(input.paymentLinkId ? { paymentLinkId: input.paymentLinkId, linkUseHeld: false } : {}),
  };
  // The money core's rules of a new checkout: its minimum, its fee at creation, its session's lifetime.
  const refused = checkoutRefusal(input.amountMinor, input.currency);
  if (refused) throw new BusinessRuleError(refused.message, 'amount_below_minimum');
  return newIntent(
    {
      ...requestedFields(input),
      paymentIntentId: randomUUID(),
      merchantId: input.merchantId,
      mode: input.mode,
      intentType: 'checkout',
      amountMinor: input.amountMinor,
      currency: input.currency,
      feeRate: input.feeRate,
      traceId: input.traceId,
      transactionReference: `chk_${randomBytes(12).toString('hex')}`,
      details: details as unknown as Record<string, unknown>,
    },
    now,
  );
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
export function saveCheckout(intent: PaymentIntent): FinalChange<ReturnType<typeof checkoutCreated>> {
  const { orderRef } = intent.orderRef;
  return {
    writes: createIntentWrites(intent, { dueAt: intent.expiresAt! }),
    response: checkoutCreated(intent),
    refused: (failed) =>
      failed.on('orderRef')
        ? new BusinessRuleError(`orderRef ${orderRef} was already used for another transaction.`, 'duplicate_order_ref')
        : undefined,
  };
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
const notFound = () => new CheckoutRefusal('not_found', 'This payment link is not valid.');

/** What a customer action or an answer about an attempt decides: a status change, or the session payable again. */
type Outcome = IntentOutcome;
type OutcomeResult = Awaited<ReturnType<typeof changeIntent>>;

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
/** What the hosted page tells a customer of a merchant that takes no payments (suspended). */
export const notAcceptingPaymentsMessage =
  'This merchant is not accepting payments at the moment. No money was taken; contact the merchant.';
const suspendedRefusal = (form: CheckoutRefusal['form']) => new CheckoutRefusal('business_rule', notAcceptingPaymentsMessage, form);

/**
 * A suspended merchant's hosted pages show no payment form and take no payment
 * (docs/security-and-limits.md), from the process's cached profile: a suspension made elsewhere
 * applies within MERCHANT_CACHE_MS (docs/scaling.md).
 */
export async function merchantAcceptsPayments(merchantId: string): Promise<boolean> {
  return merchantMaySubmit(await getMerchantCached(merchantId));
}

async function assertMerchantAcceptsPayments(merchantId: string, form: CheckoutRefusal['form']): Promise<void> {
  if (!(await merchantAcceptsPayments(merchantId))) throw suspendedRefusal(form);
}

const cardAuthRefusal = (form: CheckoutRefusal['form']) =>
  new CheckoutRefusal(
    'business_rule',
    'A card payment was started for this order: finish the verification with your bank, ' +
      'or cancel this payment and start again from the merchant’s site.',
    form,
  );
const cardConfirmingRefusal = (form: CheckoutRefusal['form']) =>
  new CheckoutRefusal('business_rule', 'Your card payment is being confirmed with your bank. This page updates by itself.', form);
const changedRefusal = () => new CheckoutRefusal('business_rule', 'The payment changed meanwhile. Check the page and try again.', 'page');
const tryAgainRefusal = () =>
  new CheckoutRefusal('business_rule', 'The wallet provider could not be reached. Try again in a moment.', 'page');
/** How often the sweep asks the provider about a charge awaiting approval. */
const approvalRecheckMs = 15_000;

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
async function resolveCheckout(intent: PaymentIntent, now: Date): Promise<{ result: OutcomeResult; answer?: SettledStatus }> {
  if (isHeld(intent)) return { result: { changed: false, intent } }; // the operator decides; no provider is asked
  const cardAuth = checkoutDetails(intent).cardAuth;
  if (intent.status === 'Pending' && cardAuth?.stage === 'confirming') return { result: await resolveCardPayment(intent, cardAuth, now) };
  const wallet = checkoutDetails(intent).wallet ?? undefined;
  const adapter = wallet ? walletAdapter(intent.mode, wallet.provider) : undefined;
  let answer: SettledStatus | undefined;
  let keepOpen = false; // no answer, or a withdrawal the provider did not confirm: do not expire yet
  if (intent.status === 'Pending' && wallet?.stage === 'approval' && adapter) {
    // "No such charge" about a charge whose request went unanswered waits until approvalDeadline() (inquireCharge).
    const ask = () => inquireCharge(adapter, wallet, now);
    try {
      answer = await ask();
    } catch (error) {
      logger.warn('wallet status inquiry failed', { paymentIntentId: intent.paymentIntentId, provider: wallet.provider, error });
      keepOpen = true; // no answer: decide nothing, ask again later
    }
    if (answer?.status === 'Pending' && now.getTime() >= approvalDeadline(intent, wallet)) {
      try {
        // Approved between the inquiry and the withdrawal: the second answer completes it.
        if (await abandonCharge(intent, wallet, true)) answer = await ask();
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
  // The money core decides what the answer (or none) does, about this very charge only (decideAnswer).
  const answered = { type: 'charge-answered', reference: wallet?.providerReference, stage: wallet?.stage, answer, keepOpen } as const;
  if (answer?.status === 'Approved' && wallet?.stage === 'approval') {
    // A suspended merchant is not credited: the approval is held for the operator (held-approvals.ts).
    const approval = { source: 'inquiry' as const, providerReference: wallet.providerReference };
    const held = await holdApprovalIfSuspended(intent.paymentIntentId, approval, now, (current) => answersCurrent(current, answered));
    if (held) return { result: { changed: false, intent: held }, answer };
  }
  const result = await changeIntent(intent.paymentIntentId, (current) => decideAnswer(current, answered, now));
  return answer ? { result, answer } : { result };
}

/** The session as the page shows it; an overdue Pending session is resolved first (resolveCheckout). */
export async function openCheckout(paymentIntentId: string, now = new Date()): Promise<PaymentIntent | undefined> {
  const intent = await getIntent(paymentIntentId);
  if (intent?.intentType !== 'checkout') return undefined;
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
  decide: (current: PaymentIntent) => Outcome | null,
  known?: PaymentIntent,
): Promise<PaymentIntent> {
  const seen: { overdue?: PaymentIntent } = {};
  const result = await changeIntent(
    paymentIntentId,
    (current) => {
      if (current.intentType !== 'checkout') throw notFound();
      if (isExpired(current, now)) {
        seen.overdue = current;
        return null;
      }
      delete seen.overdue;
      return decide(current);
    },
    undefined,
    known,
  );
  if (result.intent?.intentType !== 'checkout') throw notFound();
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
  if (intent?.intentType === 'checkout' && intent.mode === 'live') return startLiveCardPayment(intent, card, input.cvc.trim(), now);
  try {
    return await customerOutcome(
      paymentIntentId,
      now,
      'card',
      (current) => {
        const details = assertPayable(current, 'card');
        if (walletChargeStarted(details)) throw chargeStartedRefusal('card');
        if (!offeredMethods(details).card)
          throw new CheckoutRefusal('business_rule', 'Card payments are not offered for this payment.', 'card');
        const network = cardNetwork(current.mode);
        if (!network) throw liveUnavailable('card');
        const outcome = network(card.digits);
        if (outcome.result === 'approved') {
          // The sandbox network answers at once: a payment link's use is taken with the payment, while one is left.
          return decideIntent(current, { type: 'attempt-paid', source: { card: card.summary }, takesLinkUse: true }, now);
        }
        // Recorded on the session (docs/merchant-guide.md, Hosted checkout: Declined and failed attempts): the money core
        // decides (attempt-failed): Failed when it was the last or ends after expiresAt, else payable again (no event).
        return decideIntent(current, { type: 'attempt-failed', source: { card: card.summary }, failure: { reason: outcome.reason } }, now);
      },
      intent,
    );
  } catch (error) {
    if (error instanceof TransactionFailed && error.on('linkUse')) throw await linkLimitRefusal(intent, 'card');
    throw error;
  }
}

/**
 * Applies a change that keeps a Pending session's status (the core's `next`, attemptChange: no event), retrying lost
 * races. An overdue session is resolved instead (resolveCheckout).
 */
async function changePending(
  paymentIntentId: string,
  now: Date,
  form: 'card' | 'wallet' | 'otp' | 'page',
  decide: (current: PaymentIntent) => { next: PaymentIntent; dueAt?: string } | { status: Outcome | null } | null,
  known?: PaymentIntent,
): Promise<PaymentIntent> {
  const read = intentReader(paymentIntentId, known);
  return retry<PaymentIntent>(
    retryPolicies.versionRace,
    async () => {
      const current = await read();
      if (current?.intentType !== 'checkout') throw notFound();
      if (isTerminal(current.status)) return current;
      if (isExpired(current, now)) return resolveOverdue(current, now, form);
      const step = decide(current);
      if (!step) return current; // nothing to change
      if ('status' in step) {
        const result = await changeIntent(
          paymentIntentId,
          (latest) => (latest.version === current.version ? step.status : null),
          undefined,
          current,
        );
        if (!result.intent) throw notFound();
        if (result.changed || isTerminal(result.intent.status)) return result.intent;
        return again; // changed meanwhile: decide again on the new version
      }
      // A checkout is due at its expiry, or earlier while the handset's answer is awaited.
      const dueAt = step.dueAt ?? restingDueAt(step.next);
      try {
        await transact(sameStatusWrites(current, step.next, dueAt));
        return step.next;
      } catch (error) {
        if (error instanceof TransactionFailed && error.failedAt(0)) return again;
        if (error instanceof TransactionFailed && error.on('linkUse')) throw await linkLimitRefusal(current, form);
        throw error;
      }
    },
    () => new Error(`could not update checkout ${paymentIntentId}: too much contention`),
  );
}

// ---------------------------------------------------------------------------------------------
// Payment links: a use of the link is held only while a payment attempt is under way (docs/payment-links.md, Payment limits)

/**
 * When a session with nothing to ask a provider about is next due: at its expiry, or sooner when an attempt that waits
 * for the customer holds a payment link's use (linkUseReleaseAt: the sweep gives it back then).
 */
function restingDueAt(current: PaymentIntent): string {
  const release = linkUseReleaseAt(checkoutDetails(current));
  return release !== undefined && release < Date.parse(current.expiresAt!) ? new Date(release).toISOString() : current.expiresAt!;
}

/**
 * A payment attempt's progress on a Pending session as the money core decides it (shared/domain/core/intent.ts,
 * `attempt`): the session after it (`next`) with `details`, its payment link's use taken or given back with it
 * (`linkUse`), due at `dueAt` (else at rest: restingDueAt); null when that changes nothing.
 */
function attemptChange(current: PaymentIntent, details: Record<string, unknown>, now: Date, linkUse?: boolean, dueAt?: string) {
  const decision = decideIntent(current, { type: 'attempt', details, linkUse }, now);
  return isRefusal(decision) ? null : { next: decision.state, dueAt };
}

/** The customer's refusal when a payment link's session finds no use of the link left: nothing was started, no money moved. */
async function linkLimitRefusal(intent: PaymentIntent | undefined, form: CheckoutRefusal['form']): Promise<CheckoutRefusal> {
  const linkId = intent?.intentType === 'checkout' ? checkoutDetails(intent).paymentLinkId : undefined;
  return new CheckoutRefusal('business_rule', limitReachedMessage(linkId ? await getLink(linkId) : undefined), form);
}

/**
 * A payment attempt on a payment link's session is about to start (a card submitted, a wallet
 * charge requested): the session takes one of the link's uses first, in the transaction that marks
 * it as holding one (shared/store/payment-links.ts), so no provider is asked to move money once the
 * link's limit is reached; refused with the customer's message then. `check` repeats the attempt's
 * own refusals on the session as read. Returns the session (not Pending: it ended meanwhile).
 */
async function holdLinkUse(
  intent: PaymentIntent,
  now: Date,
  form: 'card' | 'wallet',
  check: (current: PaymentIntent) => void,
): Promise<PaymentIntent> {
  if (!attemptChange(intent, {}, now, true)) return intent; // no use to take: not a link's session, or one held already
  return changePending(
    intent.paymentIntentId,
    now,
    form,
    (current) => {
      check(current);
      return attemptChange(current, {}, now, true);
    },
    intent,
  );
}

/**
 * The attempt holdLinkUse() made room for did not start (the provider refused it; nothing was
 * recorded): the link's use goes back, unless another attempt on the session holds it now. When
 * this fails, the session still gives it back when it ends.
 */
async function releaseUnstartedLinkUse(paymentIntentId: string, now: Date): Promise<void> {
  try {
    await changePending(paymentIntentId, now, 'page', (current) => {
      const details = checkoutDetails(current);
      if (walletChargeStarted(details) || cardAuthStarted(details)) return null;
      return attemptChange(current, {}, now, false);
    });
  } catch (error) {
    logger.warn('payment link use not given back now; the session gives it back when it ends', { paymentIntentId, error });
  }
}

/**
 * The offered wallet providers whose charge needs the last six digits of the customer's CNIC
 * (live JazzCash) that the merchant did not give as customerRef.cnic: the hosted page asks for them.
 */
export function cnicAskedFor(intent: PaymentIntent): WalletProviderId[] {
  if (intent.customerRef?.cnic) return [];
  return offeredMethods(checkoutDetails(intent)).walletProviders.filter((p) => walletAdapter(intent.mode, p)?.asksForCnic);
}

/**
 * Wallet payment, step 1: the customer's provider and number. The charge is started with the
 * provider, which prompts the customer (test mode: the OTP is always 123456). A refusal at request
 * time (sandbox numbers ending 2222: balance too low, 3333: provider unavailable) changes nothing.
 * One wallet charge per session: once one was started, another (or a card payment) is refused.
 */
export async function startWalletPayment(
  paymentIntentId: string,
  input: { provider: string | undefined; mobileNumber: string; cnicLast6?: string },
  now = new Date(),
): Promise<PaymentIntent> {
  const number = normaliseWalletNumber(input.mobileNumber);
  const intent = await getIntent(paymentIntentId);
  if (intent?.intentType !== 'checkout') throw notFound();
  if (isTerminal(intent.status)) return intent;
  if (isExpired(intent, now)) return resolveOverdue(intent, now, 'wallet');
  await assertMerchantAcceptsPayments(intent.merchantId, 'wallet');
  const details = assertPayable(intent, 'wallet');
  if (walletChargeStarted(details)) throw chargeStartedRefusal('wallet');
  if (cardAuthStarted(details)) throw cardAuthRefusal('wallet');
  const offered = offeredMethods(details).walletProviders;
  const chosen = Number(input.provider ?? (offered.length === 1 ? offered[0] : NaN));
  const provider = offered.find((p) => p === chosen);
  const adapter = provider && walletAdapter(intent.mode, provider);
  // Live JazzCash takes the CNIC's last six digits: the merchant's customerRef.cnic, else the customer types them.
  const typed = (input.cnicLast6 ?? '').replace(/\s/g, '');
  const cnicLast6 = intent.customerRef?.cnic?.slice(-6) || (/^\d{6}$/.test(typed) ? typed : undefined);
  const fields: Record<string, string> = {};
  if (!provider) fields.provider = 'Choose your wallet.';
  if (!number)
    fields.mobileNumber = input.mobileNumber.trim()
      ? 'That is not a mobile wallet number: enter the 11 digits starting 03, for example 0300 1234567.'
      : 'Enter your mobile wallet number, for example 0300 1234567.';
  if (adapter?.asksForCnic && !cnicLast6) fields.cnicLast6 = 'Enter the last 6 digits of your CNIC.';
  if (!provider || !number || Object.keys(fields).length > 0)
    throw new CheckoutRefusal('invalid', 'Check the wallet details.', 'wallet', fields);
  if (!adapter) throw liveUnavailable('wallet');
  // ONE conditional write BEFORE the provider is called: the attempt is recorded under the reference the provider will
  // know it by (awaiting the approval as an unanswered charge), so a second wallet charge or a card payment on the
  // session is refused from now on, and a request that never records its answer is settled by the sweep's inquiry.
  let requested: WalletSession | undefined;
  const held = await changePending(paymentIntentId, now, 'wallet', (current) => {
    const latest = assertPayable(current, 'wallet');
    if (walletChargeStarted(latest)) throw chargeStartedRefusal('wallet'); // another tab was faster
    if (cardAuthStarted(latest)) throw cardAuthRefusal('wallet');
    const reference = attemptReference(current);
    // Asked about once the request can no longer be running (requestedCharge: the protocol deposits share).
    const { charge, dueAt } = requestedCharge(adapter, reference, { mobileNumber: number }, now);
    requested = { provider, stage: 'approval', otpAttempts: 0, approvalRequestedAt: now.toISOString(), reference, ...charge };
    const wallet = { wallet: requested, walletProvider: adapter.name, walletNumberLast4: number.slice(-4) };
    return attemptChange(current, wallet, now, true, dueAt);
  });
  if (held.status !== 'Pending' || !requested || !sameCharge(held, requested)) return held;
  const attempt = requested;
  const charge = {
    reference: attempt.reference!,
    mobileNumber: number,
    amountMinor: intent.amountMinor,
    currency: intent.currency,
  };
  const ours = (current: PaymentIntent) => {
    const w = checkoutDetails(current).wallet;
    return w?.requesting === true && w.reference === attempt.reference && w.provider === attempt.provider;
  };
  // A charge that throws may have reached the handset: the recorded attempt stays, settled by the sweep's inquiry.
  const started = await adapter.startCharge({ ...charge, ...(adapter.asksForCnic && cnicLast6 ? { cnicLast6 } : {}) }, now);
  if (!started.accepted) {
    // A definite refusal: nothing was charged, the attempt ends and the session is payable again.
    await changePending(paymentIntentId, now, 'page', (current) =>
      ours(current) ? attemptChange(current, { wallet: null }, now, false) : null,
    ).catch((error: unknown) => logger.warn('refused wallet attempt not cleared; the sweep ends it', { paymentIntentId, error }));
    throw new CheckoutRefusal('business_rule', started.message, 'wallet');
  }
  // A provider that sends no one-time code (every live one: the customer approves with the MPIN on
  // the handset) skips the code step: the charge awaits the approval at once.
  const wallet: WalletSession = adapter.otpMatches
    ? {
        provider,
        stage: 'otp',
        providerReference: started.providerReference,
        otpAttempts: 0,
        reference: charge.reference,
        startedAt: now.toISOString(),
      }
    : {
        provider,
        stage: 'approval',
        providerReference: started.providerReference,
        otpAttempts: 0,
        approvalRequestedAt: now.toISOString(),
        reference: charge.reference,
        ...(started.unanswered ? { chargeUnanswered: true } : {}),
      };
  let result: PaymentIntent | undefined;
  try {
    // Settled meanwhile (the sweep's inquiry or a provider's notification about this very charge): left as it is.
    const dueAt = wallet.stage === 'approval' ? firstInquiryAt(adapter, now).toISOString() : undefined;
    result = await changePending(paymentIntentId, now, 'wallet', (current) =>
      ours(current) ? attemptChange(current, { wallet }, now, undefined, dueAt) : null,
    );
  } finally {
    // Not recorded as this charge (the session ended another way): nobody would credit it.
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
  let failedCharge: WalletSession | undefined;
  const result = await changePending(paymentIntentId, now, 'otp', (current) => {
    const session = assertPayable(current, 'otp').wallet;
    const adapter = session && walletAdapter(current.mode, session.provider);
    if (session?.stage !== 'otp' || !adapter) throw new CheckoutRefusal('business_rule', 'Enter your wallet number first.', 'wallet');
    if (!(adapter.otpMatches?.(otp) ?? false)) {
      const attempts = session.otpAttempts + 1;
      failedCharge = attempts >= maxOtpAttempts ? session : undefined;
      const failure = { reason: 'otp_failed' as const };
      if (failedCharge)
        return { status: decideIntent(current, { type: 'attempt-failed', source: { walletProvider: session.provider }, failure }, now) };
      return attemptChange(current, { wallet: { ...session, otpAttempts: attempts } }, now);
    }
    failedCharge = undefined;
    const approval = { wallet: { ...session, stage: 'approval', approvalRequestedAt: now.toISOString() } };
    return attemptChange(current, approval, now, true, firstInquiryAt(adapter, now).toISOString());
  });
  const session = checkoutDetails(result).wallet;
  // The attempt failed (the session moved on from this charge): nobody will credit it.
  if (failedCharge && !sameCharge(result, failedCharge)) await abandonCharge(result, failedCharge, false);
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
  if (intent?.intentType !== 'checkout') throw notFound();
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
    if (details.cardAuth?.stage === 'confirming') throw cardConfirmingRefusal('page');
    if (details.wallet && (!started || !sameCharge(current, started))) throw changedRefusal(); // a charge was started meanwhile
    return decideIntent(current, { type: 'cancel', reason: 'customer_cancelled' }, now);
  });
}

/**
 * The due handler of checkouts (shared/services/due.ts): resolveCheckout. While the handset has not
 * answered, the provider is asked again every 15 seconds until approvalDeadline().
 */
export async function checkoutDue(listed: PaymentIntent, now: Date): Promise<void> {
  // The due index is eventually consistent: decide on the intent as it is now.
  const intent = await getIntent(listed.paymentIntentId);
  if (intent?.intentType !== 'checkout' || intent.status !== 'Pending') return;
  const { result } = await resolveCheckout(intent, now);
  const after = result.intent;
  if (result.changed || !after || after.status !== 'Pending' || isHeld(after)) return; // a held approval leaves the due index
  const wallet = checkoutDetails(after).wallet;
  const soon = now.getTime() + approvalRecheckMs;
  const cardAuth = checkoutDetails(after).cardAuth;
  if (cardAuth?.stage === 'confirming') {
    await rescheduleCardInquiry(after, cardAuth, now);
    return;
  }
  const deadline = wallet?.stage === 'approval' ? approvalDeadline(after, wallet) : Date.parse(restingDueAt(after));
  // Past the deadline (a withdrawal the provider did not confirm): try again soon, not at every sweep.
  const next = deadline <= now.getTime() ? soon : wallet?.stage === 'approval' ? Math.min(soon, deadline) : deadline;
  await lookAgainLater(after, new Date(Math.max(next, now.getTime() + 1_000)).toISOString(), now);
}

/** How long a card payment's unknown outcome is asked about before it is left for the operator. */
export const cardConfirmCapMs = 24 * 3_600_000;
/** The longest wait between two inquiries about a card payment's unknown outcome (before the cap). */
const cardInquiryMaxGapMs = 3_600_000;

/**
 * The next inquiry about a card payment whose outcome is unknown: backing off (the wait grows with
 * the time already waited, from 15 s up to an hour) for cardConfirmCapMs; then it is left for the
 * operator: the metric CardOutcomeUnresolved (alarm, docs/operator-runbook.md) and an ERROR log,
 * once a day while the provider still has no answer. It stays Pending and is never authorised again.
 */
async function rescheduleCardInquiry(intent: PaymentIntent, cardAuth: CardAuthSession, now: Date): Promise<void> {
  const waited = now.getTime() - Date.parse(cardAuth.startedAt);
  if (waited < cardConfirmCapMs) {
    const gap = Math.min(Math.max(approvalRecheckMs, waited), cardInquiryMaxGapMs);
    await lookAgainLater(intent, new Date(now.getTime() + gap).toISOString(), now);
    return;
  }
  emitMetric(metricNames.cardOutcomeUnresolved, 1);
  logger.error('card payment outcome unknown past the cap: left for the operator (runbook: cardoutcomeunresolved)', {
    paymentIntentId: intent.paymentIntentId,
    merchantId: intent.merchantId,
    providerReference: cardAuth.providerReference,
    amountMinor: intent.amountMinor,
    currency: intent.currency,
    confirmingSince: cardAuth.startedAt,
  });
  const dueAt = new Date(now.getTime() + cardConfirmCapMs).toISOString();
  const alerted = { ...cardAuth, operatorAlertedAt: cardAuth.operatorAlertedAt ?? now.toISOString() };
  await lookAgainLater(intent, dueAt, now, { cardAuth: alerted });
}

// ---------------------------------------------------------------------------------------------
// Live card payments with 3-D Secure (docs/providers/jazzcash.md, Cards with 3-D Secure)

/** Where the provider sends the customer back after the challenge: POST /pay/{id}/card-return. */
export const cardReturnUrl = (paymentIntentId: string) => `${checkoutUrl(paymentIntentId)}/card-return`;

/**
 * A live card payment, step 1: the provider checks the card's 3-D Secure enrollment and answers
 * the issuer's challenge; the session keeps the challenge and the card summary (the number and
 * CVC go to the provider in this request only) and the page sends the customer to the challenge.
 * A refusal changes nothing. One card payment per session, and none once a wallet charge started.
 */
async function startLiveCardPayment(
  intent: PaymentIntent,
  card: { digits: string; summary: CardSummary },
  cvc: string,
  now: Date,
): Promise<PaymentIntent> {
  if (isTerminal(intent.status)) return intent;
  if (isExpired(intent, now)) return resolveOverdue(intent, now, 'card');
  const refuseStarted = (details: CheckoutDetails) => {
    if (walletChargeStarted(details)) throw chargeStartedRefusal('card');
    if (cardAuthStarted(details)) throw cardAuthRefusal('card');
  };
  const details = assertPayable(intent, 'card');
  refuseStarted(details);
  if (!offeredMethods(details).card) throw new CheckoutRefusal('business_rule', 'Card payments are not offered for this payment.', 'card');
  const provider = liveCardProvider();
  if (!provider) throw liveUnavailable('card');
  const held = await holdLinkUse(intent, now, 'card', (current) => refuseStarted(assertPayable(current, 'card')));
  if (held.status !== 'Pending') return held;
  const reference = attemptReference(intent);
  /** Records the card attempt on the session (refused if another attempt started meanwhile); `dueAt`: recheck then. */
  const recordCardAuth = (cardAuth: CardAuthSession, dueAt?: string) =>
    changePending(
      intent.paymentIntentId,
      now,
      'card',
      (current) => {
        refuseStarted(assertPayable(current, 'card'));
        return attemptChange(current, { cardAuth }, now, true, dueAt);
      },
      held,
    );
  let started: Awaited<ReturnType<typeof provider.startAuthentication>>;
  try {
    started = await provider.startAuthentication(
      {
        reference,
        card: { digits: card.digits, expMonth: card.summary.expMonth, expYear: card.summary.expYear, cvc },
        amountMinor: intent.amountMinor,
        currency: intent.currency,
        returnUrl: cardReturnUrl(intent.paymentIntentId),
      },
      now,
    );
  } catch (error) {
    await releaseUnstartedLinkUse(intent.paymentIntentId, now); // nothing is authorised before the challenge
    throw error;
  }
  if (!started.accepted) {
    await releaseUnstartedLinkUse(intent.paymentIntentId, now);
    throw new CheckoutRefusal('business_rule', started.message, 'card');
  }
  if ('frictionless' in started) {
    // Authenticated without a challenge: recorded as confirming first (one authorisation per session), then confirmed.
    const { providerReference, authenticationId } = started.frictionless;
    const cardAuth: CardAuthSession = {
      stage: 'confirming',
      providerReference,
      authenticationId,
      url: '',
      fields: {},
      card: card.summary,
      startedAt: now.toISOString(),
      reference,
    };
    const claimed = await recordCardAuth(cardAuth, new Date(now.getTime() + approvalRecheckMs).toISOString());
    return confirmCard(claimed, cardAuth, { providerReference, authenticationId, authenticationResult: '' }, now);
  }
  const { challenge } = started;
  const cardAuth: CardAuthSession = {
    stage: 'challenge',
    providerReference: challenge.providerReference,
    authenticationId: challenge.authenticationId,
    url: challenge.url,
    fields: challenge.fields,
    card: card.summary,
    startedAt: now.toISOString(),
    reference,
  };
  // Nothing is authorised before the customer's return: a challenge not recorded here costs nothing.
  return recordCardAuth(cardAuth);
}

/**
 * The provider's confirmation of a card payment claimed as `confirming` (the verified return, or a
 * frictionless authentication): authorise and capture; its answer decides, no answer leaves the
 * payment to the sweep's inquiry.
 */
async function confirmCard(claimed: PaymentIntent, auth: CardAuthSession, authenticated: CardReturn, now: Date): Promise<PaymentIntent> {
  const provider = liveCardProvider();
  if (!provider || claimed.status !== 'Pending' || checkoutDetails(claimed).cardAuth?.stage !== 'confirming') return claimed;
  const answer = await provider.confirm({ ...authenticated, amountMinor: claimed.amountMinor, currency: claimed.currency }, now);
  if (answer.status === 'Unknown') {
    logger.warn('card payment outcome unknown; the sweep asks the inquiry', { paymentIntentId: claimed.paymentIntentId });
    return claimed;
  }
  // Suspended since the page's (cached) check: the captured card is held for the operator, not credited.
  return (await applyCardAnswer(claimed, auth, answer, 'confirm', now)).intent ?? claimed;
}

/**
 * A card provider's answer (its confirmation's or its inquiry's) about the card payment `auth`, decided by the money core
 * (decideAnswer: about this very payment only). A card captured for a merchant that may not be credited now (suspended)
 * is held for the operator like a wallet approval instead (held-approvals.ts).
 */
async function applyCardAnswer(
  intent: PaymentIntent,
  auth: CardAuthSession,
  answer: CardConfirmation,
  source: 'confirm' | 'inquiry',
  now: Date,
): Promise<OutcomeResult> {
  const answered = { type: 'card-answered', reference: auth.providerReference, answer } as const;
  const approval = { source, providerReference: auth.providerReference };
  const held =
    answer.status === 'Approved'
      ? await holdApprovalIfSuspended(intent.paymentIntentId, approval, now, (current) => answersCurrent(current, answered), intent)
      : undefined;
  if (held) return { changed: false, intent: held };
  return changeIntent(intent.paymentIntentId, (current) => decideAnswer(current, answered, now), undefined, intent);
}

/**
 * A live card payment, step 2: the customer's browser comes back from the challenge with the
 * provider's signed fields. They are verified (signature, this session's reference and
 * authentication); the session moves to `confirming` (once: a repeated return authorises
 * nothing), and the provider confirms the authentication server to server, authorises and
 * captures. Its answer decides; no answer leaves the payment to the sweep's inquiry.
 */
export async function completeCardReturn(
  paymentIntentId: string,
  fields: Record<string, string>,
  now = new Date(),
): Promise<PaymentIntent> {
  const intent = await getIntent(paymentIntentId);
  if (intent?.intentType !== 'checkout') throw notFound();
  const auth = checkoutDetails(intent).cardAuth;
  if (intent.status !== 'Pending' || !auth) return intent;
  if (auth.stage === 'confirming') throw cardConfirmingRefusal('page');
  const provider = liveCardProvider();
  const challenge = {
    providerReference: auth.providerReference,
    authenticationId: auth.authenticationId,
    url: auth.url,
    fields: auth.fields,
  };
  const returned = provider?.verifyReturn(fields, challenge);
  if (
    !provider ||
    !returned ||
    returned.providerReference !== auth.providerReference ||
    returned.authenticationId !== auth.authenticationId
  ) {
    logger.warn('card return refused: the signature or the references do not match', { paymentIntentId });
    throw new CheckoutRefusal('invalid', 'The answer from your bank’s verification could not be verified. No money was taken.', 'page');
  }
  // Suspended since the card was started: nothing is authorised (the page says why; the session expires as usual).
  await assertMerchantAcceptsPayments(intent.merchantId, 'page');
  const claimed = await changePending(paymentIntentId, now, 'page', (current) => {
    const latest = checkoutDetails(current).cardAuth;
    if (latest?.stage !== 'challenge' || latest.providerReference !== auth.providerReference) throw cardConfirmingRefusal('page');
    // The card challenge took the link's use when it started; taken here if not, before anything is authorised.
    const recheckAt = new Date(now.getTime() + approvalRecheckMs).toISOString();
    return attemptChange(current, { cardAuth: { ...latest, stage: 'confirming' } }, now, true, recheckAt);
  });
  return confirmCard(claimed, auth, returned, now);
}

/** The sweep's look at a card payment whose outcome is unknown: the provider's inquiry (never a new authorisation). */
async function resolveCardPayment(intent: PaymentIntent, auth: CardAuthSession, now: Date): Promise<OutcomeResult> {
  const provider = liveCardProvider();
  let answer: CardConfirmation = { status: 'Unknown' };
  try {
    if (provider)
      answer = await provider.resolve(
        { providerReference: auth.providerReference, amountMinor: intent.amountMinor, currency: intent.currency },
        now,
      );
  } catch (error) {
    logger.warn('card inquiry failed', { paymentIntentId: intent.paymentIntentId, error });
  }
  if (answer.status === 'Unknown') return { changed: false, intent };
  return applyCardAnswer(intent, auth, answer, 'inquiry', now);
}

/**
 * The name the hosted checkout page shows for a merchant ('Merchant' when it cannot be read). Here, not in
 * merchants.ts, whose webhook URL checks would bring ipaddr.js into every checkout Lambda (issue 26).
 */
export async function merchantDisplayName(merchantId: string): Promise<string> {
  return (await getMerchantCached(merchantId))?.name ?? 'Merchant';
}
