import { balanceMovement } from '#shared/domain/balance-transaction.ts';
import { breakdownOf, type SettlementBreakdown } from '#shared/domain/settlement-breakdown.ts';
import { settlementJournals, type Settlement } from '#shared/domain/settlement.ts';
import type { TxItem } from '#shared/store/client.ts';
import { journalsBetween } from '#shared/store/balance-transactions.ts';
import { createSettlementWrite, getSettlement, saveSettlementBreakdown } from '#shared/store/settlements.ts';
import { journalPosition, postJournal, readCutoffs } from '#shared/store/wallets.ts';

/**
 * Settlement breakdowns (docs/merchant-guide.md, Settlement breakdowns; the rule in
 * shared/domain/settlement-breakdown.ts). Both ways a settlement is created (a request, an automatic
 * run) take its hold here, so each has a cut-off.
 */

/**
 * A new settlement's writes: the settlement item and its hold journal, which moves the wallet's cut-off from the one
 * read now to its own position on every shard (refused as `cutoff` if another settlement moved it first: decide again).
 * A hold is never positioned before the previous cut-off: on a clock behind it, it takes the next millisecond.
 */
export async function settlementWithHold(draft: Settlement, now: Date): Promise<{ settlement: Settlement; writes: TxItem[] }> {
  const cut = await readCutoffs(draft.merchantId, draft.mode, draft.currency);
  const previousAt = cut.latest?.position.split('#')[0];
  const at = previousAt !== undefined && now.toISOString() <= previousAt ? new Date(Date.parse(previousAt) + 1) : now;
  const hold = settlementJournals.hold(draft, at);
  const settlement: Settlement = {
    ...draft,
    cutoff: journalPosition(hold.journal),
    previousCutoff: cut.latest?.position ?? null,
    previousSettlementId: cut.latest?.settlementId ?? null,
  };
  return {
    settlement,
    writes: [createSettlementWrite(settlement), ...postJournal(hold, { settlementId: settlement.id, observed: cut.observed })],
  };
}

/**
 * A settlement's breakdown: stored on the settlement once computed (its window is closed since its hold committed, so
 * it never changes); else the previous settlement's carriedForward (computed first when it has none) and the journals
 * of the window, read by Query. Null for a settlement created before breakdowns existed.
 */
export async function settlementBreakdown(s: Settlement): Promise<SettlementBreakdown | null> {
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
    const journals = await journalsBetween(item.merchantId, item.mode, item.currency, item.previousCutoff ?? null, item.cutoff!);
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
