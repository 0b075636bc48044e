import { settlementStatusNames, settlementView, SettlementStatus, type Settlement } from '#shared/domain/settlement.ts';
import { rateSourceFor } from '#shared/providers/fx-rates.ts';
import { settlementRail } from '#shared/providers/rails.ts';
import type { SettlementInstruction } from '#shared/providers/settlement-rail.ts';
import { merchantMaySubmitNow } from '#shared/services/merchant-gate.ts';
import { getSettlement, settlementChange, settlementEventWrites } from '#shared/store/settlements.ts';
import type { VersionedChange } from '#shared/store/versioned.ts';
import { moneyItems } from './money-items.ts';
import { changedFields, journalWrites } from './commit.ts';
import { isRefusal, type Decision } from '#shared/domain/core/decision.ts';
import { decideSettlement, settlementOutstanding, type SettlementCommand } from '#shared/domain/core/settlement.ts';
import type { Failure } from '#shared/domain/outbound.ts';
import { withBreakdown } from './settlement-breakdown.ts';
import { settled } from './settlement-hold.ts';
import { inquireOrLater, later, submitOnce, type OutboundProduct } from './outbound.ts';

/**
 * Settlements (docs/merchant-guide.md "Settlements"): declarations over the outbound-transfer
 * engine (shared/services/outbound.ts, docs/architecture.md).
 *
 *   create    settlement-requests.ts: the settlement with its hold (available → held:Settlement).
 *   approve   the operator; locks the FX rate and makes it due now. Reject / cancel (Pending only)
 *             → Cancelled, hold released.
 *   process   the sweep: Approved → Processing with the submission record, then the engine's one
 *             submit; a Processing settlement is decided by the rail's status inquiry only.
 */

type Change = VersionedChange<Settlement>;

const writes = { change: settlementChange, eventWrites: settlementEventWrites };
/**
 * Read → decide → commit with the status event; the operator's commands on a Pending settlement. Every status change
 * (and its SettlementStatusChanged) carries the settlement's breakdown: the operator's decision (approve, reject,
 * cancel: always the first change) stores it first; the sweeper's later steps read it stored (`steps`).
 */
const items = /* @__PURE__ */ moneyItems(
  'settlement',
  async (id: string) => withBreakdown(await getSettlement(id)),
  writes,
  settlementStatusNames,
);
const steps = moneyItems('settlement', getSettlement, writes, settlementStatusNames);
const { write: change, commit } = steps;

/**
 * The commit path of a settlement: the core's decision (shared/domain/core/settlement.ts) as the writes of its ONE
 * transaction: the settlement's versioned update with its status event, and its journals on the wallet. A refusal
 * changes nothing (null), or is thrown as the operator's answer (`required`).
 */
function decided(s: Settlement, d: Decision<Settlement>, dueAt: string | null | undefined, now: Date): Change | null {
  if (isRefusal(d)) return null;
  return change(s, changedFields(s, d.state), dueAt, now, ...journalWrites(d.journals, s, now));
}
const required = (s: Settlement, command: SettlementCommand, dueAt: string | null, now: Date): Change =>
  decided(s, settled(s, command, now), dueAt, now)!;
const failed = (s: Settlement, failure: Failure, now: Date) => decided(s, decideSettlement(s, { type: 'fail', failure }, now), null, now);

/** Operator: Pending → Approved, locking the FX rate when converting; processing starts at once. */
export async function approveSettlement(id: string, now: () => Date = () => new Date()) {
  const at = now();
  const approved = await items.operator(id, 'approved', async (s) => {
    // The core locks the rate quoted now (core/settlement.ts approve); it refuses a conversion without one.
    const quote = s.currency === s.payoutCurrency ? undefined : await rateSourceFor(s.mode)?.quote(s.currency, s.payoutCurrency, at);
    return required(s, { type: 'approve', quote }, at.toISOString(), at);
  });
  return settlementView(approved);
}

/** Operator: Pending → Cancelled, the hold released. `failureReason` tells the merchant why. */
const cancelWith = async (id: string, failureReason: string, action: string, now: () => Date) =>
  settlementView(await items.operator(id, action, (s) => required(s, { type: 'cancel', failureReason }, null, now())));

/** Pending → Cancelled; `by` names who rejected it in `failureReason` (the operator, or a dashboard approver's e-mail). */
export const rejectSettlement = (id: string, reason?: string, now: () => Date = () => new Date(), by = 'the operator') =>
  cancelWith(id, reason ? `Rejected by ${by}: ${reason}` : `Rejected by ${by}.`, 'rejected', now);

export const cancelSettlement = (id: string, now: () => Date = () => new Date()) =>
  cancelWith(id, 'Cancelled by the operator.', 'cancelled', now);

/** Settlements over the outbound-transfer engine: their instruction and transitions. */
const settlements: OutboundProduct<Settlement, SettlementInstruction, Change> = {
  who: 'settlement rail',
  context: (s) => ({ settlementId: s.id }),
  instruction: (s) => ({
    reference: s.id,
    payoutMinor: s.payoutMinor ?? s.netMinor,
    payoutCurrency: s.payoutCurrency,
    destination: s.destination,
    submittedAt: s.submittedAt!,
  }),
  submittedAt: (s) => s.submittedAt!,
  outstanding: settlementOutstanding,
  commit: (asked, decide) => commit(asked.id, decide),
  // If an inquiry already moved it on (its schedule stands), only the reference is recorded (core: accepted).
  accepted: ({ current, asked, rail, now }, answer) => {
    const dueAt = current.version === asked.version ? later(now, rail.timings.firstCheckAfterMs) : undefined;
    return decided(current, decideSettlement(current, { type: 'accepted', railReference: answer.providerReference }, now), dueAt, now);
  },
  // The rail's reference of the transfer (a bank file line: the bank's reference) is kept when the rail gives one.
  completed: ({ current, rail, now }, answer) => {
    const complete = { type: 'complete' as const, ledgerAccount: rail.ledgerAccount, railReference: answer.providerReference ?? null };
    return decided(current, decideSettlement(current, complete, now), null, now);
  },
  failed: ({ current, now }, why) => failed(current, why, now),
  dueAgain: ({ current, now }, dueAt) => change(current, {}, dueAt, now),
};

/**
 * One step of processing, when the settlement is due (the sweep; tests call it directly):
 *   Approved    → Processing WITH the submission record (one version-conditioned commit), then the
 *                 ONE submit to the rail and its answer (shared/services/outbound.ts)
 *   Processing  → the rail's status inquiry, never a second submit.
 * Returns the settlement after the step. `railOf`: the rail that holds its submission when the caller
 * knows it (a bank transfer file line marked by the operator), else the mode's settlement rail.
 */
export async function advanceSettlement(id: string, now = new Date(), railOf = settlementRail): Promise<Settlement | undefined> {
  const current = await getSettlement(id);
  if (!current) return undefined;
  const rail = railOf(current.mode, { destination: current.destination });
  const approved = (s: Settlement) => s.status === SettlementStatus.Approved;
  if (approved(current)) {
    const noRail = { kind: 'rejected' as const, reason: 'No settlement rail is configured for this mode.' };
    if (!rail) return commit(id, (s) => (approved(s) ? failed(s, noRail, now) : null));
    if (!(await merchantMaySubmitNow(current.merchantId))) return current; // suspended: waits for reactivation
    const dueAt = later(now, rail.timings.inquireAfterMs);
    return submitOnce(
      settlements,
      rail,
      now,
      // Only an Approved settlement is submitted: the core refuses any other (then nothing is committed or sent).
      steps.change(id, (s) => decided(s, decideSettlement(s, { type: 'submit' }, now), dueAt, now)),
    );
  }
  if (!settlementOutstanding(current)) return current;
  return inquireOrLater(settlements, rail, current, now);
}
