import { movements } from '../ledger.ts';
import type { Failure } from '../outbound.ts';
import { settlementFailureReason, type Settlement } from '../settlement.ts';
import { decided, draft, refuse, type Decision, type JournalDraft } from './decision.ts';
import { canSettlementTransition, SettlementStatus, settlementStatusNames } from './machines.ts';

/**
 * Settlements: the whole amount is held from creation (available → held:Settlement) until Completed (the net paid to
 * the rail, the fee to the platform), Failed or Cancelled (released), each exactly once. Approval locks the FX rate;
 * Approved → Processing records the submission before the one submit. The status machine is in ./machines.ts.
 */
export type SettlementCommand =
  /** `settlement`: the new Pending settlement (shared/domain/settlement.ts newSettlement), on `walletShard`. */
  | { type: 'create'; settlement: Settlement; walletShard?: number }
  | { type: 'approve'; fx?: { payoutMinor: number; fxRate: string; fxRateTimestamp: string } }
  | { type: 'submit' }
  | { type: 'cancel'; failureReason: string }
  | { type: 'complete'; ledgerAccount: string; railReference?: string | null }
  | { type: 'fail'; failure: Failure };

const journals = {
  hold: (s: Settlement) => draft('settlement.hold', s.id, movements.hold('Settlement', s.amountMinor), s.walletShard),
  released: (s: Settlement, kind: 'settlement.cancelled' | 'settlement.failed') =>
    draft(kind, s.id, movements.release('Settlement', s.amountMinor), s.walletShard),
  completed: (s: Settlement, ledgerAccount: string) =>
    draft('settlement.completed', s.id, movements.payOut('Settlement', ledgerAccount, s.netMinor, s.feeMinor), s.walletShard),
};

function move(s: Settlement, to: SettlementStatus, changes: Partial<Settlement>, now: Date, j: JournalDraft[] = []): Decision<Settlement> {
  if (!canSettlementTransition(s.status, to))
    return refuse(
      'invalid_status',
      `Settlement ${s.id} is ${settlementStatusNames[s.status]}; it cannot become ${settlementStatusNames[to]}.`,
    );
  const next: Settlement = { ...s, ...changes, status: to, updatedAt: now.toISOString(), version: s.version + 1 };
  return decided(next, j, [{ object: 'settlement', id: s.id, from: s.status, to }]);
}

export function decideSettlement(s: Settlement | undefined, command: SettlementCommand, now: Date): Decision<Settlement> {
  if (command.type === 'create') {
    if (s) return refuse('unchanged', `Settlement ${s.id} exists.`);
    const created = command.walletShard ? { ...command.settlement, walletShard: command.walletShard } : command.settlement;
    return decided(created, [journals.hold(created)], [{ object: 'settlement', id: created.id, from: null, to: created.status }]);
  }
  if (!s) return refuse('not_found', 'No such settlement.');
  const at = now.toISOString();
  switch (command.type) {
    case 'approve':
      return move(s, SettlementStatus.Approved, { approvedAt: at, ...command.fx }, now);
    case 'submit':
      return move(s, SettlementStatus.Processing, { submittedAt: at }, now);
    case 'cancel':
      if (s.status !== SettlementStatus.Pending)
        return refuse(
          'invalid_status',
          `Settlement ${s.id} is ${settlementStatusNames[s.status]}; only a Pending settlement can be cancelled.`,
        );
      return move(s, SettlementStatus.Cancelled, { failureReason: command.failureReason }, now, [
        journals.released(s, 'settlement.cancelled'),
      ]);
    case 'complete': {
      const rail = command.railReference ? { railReference: command.railReference } : {};
      return move(s, SettlementStatus.Completed, { processedAt: at, failureReason: null, ...rail }, now, [
        journals.completed(s, command.ledgerAccount),
      ]);
    }
    case 'fail':
      return move(s, SettlementStatus.Failed, { processedAt: at, failureReason: settlementFailureReason(command.failure) }, now, [
        journals.released(s, 'settlement.failed'),
      ]);
  }
}
