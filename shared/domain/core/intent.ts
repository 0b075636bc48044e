import {
  approvalDeadline,
  attemptReference,
  attemptsLeft,
  attemptsOf,
  checkoutDetails,
  completedMovements,
  isExpired,
  linkUseAttempt,
  linkUseReleaseAt,
  sessionLifetimeMs,
  type CheckoutAttempt,
  type CheckoutDetails,
} from '../checkout.ts';
import { defaultFees, type Fee } from '../merchant.ts';
import { feeFor, fromMinor, toMinor, type Currency } from '../money.ts';
import { heldApprovalDeclinedReason, heldApprovalOf, type CardSummary, type HeldApproval, type PaymentIntent } from '../intent.ts';
import { walletProviders, type WalletProviderId } from '../providers.ts';
import { walletDecline, type ReasonCode } from '../reasons.ts';
import { decided, draft, isRefusal, refuse, touchedAt, type Decision } from './decision.ts';
import { canTransition, isTerminal, type IntentStatus } from './machines.ts';

/**
 * Checkout intents (card payments and wallet checkouts) and wallet charges (deposits): money comes IN. A Pending
 * intent ends once: Completed credits the wallet net of its fee (external → available + platform fees); Failed,
 * Cancelled and Expired move nothing. What a transaction's change does to it is decided here and nowhere else: the
 * store's conditional write (shared/store/intents.ts transitionWrites) writes the state this returns.
 */
export interface IntentChange {
  reason?: ReasonCode | null;
  reasonDetail?: string | null;
  details?: Record<string, unknown> | undefined;
  feeMinor?: number;
}

/** The intent after a permitted move to `to` (version + 1), or undefined when the state machine forbids it. */
export function intentTransition(current: PaymentIntent, to: IntentStatus, change: IntentChange, now: Date): PaymentIntent | undefined {
  if (!canTransition(current.intentType, current.status, to)) return undefined;
  return {
    ...current,
    status: to,
    reason: change.reason === undefined ? current.reason : change.reason,
    reasonDetail: change.reason === undefined ? (current.reasonDetail ?? null) : (change.reasonDetail ?? null),
    details: { ...current.details, ...change.details },
    feeMinor: change.feeMinor ?? current.feeMinor,
    updatedAt: touchedAt(current.updatedAt, now),
    version: current.version + 1,
  };
}

/**
 * THE rule of every change that keeps an intent's status (an attempt's progress, a charge answered, a rail's acceptance,
 * "look again later"): what it learnt merged into its details, version + 1, nothing else (status, amount, fee, wallet
 * shard); no journal, no event (nothing a merchant watches changed). Refused on a final intent: nothing on it changes.
 */
export function keepingStatus(intent: PaymentIntent, details: Record<string, unknown>, now: Date): Decision<PaymentIntent> {
  if (isTerminal(intent.status)) return refuse('invalid_status', 'Final.');
  return decided({
    ...intent,
    details: { ...intent.details, ...details },
    updatedAt: touchedAt(intent.updatedAt, now),
    version: intent.version + 1,
  });
}

/** A payment's fee at its rate, never more than the amount itself (the credit net of it is never negative). */
export const paymentFee = (amountMinor: number, rate: Fee): number => Math.min(feeFor(amountMinor, rate), amountMinor);

/**
 * The fee a new payment is created with (THE rule at creation; deposit and checkout creation both ask it): a deposit's
 * is fixed when it is requested, at the merchant's deposit rate; a checkout's is 0 until an attempt pays
 * (attempt-paid decides it at the session's rate, which the session keeps).
 */
export const feeAtCreation = (intentType: 'checkout' | 'deposit', amountMinor: number, rate: Fee): number =>
  intentType === 'deposit' ? paymentFee(amountMinor, rate) : 0;

/** A checkout's amount must be greater than this, 10 in the currency's major unit: the API's, a payment link's, its page's. */
export const checkoutMinimumMinor = (currency: Currency) => toMinor(10, currency);

/** A checkout's amount it may not take (THE rule at creation, asked before anything else): not more than the minimum. */
export const checkoutRefusal = (amountMinor: number, currency: Currency) =>
  amountMinor > checkoutMinimumMinor(currency)
    ? undefined
    : refuse('amount_below_minimum', `The checkout amount must be greater than 10 ${currency}.`);

/** A deposit's amount it may not take (THE rule at creation, asked before anything else): not PKR, below its provider's minimum. */
export function depositRefusal(amountMinor: number, currency: Currency, providerId: WalletProviderId) {
  const { name, minimumDepositMinor } = walletProviders[providerId];
  if (currency !== 'PKR') return refuse('unsupported_currency', `${name} charges in PKR only.`);
  if (amountMinor < minimumDepositMinor)
    return refuse('amount_below_minimum', `The minimum deposit with ${name} is ${fromMinor(minimumDepositMinor, 'PKR')} PKR.`);
}

/** A new checkout or deposit as its request gives it: its ids and its merchant's fee rate (no randomness inside). */
export type NewIntent = Omit<
  PaymentIntent,
  'status' | 'feeMinor' | 'refundedMinor' | 'reason' | 'createdAt' | 'updatedAt' | 'expiresAt' | 'version'
> & {
  intentType: 'checkout' | 'deposit';
  feeRate: Fee;
};

/**
 * A new checkout or deposit (THE rule at creation, once its amount is not refused: checkoutRefusal, depositRefusal):
 * Pending, its fee at creation (feeAtCreation), due to end unpaid when its window has passed.
 */
export function newIntent({ feeRate, ...input }: NewIntent, now: Date): PaymentIntent {
  const at = now.toISOString();
  return {
    ...input,
    status: 'Pending',
    feeMinor: feeAtCreation(input.intentType, input.amountMinor, feeRate),
    refundedMinor: 0,
    reason: null,
    createdAt: at,
    updatedAt: at,
    // How long it waits for its payment before it ends unpaid: a checkout's session, a deposit's approval (5 minutes).
    expiresAt: new Date(now.getTime() + (input.intentType === 'checkout' ? sessionLifetimeMs : 5 * 60_000)).toISOString(),
    version: 1,
  };
}

/** Who paid: a card (through the card network) or a wallet provider. */
export type PaidThrough = { card: true } | { walletProvider: WalletProviderId } | { deposit: WalletProviderId };

export type IntentCommand =
  /** The provider says the money arrived (card captured, wallet charge approved): Completed, credited once. */
  | { type: 'complete'; through: PaidThrough; feeMinor?: number; details?: Record<string, unknown> }
  | { type: 'fail'; reason: ReasonCode; reasonDetail?: string | null; details?: Record<string, unknown> }
  /** The customer cancels, the session expires: with a failed attempt behind it, Failed with that attempt's reason. */
  | { type: 'cancel'; reason?: ReasonCode; details?: Record<string, unknown> }
  | { type: 'expire'; reason?: ReasonCode; details?: Record<string, unknown> }
  /**
   * A checkout's payment attempt paid (`source`: the card, or the session's wallet charge): recorded on the session,
   * Completed with the checkout fee of the session's rate (the default rate when it has none) and credited once.
   * `takesLinkUse`: the payment takes its link's use as it is made (a sandbox card; refused when none is left).
   */
  | { type: 'attempt-paid'; source: AttemptSource; takesLinkUse?: boolean }
  /**
   * A checkout's payment attempt declined or failed (recorded on the session): the last attempt, or one that ends
   * after expiresAt, fails the transaction; else the session stays Pending and payable again, its wallet and card
   * forgotten and its payment link's use given back until the next attempt.
   */
  | { type: 'attempt-failed'; source: AttemptSource; failure: { reason: ReasonCode; reasonDetail?: string | null } }
  /**
   * A payment attempt's progress on a Pending checkout (a wallet charge requested, a card challenge started, an OTP
   * entered): its `details`, and, when `linkUse` says so, its payment link's use taken (true: as an attempt starts,
   * before any provider is asked) or given back (false: an attempt that did not start, or waits past linkUseHoldMs).
   * The status stays. Refused on a final session, and ('unchanged') when it changes nothing.
   */
  | { type: 'attempt'; details?: Record<string, unknown>; linkUse?: boolean | undefined }
  /**
   * Nothing decided yet: the intent keeps its status and is looked at again later, noting `details` when there is
   * something to remember (a card payment left for the operator: its cardAuth's operatorAlertedAt).
   */
  | { type: 'note'; details?: Record<string, unknown> };

type StatusCommand = Exclude<IntentCommand, { type: 'attempt-paid' | 'attempt-failed' | 'attempt' | 'note' }>;
const target: Record<StatusCommand['type'], IntentStatus> = {
  complete: 'Completed',
  fail: 'Failed',
  cancel: 'Cancelled',
  expire: 'Expired',
};

/** The command a checkout's unpaid end becomes: with a failed attempt behind it, a failure with that attempt's reason. */
function unpaidEnd(details: CheckoutDetails, command: StatusCommand): StatusCommand {
  if (command.type !== 'cancel' && command.type !== 'expire') return command; // (a deposit records no attempts)
  const failed = attemptsOf(details).findLast((a) => a.outcome === 'failed');
  if (!failed) return command;
  return { ...command, type: 'fail', reason: failed.reason!, reasonDetail: failed.reasonDetail };
}

/** A session's details with no wallet charge. */
export const noWallet = { wallet: null, walletProvider: null, walletNumberLast4: null };

/** What paid or tried to pay in a checkout's attempt: a card, or the session's wallet charge. */
export type AttemptSource = { card: CardSummary } | { walletProvider: WalletProviderId };

/** A finished attempt as the session records it (`reason` null: it paid). */
function finishedAttempt(
  current: PaymentIntent,
  details: CheckoutDetails,
  source: AttemptSource,
  outcome: { reason: ReasonCode | null; reasonDetail?: string | null },
  now: Date,
): CheckoutAttempt {
  const wallet = 'walletProvider' in source ? details : undefined; // a wallet's attempt is the session's charge
  return {
    number: attemptsOf(details).length + 1,
    method: wallet ? 'wallet' : 'card',
    outcome: outcome.reason === null ? 'succeeded' : 'failed',
    reason: outcome.reason,
    reasonDetail: outcome.reasonDetail ?? null,
    card: 'card' in source ? source.card : null,
    walletProvider: wallet?.walletProvider ?? null,
    walletNumberLast4: wallet?.walletNumberLast4 ?? null,
    at: now.toISOString(),
    reference: (wallet ? wallet.wallet?.reference : details.cardAuth?.reference) ?? attemptReference(current),
  };
}

/** What paid a held (or holdable) intent: a live card payment being confirmed (its card captured), or a wallet charge. */
export type HeldMethod = 'card' | 'wallet';
export const heldMethod = (intent: PaymentIntent): HeldMethod =>
  intent.intentType === 'checkout' && checkoutDetails(intent).cardAuth?.stage === 'confirming' ? 'card' : 'wallet';

/**
 * Money that arrived for a merchant that may not be credited now (`merchantActive` false: suspended), a wallet's
 * approval or a captured card, is held, not credited: the intent stays Pending with its `heldApproval` (when, from
 * where) for the operator. Refused ('unchanged') when the merchant is active, the intent is not Pending or is held
 * already. Apart from decideIntent, as decideCharge is, so that the payment Lambdas carry only what they decide.
 */
export type HoldCommand = { type: 'hold-approval'; approval: Pick<HeldApproval, 'source' | 'providerReference'>; merchantActive: boolean };

export function holdApproval(intent: PaymentIntent, command: HoldCommand, now: Date): Decision<PaymentIntent> {
  if (intent.status !== 'Pending' || heldApprovalOf(intent) || command.merchantActive) return refuse('unchanged', 'Not held.');
  return keepingStatus(intent, { heldApproval: { heldAt: now.toISOString(), ...command.approval } }, now);
}

/**
 * The operator's decision about a held approval, the only way out of a hold: `release-held` credits it as what paid
 * (a deposit's charge, a checkout's wallet charge or captured card), `decline-held` fails it (declined_merchant_suspended,
 * nothing credited). Once: refused unless Pending and held, not yet decided; its heldApproval stamped with the decision
 * in the same state. `details`: what a deposit records of its charge.
 */
export type HeldCommand = { type: 'release-held' | 'decline-held'; details?: Record<string, unknown> | undefined };

export function decideHeld(intent: PaymentIntent, command: HeldCommand, now: Date): Decision<PaymentIntent> {
  const held = heldApprovalOf(intent);
  if (intent.status !== 'Pending' || !held || held.decision) return refuse('invalid_status', 'Not held.');
  const { cardAuth, wallet } = checkoutDetails(intent);
  const card = heldMethod(intent) === 'card' ? cardAuth?.card : undefined;
  const source = card ? { card } : wallet ? { walletProvider: wallet.provider } : undefined;
  const { details } = command;
  const outcome: IntentCommand | undefined =
    command.type === 'decline-held'
      ? { type: 'fail', reason: heldApprovalDeclinedReason, details: { ...(card && { card }), ...details } }
      : intent.intentType === 'deposit'
        ? { type: 'complete', through: { deposit: (intent.details as { providerId: WalletProviderId }).providerId }, details }
        : source && { type: 'attempt-paid', source };
  if (!outcome) return refuse('invalid_status', 'Nothing to release.');
  // Decided as the payment it is, the hold lifted; the decision stamped on it in the same state.
  const d = decideIntent({ ...intent, details: { ...intent.details, heldApproval: undefined } }, outcome, now);
  if (isRefusal(d)) return d;
  const heldApproval: HeldApproval = {
    ...held,
    decision: command.type === 'release-held' ? 'released' : 'declined',
    decidedAt: now.toISOString(),
  };
  return { ...d, state: { ...d.state, details: { ...d.state.details, heldApproval } } };
}

/**
 * A checkout's or deposit's outcome. Withdrawals are payouts (./payout.ts). A held approval is decided by the operator
 * only: nothing else changes a held intent.
 */
export function decideIntent(intent: PaymentIntent, command: IntentCommand, now: Date): Decision<PaymentIntent> {
  if (intent.intentType === 'withdrawal') return refuse('invalid_status', 'A withdrawal is decided as a payout.');
  if (heldApprovalOf(intent) && intent.status === 'Pending') return refuse('unchanged', 'Held for the operator.');
  const details = checkoutDetails(intent);
  if (command.type === 'note') return keepingStatus(intent, command.details ?? {}, now);
  if (command.type.startsWith('attempt') && (intent.intentType !== 'checkout' || intent.status !== 'Pending'))
    return refuse('invalid_status', 'Not Pending.');
  if (command.type === 'attempt') {
    // The status stays; refused when nothing changes.
    const change = { ...command.details, ...(command.linkUse === undefined ? {} : linkUseAttempt(details, command.linkUse)) };
    return Object.keys(change).length ? keepingStatus(intent, change, now) : refuse('unchanged', 'Unchanged.');
  }
  if ('source' in command) {
    const { source } = command;
    const outcome = command.type === 'attempt-failed' ? command.failure : { reason: null };
    const attempts = [...attemptsOf(details), finishedAttempt(intent, details, source, outcome, now)];
    // The session keeps the card that paid or tried to (its wallet charge forgotten).
    const tried = { attempts, ...('card' in source ? { card: source.card, ...noWallet } : {}) };
    if (command.type === 'attempt-paid') {
      const feeMinor = paymentFee(intent.amountMinor, details.feeRate ?? defaultFees.checkout);
      const through = 'card' in source ? { card: true as const } : source;
      const use = command.takesLinkUse ? linkUseAttempt(details, true) : {};
      return decideIntent(intent, { type: 'complete', through, feeMinor, details: { ...tried, ...use } }, now);
    }
    if (attemptsLeft({ ...details, attempts }) === 0 || isExpired(intent, now))
      return decideIntent(intent, { type: 'fail', ...command.failure, details: tried }, now);
    return decideIntent(intent, { type: 'attempt', details: { attempts, ...noWallet, card: null, cardAuth: null }, linkUse: false }, now);
  }
  command = unpaidEnd(details, command);
  const to = target[command.type];
  const change: IntentChange = { details: command.details };
  if (command.type === 'complete' && command.feeMinor !== undefined) change.feeMinor = command.feeMinor;
  if (command.type === 'complete') change.reason = null; // a paid transaction has no reason
  if (command.type !== 'complete' && command.reason) change.reason = command.reason;
  if (command.type === 'fail' && command.reasonDetail !== undefined) change.reasonDetail = command.reasonDetail;
  const next = intentTransition(intent, to, change, now);
  if (!next) return refuse('invalid_status', `A ${intent.status} transaction cannot become ${to}.`);
  const events = [{ object: 'transaction' as const, id: intent.paymentIntentId, from: intent.status, to }];
  if (command.type !== 'complete') return decided(next, [], events);
  const kind = intent.intentType === 'deposit' ? 'deposit.completed' : 'checkout.completed';
  const credit = draft(kind, intent.paymentIntentId, completedMovements(next.amountMinor, next.feeMinor, command.through));
  return decided(next, [credit], events);
}

/**
 * A deposit's wallet charge (its outcome is decideIntent's): `answered`, the charge request answered (the provider took it
 * and prompts the customer): no longer `requesting`, unanswered when the provider's answer was lost, its walletChargeInfo
 * with the provider's status and message; the status stays (keepingStatus). Once: refused ('unchanged') unless a Pending
 * deposit's request awaits its answer (settled or answered meanwhile). Apart from decideIntent so that the deposit
 * request's Lambda, which decides only this, does not carry every payment rule.
 */
export type ChargeCommand = { type: 'answered'; status: string; message: string; unanswered?: boolean };

export function decideCharge(deposit: PaymentIntent, command: ChargeCommand, now: Date): Decision<PaymentIntent> {
  const { requesting, walletChargeInfo } = deposit.details;
  if (deposit.intentType !== 'deposit' || deposit.status !== 'Pending' || requesting !== true)
    return refuse('unchanged', 'Not requesting.');
  // Held for the operator meanwhile (its approval arrived first): only the operator's decision moves it now.
  if (heldApprovalOf(deposit)) return refuse('unchanged', 'Held for the operator.');
  const info = { ...(walletChargeInfo as object), status: command.status, message: command.message };
  return keepingStatus(deposit, { requesting: undefined, chargeUnanswered: command.unanswered || undefined, walletChargeInfo: info }, now);
}

/** A provider's answer about a payment as the service got it: Pending (wallet) and Unknown (card) decide nothing yet. */
export type ProviderAnswer =
  | { status: 'Approved' }
  | { status: 'Declined'; reason?: string | undefined; detail?: string | null | undefined }
  | { status: 'Pending' | 'Unknown' };

/**
 * A provider's answer about a checkout's attempt to pay, about the attempt it names (`reference`: the provider's reference):
 * - `card-answered`: the card provider's answer about a live card payment being confirmed (its confirmation or the
 *   sweep's inquiry); its `reason` a ReasonCode.
 * - `charge-answered`: the wallet provider's answer about the session's charge (`stage`: where it was when asked; no
 *   `reference`: the session had none; no `answer`: nobody was asked or nobody answered): the sweep's look at the
 *   session; `keepOpen`: a withdrawal the provider did not confirm, or no answer (the session may not expire yet).
 */
export type AnswerCommand =
  | { type: 'card-answered'; reference: string; answer: ProviderAnswer }
  | {
      type: 'charge-answered';
      reference?: string | undefined;
      stage?: 'otp' | 'approval' | undefined;
      answer?: ProviderAnswer | undefined;
      keepOpen?: boolean;
    };

/**
 * Whether an answer may decide the checkout: it is Pending, not held for the operator (only the operator decides then),
 * and the answer names the attempt the session pays with now (the card still being confirmed; its wallet charge, which
 * must still await its approval when the answer is about one awaiting it), not an earlier one the session moved on from.
 */
export function answersCurrent(intent: PaymentIntent, command: AnswerCommand): boolean {
  const { cardAuth, wallet } = checkoutDetails(intent);
  const card = command.type === 'card-answered';
  const attempt = cardAuth?.stage === 'confirming' ? card && cardAuth : !card && wallet;
  return (
    intent.status === 'Pending' &&
    !heldApprovalOf(intent) &&
    !!attempt &&
    attempt.providerReference === command.reference &&
    (card || wallet?.stage === 'otp' || command.stage === 'approval')
  );
}

/**
 * What a provider's answer decides about a checkout (AnswerCommand). About the attempt the session pays with now
 * (answersCurrent), Approved pays it and Declined fails it. Otherwise nothing, except for the sweep's look at a session
 * (a wallet's inquiry, or none) that nothing else is paying (no card being confirmed, no other wallet charge): with no
 * deciding answer, a charge awaiting approval expires at approvalDeadline(), any other session at its expiry (unless
 * `keepOpen`), else a payment link's use its attempt held past linkUseReleaseAt() goes back. A held or final session:
 * nothing. Apart from decideIntent so that only the Lambdas that hear from a provider carry it.
 */
export function decideAnswer(intent: PaymentIntent, command: AnswerCommand, now: Date): Decision<PaymentIntent> {
  const unchanged = refuse('unchanged', 'Nothing decided.');
  const { answer } = command;
  const details = checkoutDetails(intent);
  const { cardAuth, wallet } = details;
  if (answersCurrent(intent, command)) {
    const source = cardAuth?.stage === 'confirming' ? { card: cardAuth.card } : { walletProvider: wallet!.provider };
    if (answer?.status === 'Approved') return decideIntent(intent, { type: 'attempt-paid', source }, now);
    if (answer?.status === 'Declined') {
      // A card's reason as the card provider gave it; a wallet's read by walletDecline.
      const { reason, detail } = answer;
      const failure = 'card' in source ? { reason: reason as ReasonCode, reasonDetail: detail } : walletDecline(reason);
      return decideIntent(intent, { type: 'attempt-failed', source, failure }, now);
    }
  } else if (wallet || cardAuth?.stage === 'confirming') return unchanged; // another attempt pays now: looked at again
  if (command.type === 'card-answered' || command.keepOpen || intent.status !== 'Pending' || heldApprovalOf(intent)) return unchanged;
  const release = linkUseReleaseAt(details);
  const expire = wallet?.stage === 'approval' ? now.getTime() >= approvalDeadline(intent, wallet) : isExpired(intent, now);
  if (expire) return decideIntent(intent, { type: 'expire', reason: 'expired' }, now);
  return release !== undefined && now.getTime() >= release ? decideIntent(intent, { type: 'attempt', linkUse: false }, now) : unchanged;
}

/** What a wallet provider's notification states about a charge (ProviderNotification, read by its adapter). */
export interface NotificationFacts {
  amountMinor?: number | undefined;
  currency?: Currency | undefined;
  /** What the adapter already found naming another merchant account or transaction type. */
  mismatched: readonly string[];
}

/**
 * What a wallet provider's notification states that is not the stored payment's (empty: it matches): a notification
 * naming another amount or currency never credits; it is refused and nothing changes (the inquiry is not asked).
 */
export function notificationMismatches(intent: Pick<PaymentIntent, 'amountMinor' | 'currency'>, facts: NotificationFacts): string[] {
  return [
    ...facts.mismatched,
    ...(facts.amountMinor !== undefined && facts.amountMinor !== intent.amountMinor ? ['amount'] : []),
    ...(facts.currency !== undefined && facts.currency !== intent.currency ? ['currency'] : []),
  ];
}

/**
 * What a wallet provider's answer about a deposit's one charge decides (decideIntent refuses it on a deposit held for the
 * operator or final): Approved completes it and credits the wallet net of its fee, Declined fails it (walletDecline),
 * still Pending past its window it expires (not_approved); `details`: what the deposit records of its charge with the answer.
 */
export function decideDepositAnswer(
  deposit: PaymentIntent,
  { answer, details }: { type: 'charge-answered'; answer: ProviderAnswer; details: Record<string, unknown> },
  now: Date,
): Decision<PaymentIntent> {
  const through = { deposit: (deposit.details as { providerId: WalletProviderId }).providerId };
  const command: IntentCommand | undefined =
    answer.status === 'Approved'
      ? { type: 'complete', through, details }
      : answer.status === 'Declined'
        ? { type: 'fail', ...walletDecline(answer.reason), details }
        : answer.status === 'Pending' && isExpired(deposit, now)
          ? { type: 'expire', reason: 'not_approved', details }
          : undefined;
  return command ? decideIntent(deposit, command, now) : refuse('unchanged', 'Nothing decided.');
}
