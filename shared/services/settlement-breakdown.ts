import { balanceMovement } from '#shared/domain/balance-transaction.ts';
import { breakdownOf, type SettlementBreakdown } from '#shared/domain/settlement-breakdown.ts';
import type { Settlement } from '#shared/domain/settlement.ts';
import { journalsBetween } from '#shared/store/balance-transactions.ts';
import { getSettlement, saveSettlementBreakdown } from '#shared/store/settlements.ts';

/**
 * Settlement breakdowns (docs/merchant-guide.md, Settlement breakdowns; the rule in
 * shared/domain/settlement-breakdown.ts; the cut-off each settlement's hold sets: settlement-hold.ts).
 */

/** How many movements a lookup computes a breakdown from (more: null until the operator's decision computed it). */
export const lookupBreakdownCap = 20_000;

/**
 * A settlement's breakdown: stored on the settlement once computed (its window is closed since its hold committed, so
 * it never changes); else the previous settlement's carriedForward (computed first when it has none) and the journals
 * of the window, read by Query. Null for a settlement created before breakdowns existed, and (`cap`: a request's bound) while
 * a window of more than `cap` movements has not been computed yet.
 */
export async function settlementBreakdown(s: Settlement, cap = Infinity): Promise<SettlementBreakdown | null> {
  if (s.breakdown) return s.breakdown;
  if (s.cutoff === undefined) return null;
  // The chain back to the newest stored breakdown (each settlement's carriedIn is the previous one's carriedForward).
  const chain: Settlement[] = [s];
  let carriedIn = 0;
  for (let at = s; at.previousSettlementId; ) {
    const previous = await getSettlement(at.previousSettlementId);
    if (!previous || previous.cutoff === undefined) break;
    if (previous.breakdown) {
      carriedIn = previous.breakdown.carriedForwardMinor;
      break;
    }
    chain.push(previous);
    at = previous;
  }
  let last: SettlementBreakdown | undefined;
  for (const item of chain.reverse()) {
    const journals = await journalsBetween(item.merchantId, item.mode, item.currency, item.previousCutoff ?? null, item.cutoff!, cap);
    if (!journals) return null; // too many to read in a request: the operator's decision computes it (no time limit there)
    last = breakdownOf(journals.map(balanceMovement), carriedIn, item.amountMinor);
    await saveSettlementBreakdown(item.id, last);
    carriedIn = last.carriedForwardMinor;
  }
  return last!;
}

/** The settlement with its breakdown (stored, or computed and stored now): what status changes and their events carry. */
export async function withBreakdown(s: Settlement | undefined): Promise<Settlement | undefined> {
  if (!s || s.breakdown || s.cutoff === undefined) return s;
  const breakdown = await settlementBreakdown(s);
  return breakdown ? { ...s, breakdown } : s;
}
