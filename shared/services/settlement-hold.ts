import { isRefusal } from '#shared/domain/core/decision.ts';
import { decideSettlement } from '#shared/domain/core/settlement.ts';
import type { Settlement } from '#shared/domain/settlement.ts';
import type { TxItem } from '#shared/store/client.ts';
import { createSettlementWrite } from '#shared/store/settlements.ts';
import { journalPosition, postJournal, readCutoffs } from '#shared/store/wallets.ts';
import { journalEntry } from './commit.ts';

/**
 * Both ways a settlement is created (a request, an automatic run) take its hold here, so each has a
 * cut-off: the window of its breakdown (settlement-breakdown.ts, docs/merchant-guide.md).
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
  // The money core decides the settlement and its hold (shared/domain/core/settlement.ts); a new one is never refused there.
  const decision = decideSettlement(undefined, { type: 'create', settlement: draft }, at);
  if (isRefusal(decision)) throw new Error(decision.message);
  const hold = journalEntry(decision.journals[0]!, draft, at);
  const settlement: Settlement = {
    ...decision.state,
    cutoff: journalPosition(hold.journal),
    previousCutoff: cut.latest?.position ?? null,
    previousSettlementId: cut.latest?.settlementId ?? null,
  };
  return {
    settlement,
    writes: [createSettlementWrite(settlement), ...postJournal(hold, { settlementId: settlement.id, observed: cut.observed })],
  };
}
