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

/** The breakdown of a settlement of `amountMinor` from the movements it covers (not its own hold). */
export function breakdownOf(movements: readonly BalanceMovement[], carriedInMinor: number, amountMinor: number): SettlementBreakdown {
  let gross = 0;
  let fees = 0;
  let refunds = 0;
  let payouts = 0;
  let other = 0;
  let net = 0;
  for (const m of movements) {
    net += m.availableChangeMinor;
    if (m.type === 'payment' || m.type === 'deposit') {
      gross += m.amountMinor;
      fees += m.feeMinor;
      // anything else a credit moved (nothing today) stays exact in `other`
      other += m.availableChangeMinor - (m.amountMinor - m.feeMinor);
    } else if (m.type.startsWith('refund')) refunds -= m.availableChangeMinor;
    else if (m.type.startsWith('payout')) payouts -= m.availableChangeMinor;
    else other += m.availableChangeMinor;
  }
  return {
    carriedInMinor,
    grossMinor: gross,
    feesMinor: fees,
    refundsMinor: refunds,
    payoutsMinor: payouts,
    otherMinor: other,
    netMinor: net,
    amountMinor,
    carriedForwardMinor: carriedInMinor + net - amountMinor,
    count: movements.length,
  };
}

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
