import { completedMovements } from '../checkout.ts';
import type { PaymentIntent } from '../intent.ts';
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
  | { type: 'complete'; through: PaidThrough; feeMinor?: number; details?: Record<string, unknown> }
  | { type: 'fail'; reason: ReasonCode; reasonDetail?: string | null; details?: Record<string, unknown> }
  | { type: 'cancel'; reason?: ReasonCode; details?: Record<string, unknown> }
  | { type: 'expire'; reason?: ReasonCode; details?: Record<string, unknown> };

const target: Record<IntentCommand['type'], IntentStatus> = {
  complete: 'Completed',
  fail: 'Failed',
  cancel: 'Cancelled',
  expire: 'Expired',
};

/** A checkout's or deposit's outcome. Withdrawals are payouts (./payout.ts). */
export function decideIntent(intent: PaymentIntent, command: IntentCommand, now: Date): Decision<PaymentIntent> {
  if (intent.intentType === 'withdrawal') return refuse('invalid_status', 'A withdrawal is decided as a payout.');
  const to = target[command.type];
  const change: IntentChange = { ...(command.details ? { details: command.details } : {}) };
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
