import { isRefusal } from '#shared/domain/core/decision.ts';
import { decideSettlement, holdPositionAt, type SettlementCommand } from '#shared/domain/core/settlement.ts';
import { BusinessRuleError } from '#shared/domain/errors.ts';
import { holdShardField } from '#shared/domain/ledger.ts';
import type { Settlement } from '#shared/domain/settlement.ts';
import { createSettlementWrite } from '#shared/store/settlements.ts';
import { journalPosition, postJournal, readCutoffs, type PlaceHold } from '#shared/store/wallets.ts';
import { journalEntry } from './commit.ts';

/**
 * Both ways a settlement is created (a request, an automatic run) take its hold here, so each has a
 * cut-off: the window of its breakdown (settlement-breakdown.ts, docs/merchant-guide.md).
 */

/** A new settlement's command to the money core (shared/domain/core/settlement.ts create). */
export type NewSettlement = SettlementCommand & { type: 'create' };

/** The money core's decision on a settlement (shared/domain/core/settlement.ts), its refusal thrown as the answer. */
export function settled(s: Settlement | undefined, command: SettlementCommand, now: Date) {
  const d = decideSettlement(s, command, now);
  if (isRefusal(d)) throw new BusinessRuleError(d.message, d.refused === 'unchanged' ? 'invalid_status' : d.refused);
  return d;
}

/**
 * A new settlement decided by the core, its hold placed (`place`: the wallet shard it takes, recorded on the settlement
 * for its completion or release), and its writes: the settlement item and its hold journal, which moves the wallet's
 * cut-off from the one read now to its own position on every shard (refused as `cutoff` if another settlement moved it
 * first: decide again), at its position decided by the core (holdPositionAt).
 */
export async function settlementWithHold(create: NewSettlement, place: PlaceHold, now: Date) {
  const { state: draft } = settled(undefined, create, now);
  const walletShard = await place({ ...draft, reference: draft.id, need: draft.amountMinor });
  const decision = settled(undefined, { ...create, ...holdShardField(walletShard) }, now);
  const cut = await readCutoffs(draft.merchantId, draft.mode, draft.currency);
  const hold = journalEntry(decision.journals[0]!, draft, holdPositionAt(cut.latest?.position.split('#')[0], now));
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
