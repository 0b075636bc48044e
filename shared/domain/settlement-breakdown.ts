import type { BalanceMovement } from './balance-transaction.ts';
import { fromMinor, type Currency } from './money.ts';

/**
 * What a settlement paid out (docs/merchant-guide.md, Settlement breakdowns). The rule: per merchant,
 * mode and currency, each settlement (manual or automatic, whatever became of it) has a cut-off, the
 * position `<createdAt>#<journalId>` of its hold journal. It covers every balance transaction of its
 * currency positioned after the previous settlement's cut-off and before its own. Balance-forward,
 * like a bank statement, on the AVAILABLE balance (the one a settlement draws from):
 *
 *   carriedIn + gross − fees − refunds − payouts + other = net + carriedIn = amount + carriedForward
 *
 *   carriedIn       the previous settlement's carriedForward (0 for the first)
 *   gross           payments and deposits (their amount)
 *   fees            their fees (taken before the money became available)
 *   refunds         money held for refunds, less refunds that failed and came back
 *   payouts         money held for payouts (amount + fee), less failed payouts that came back
 *   other           operator adjustments, settlements released (cancelled or failed), anything else
 *   net             the change of the available balance over the covered movements
 *   amount          the settlement's amount (its hold)
 *   carriedForward  what stayed available: carriedIn + net − amount (the next settlement's carriedIn)
 *
 * Movements that only move held money (a payout, refund or settlement paid) change nothing available
 * and count 0; they are listed all the same. All in minor units of the settlement's currency.
 */
export interface SettlementBreakdown {
  carriedInMinor: number;
  grossMinor: number;
  feesMinor: number;
  refundsMinor: number;
  payoutsMinor: number;
  otherMinor: number;
  netMinor: number;
  amountMinor: number;
  carriedForwardMinor: number;
  /** How many balance transactions it covers (its own hold not counted). */
  count: number;
}

/** The totals of a window that do not depend on the settlement's place in the chain: summed in any order, in any chunks. */
export type BreakdownSums = Pick<
  SettlementBreakdown,
  'grossMinor' | 'feesMinor' | 'refundsMinor' | 'payoutsMinor' | 'otherMinor' | 'netMinor' | 'count'
>;

export const noSums: BreakdownSums = {
  grossMinor: 0,
  feesMinor: 0,
  refundsMinor: 0,
  payoutsMinor: 0,
  otherMinor: 0,
  netMinor: 0,
  count: 0,
};

/** `sums` with more of the window's movements added (a large window is summed a chunk at a time: settlement-breakdown.ts). */
export function addMovements(sums: BreakdownSums, movements: readonly BalanceMovement[]): BreakdownSums {
  const s = { ...sums };
  for (const m of movements) {
    s.netMinor += m.availableChangeMinor;
    if (m.type === 'payment' || m.type === 'deposit') {
      s.grossMinor += m.amountMinor;
      s.feesMinor += m.feeMinor;
      // anything else a credit moved (nothing today) stays exact in `other`
      s.otherMinor += m.availableChangeMinor - (m.amountMinor - m.feeMinor);
    } else if (m.type.startsWith('refund')) s.refundsMinor -= m.availableChangeMinor;
    else if (m.type.startsWith('payout')) s.payoutsMinor -= m.availableChangeMinor;
    else s.otherMinor += m.availableChangeMinor;
  }
  s.count += movements.length;
  return s;
}

/** The breakdown from a whole window's sums, once the previous settlement's carriedForward is known. */
export function finishBreakdown(sums: BreakdownSums, carriedInMinor: number, amountMinor: number): SettlementBreakdown {
  return { carriedInMinor, ...sums, amountMinor, carriedForwardMinor: carriedInMinor + sums.netMinor - amountMinor };
}

/** The breakdown of a settlement of `amountMinor` from the movements it covers (not its own hold). */
export const breakdownOf = (movements: readonly BalanceMovement[], carriedInMinor: number, amountMinor: number): SettlementBreakdown =>
  finishBreakdown(addMovements(noSums, movements), carriedInMinor, amountMinor);

/** The breakdown in the API's decimal units (settlement lookup, dashboard). */
export function breakdownView(b: SettlementBreakdown, currency: Currency) {
  const d = (minor: number) => fromMinor(minor, currency);
  return {
    carriedIn: d(b.carriedInMinor),
    gross: d(b.grossMinor),
    fees: d(b.feesMinor),
    refunds: d(b.refundsMinor),
    payouts: d(b.payoutsMinor),
    other: d(b.otherMinor),
    net: d(b.netMinor),
    amount: d(b.amountMinor),
    carriedForward: d(b.carriedForwardMinor),
    count: b.count,
  };
}

/** The breakdown in a webhook's PascalCase data (SettlementStatusChanged `Breakdown`). */
export function breakdownEventData(b: SettlementBreakdown, currency: Currency) {
  const v = breakdownView(b, currency);
  return {
    CarriedIn: v.carriedIn,
    Gross: v.gross,
    Fees: v.fees,
    Refunds: v.refunds,
    Payouts: v.payouts,
    Other: v.other,
    Net: v.net,
    Amount: v.amount,
    CarriedForward: v.carriedForward,
    Count: v.count,
  };
}
