import {
  attemptReference,
  attemptsLeft,
  attemptsOf,
  checkoutDetails,
  checkoutFee,
  completedMovements,
  isExpired,
  linkUseAttempt,
  type CheckoutAttempt,
} from '../checkout.ts';
import { defaultFees } from '../merchant.ts';
import type { CardSummary, PaymentIntent } from '../intent.ts';
import type { WalletProviderId } from '../providers.ts';
import type { ReasonCode } from '../reasons.ts';
import { decided, draft, refuse, type Decision } from './decision.ts';
import { canTransition, type IntentStatus } from './machines.ts';

/**
 * Checkout intents (card payments and wallet checkouts) and wallet charges (deposits): money comes IN. A Pending
 * intent ends once: Completed credits the wallet net of its fee (external → available + platform fees); Failed,
 * Cancelled and Expired move nothing. What a transaction's change does to it is decided here and nowhere else: the
 * store's conditional write (shared/store/intents.ts transitionWrites) writes the state this returns.
 */
export interface IntentChange {
  reason?: ReasonCode | null;
  reasonDetail?: string | null;
  details?: Record<string, unknown>;
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
    updatedAt: now.toISOString(),
    version: current.version + 1,
  };
}

/** Who paid: a card (through the card network) or a wallet provider. */
export type PaidThrough = { card: true } | { walletProvider: WalletProviderId } | { deposit: WalletProviderId };

export type IntentCommand =
  /** The provider says the money arrived (card captured, wallet charge approved): Completed, credited once. */
  /** `takesLinkUse`: the payment takes its link's use as it is made (refused by the link when none is left). */
  | { type: 'complete'; through: PaidThrough; feeMinor?: number; details?: Record<string, unknown>; takesLinkUse?: boolean }
  | { type: 'fail'; reason: ReasonCode; reasonDetail?: string | null; details?: Record<string, unknown> }
  /** The customer cancels, the session expires: with a failed attempt behind it, Failed with that attempt's reason. */
  | { type: 'cancel'; reason?: ReasonCode; details?: Record<string, unknown> }
  | { type: 'expire'; reason?: ReasonCode; details?: Record<string, unknown> }
  /**
   * A checkout's payment attempt paid (`source`: the card, or the session's wallet charge): recorded on the session,
   * Completed with the checkout fee of the session's rate (the default rate when it has none) and credited once.
   * `takesLinkUse` as for `complete`.
   */
  | { type: 'attempt-paid'; source: AttemptSource; takesLinkUse?: boolean }
  /**
   * A checkout's payment attempt declined or failed (recorded on the session): the last attempt, or one that ends
   * after expiresAt, fails the transaction; else the session stays Pending and payable again, its wallet and card
   * forgotten and its payment link's use given back until the next attempt.
   */
  | { type: 'attempt-failed'; source: AttemptSource; failure: { reason: ReasonCode; reasonDetail?: string | null } }
  /**
   * A link's checkout takes its use as an attempt starts (`held: true`, before any provider is asked) or gives it back
   * (an attempt that did not start, or waits past linkUseHoldMs); Pending stays. `details`: the attempt's own, with it.
   * Refused ('unchanged') when the session already is as asked, or holds no link use at all.
   */
  | { type: 'link-use'; held: boolean; details?: Record<string, unknown> }
  /**
   * A payment attempt's progress on a Pending checkout (a wallet charge requested, a card challenge started, an OTP
   * entered): its `details`, and, when `linkUse` says so, its payment link's use taken (true) or given back (false)
   * with it. The status stays; refused on a final session.
   */
  | { type: 'attempt'; details: Record<string, unknown>; linkUse?: boolean };

type StatusCommand = Exclude<IntentCommand, { type: 'attempt-paid' | 'attempt-failed' | 'link-use' | 'attempt' }>;
const target: Record<StatusCommand['type'], IntentStatus> = {
  complete: 'Completed',
  fail: 'Failed',
  cancel: 'Cancelled',
  expire: 'Expired',
};

/** The session after a change that keeps its status (no event, nothing moves), or the refusal of a final one. */
function samePending(intent: PaymentIntent, details: Record<string, unknown>, now: Date): Decision<PaymentIntent> {
  if (intent.status !== 'Pending') return refuse('invalid_status', `A ${intent.status} transaction cannot change.`);
  const state = { ...intent, details: { ...intent.details, ...details }, updatedAt: now.toISOString(), version: intent.version + 1 };
  return decided(state);
}

/** The command a checkout's unpaid end becomes: with a failed attempt behind it, a failure with that attempt's reason. */
function unpaidEnd(intent: PaymentIntent, command: StatusCommand): StatusCommand {
  if (intent.intentType !== 'checkout' || (command.type !== 'cancel' && command.type !== 'expire')) return command;
  const failed = attemptsOf(checkoutDetails(intent)).findLast((a) => a.outcome === 'failed');
  if (!failed) return command;
  return { type: 'fail', reason: failed.reason!, reasonDetail: failed.reasonDetail, ...(command.details && { details: command.details }) };
}

/** A session's details with no wallet charge. */
export const noWallet = { wallet: null, walletProvider: null, walletNumberLast4: null };
const payableAgain = { ...noWallet, card: null, cardAuth: null };

/** What paid or tried to pay in a checkout's attempt: a card, or the session's wallet charge. */
export type AttemptSource = { card: CardSummary } | { walletProvider: WalletProviderId };

/** A finished attempt as the session records it (`reason` null: it paid). */
function finishedAttempt(
  current: PaymentIntent,
  source: AttemptSource,
  outcome: { reason: ReasonCode | null; reasonDetail?: string | null },
  now: Date,
): CheckoutAttempt {
  const details = checkoutDetails(current);
  const wallet = 'walletProvider' in source;
  return {
    number: attemptsOf(details).length + 1,
    method: wallet ? 'wallet' : 'card',
    outcome: outcome.reason === null ? 'succeeded' : 'failed',
    reason: outcome.reason,
    reasonDetail: outcome.reasonDetail ?? null,
    card: wallet ? null : source.card,
    walletProvider: wallet ? (details.walletProvider ?? null) : null,
    walletNumberLast4: wallet ? (details.walletNumberLast4 ?? null) : null,
    at: now.toISOString(),
    reference: (wallet ? details.wallet?.reference : details.cardAuth?.reference) ?? attemptReference(current),
  };
}

/** What the session keeps of a card that paid or tried to (its wallet charge forgotten); nothing for a wallet. */
const triedWith = (source: AttemptSource) => ('card' in source ? { card: source.card, ...noWallet } : {});

/** A checkout's or deposit's outcome. Withdrawals are payouts (./payout.ts). */
export function decideIntent(intent: PaymentIntent, command: IntentCommand, now: Date): Decision<PaymentIntent> {
  if (intent.intentType === 'withdrawal') return refuse('invalid_status', 'A withdrawal is decided as a payout.');
  if (command.type === 'link-use') {
    const use = linkUseAttempt(checkoutDetails(intent), command.held);
    if (!('linkUseHeld' in use)) return refuse('unchanged', `The session ${command.held ? 'holds' : 'holds no'} link use already.`);
    return samePending(intent, { ...command.details, ...use }, now);
  }
  if (command.type === 'attempt') {
    if (intent.intentType !== 'checkout') return refuse('invalid_status', 'Only a checkout records payment attempts.');
    const use = command.linkUse === undefined ? {} : linkUseAttempt(checkoutDetails(intent), command.linkUse);
    return samePending(intent, { ...command.details, ...use }, now);
  }
  if (command.type === 'attempt-paid' || command.type === 'attempt-failed') {
    if (intent.intentType !== 'checkout') return refuse('invalid_status', 'Only a checkout records payment attempts.');
    const details = checkoutDetails(intent);
    const { source } = command;
    const failure =
      command.type === 'attempt-failed' ? { reason: command.failure.reason, reasonDetail: command.failure.reasonDetail ?? null } : null;
    const attempts = [...attemptsOf(details), finishedAttempt(intent, source, failure ?? { reason: null }, now)];
    if (!failure) {
      const feeMinor = checkoutFee(intent.amountMinor, details.feeRate ?? defaultFees.checkout);
      const through = 'card' in source ? { card: true as const } : { walletProvider: source.walletProvider };
      const paid = { type: 'complete' as const, through, feeMinor, details: { attempts, ...triedWith(source) } };
      return decideIntent(
        intent,
        { ...paid, ...(command.type === 'attempt-paid' && command.takesLinkUse ? { takesLinkUse: true } : {}) },
        now,
      );
    }
    if (attemptsLeft({ ...details, attempts }) === 0 || isExpired(intent, now))
      return decideIntent(intent, { type: 'fail', ...failure, details: { attempts, ...triedWith(source) } }, now);
    return samePending(intent, { attempts, ...payableAgain, ...linkUseAttempt(details, false) }, now);
  }
  command = unpaidEnd(intent, command);
  const to = target[command.type];
  const linkUse = command.type === 'complete' && command.takesLinkUse ? linkUseAttempt(checkoutDetails(intent), true) : {};
  const change: IntentChange = { ...(command.details || 'linkUseHeld' in linkUse ? { details: { ...command.details, ...linkUse } } : {}) };
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
