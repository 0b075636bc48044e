import type { Journal } from './ledger.ts';

/**
 * Balance transactions (docs/merchant-guide.md, Balance transactions): one per journal, read from
 * the journal's own lines, so they equal the ledger by construction. Each journal kind has exactly
 * one type and one source object:
 *
 *   checkout.completed → payment            deposit.completed    → deposit
 *   withdrawal.hold    → payout             withdrawal.completed → payout_paid      withdrawal.released → payout_failure
 *   settlement.hold    → settlement         settlement.completed → settlement_paid  settlement.cancelled/.failed → settlement_failure
 *   refund.hold        → refund             refund.completed     → refund_paid      refund.failed → refund_failure
 *   wallet.credit      → adjustment (an operator's credit; test mode)
 *
 * Amounts (integer minor units here, decimal at the API), signed from the merchant's side:
 *   amount          what came in from or went out to the outside world (−Σ external lines): a payment's amount,
 *                   minus a payout's amount when paid; 0 for a hold or a release, which only move money inside the wallet
 *   fee             the fee this movement charged (Σ platform:fees lines)
 *   net             amount − fee: the change of the merchant's whole balance (available + pending)
 *   availableChange the change of the available balance; pendingChange the change of the pending (held) balance
 */
export const balanceTransactionTypes = [
  'payment',
  'deposit',
  'payout',
  'payout_paid',
  'payout_failure',
  'settlement',
  'settlement_paid',
  'settlement_failure',
  'refund',
  'refund_paid',
  'refund_failure',
  'adjustment',
] as const;
export type BalanceTransactionType = (typeof balanceTransactionTypes)[number];

export const balanceSourceTypes = ['transaction', 'settlement', 'refund', 'operator'] as const;
export type BalanceSourceType = (typeof balanceSourceTypes)[number];

const byKind: Record<string, { type: BalanceTransactionType; source: BalanceSourceType }> = {
  'checkout.completed': { type: 'payment', source: 'transaction' },
  'deposit.completed': { type: 'deposit', source: 'transaction' },
  'withdrawal.hold': { type: 'payout', source: 'transaction' },
  'withdrawal.completed': { type: 'payout_paid', source: 'transaction' },
  'withdrawal.released': { type: 'payout_failure', source: 'transaction' },
  'settlement.hold': { type: 'settlement', source: 'settlement' },
  'settlement.completed': { type: 'settlement_paid', source: 'settlement' },
  'settlement.cancelled': { type: 'settlement_failure', source: 'settlement' },
  'settlement.failed': { type: 'settlement_failure', source: 'settlement' },
  'refund.hold': { type: 'refund', source: 'refund' },
  'refund.completed': { type: 'refund_paid', source: 'refund' },
  'refund.failed': { type: 'refund_failure', source: 'refund' },
  'wallet.credit': { type: 'adjustment', source: 'operator' },
};

/** The type of a journal kind (an unknown kind is an adjustment: it still moved the wallet). */
export const balanceTypeOf = (kind: string): BalanceTransactionType => byKind[kind]?.type ?? 'adjustment';

/** The journal kinds of a balance transaction type (the type index is keyed by kind). */
export const kindsOf = (type: BalanceTransactionType): string[] =>
  Object.entries(byKind)
    .filter(([, v]) => v.type === type)
    .map(([k]) => k);

/** A balance transaction in minor units, as the store reads it from one journal. */
export interface BalanceMovement {
  journalId: string;
  type: BalanceTransactionType;
  source: { type: BalanceSourceType; id: string };
  currency: string;
  createdAt: string;
  amountMinor: number;
  feeMinor: number;
  netMinor: number;
  availableChangeMinor: number;
  pendingChangeMinor: number;
}

export function balanceMovement(j: Journal): BalanceMovement {
  const own = `merchant:${j.merchantId}:`;
  let external = 0;
  let fee = 0;
  let available = 0;
  let pending = 0;
  for (const l of j.lines) {
    if (l.account.startsWith('external:')) external += l.amount;
    else if (l.account === 'platform:fees') fee += l.amount;
    else if (l.account === `${own}available`) available += l.amount;
    else if (l.account.startsWith(`${own}held:`)) pending += l.amount;
  }
  const source = byKind[j.kind]?.source ?? 'operator';
  const amount = -external;
  return {
    journalId: j.journalId,
    type: balanceTypeOf(j.kind),
    source: { type: source, id: j.reference },
    currency: j.currency,
    createdAt: j.createdAt,
    amountMinor: amount,
    feeMinor: fee,
    netMinor: amount - fee,
    availableChangeMinor: available,
    pendingChangeMinor: pending,
  };
}

/**
 * A balance transaction's id: `btx_<createdAt in ms, base 36>_<journalId>`. It names the journal and
 * its place in time, so `startingAfter` needs no look-up (the key bound is derived from it).
 */
export const balanceTransactionId = (createdAt: string, journalId: string) => `btx_${Date.parse(createdAt).toString(36)}_${journalId}`;
export const balanceTransactionIdPattern = /^btx_([0-9a-z]{1,11})_([0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12})$/;

/** The `<createdAt>#<journalId>` position of an id (undefined: not a balance transaction id). */
export function balanceTransactionPosition(id: string): string | undefined {
  const m = balanceTransactionIdPattern.exec(id);
  if (!m) return undefined;
  const ms = parseInt(m[1]!, 36);
  if (!Number.isSafeInteger(ms) || ms > 8.64e15) return undefined;
  return `${new Date(ms).toISOString()}#${m[2]}`;
}
