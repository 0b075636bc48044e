import type { Mode } from '../credentials.ts';
import { convertMinor, type FxQuote } from '../fx.ts';
import { movements } from '../ledger.ts';
import { merchantMaySubmit, nextSettlementRun, type Fee, type Merchant } from '../merchant.ts';
import type { Failure } from '../outbound.ts';
import { newSettlement, settlementFailureReason, type Settlement, type SettlementInput } from '../settlement.ts';
import { decided, draft, isRefusal, refuse, touchedAt, type Decision, type JournalDraft, type Refusal } from './decision.ts';
import { canSettlementTransition, SettlementStatus, settlementStatusNames } from './machines.ts';

/**
 * Settlements: the whole amount is held from creation (available → held:Settlement) until Completed (the net paid to
 * the rail, the fee to the platform), Failed or Cancelled (released), each exactly once. Approval locks the FX rate;
 * Approved → Processing records the submission before the one submit. The status machine is in ./machines.ts.
 */
export type SettlementCommand =
  /**
   * A new Pending settlement of `input` at the merchant's settlement `fee` (its fee and net: newSettlement), its hold on
   * `walletShard`; refused as amount_too_small when the fee takes it all, or, converting with the rate `quote`d now,
   * when the net pays out nothing (the rate itself is locked at approval).
   */
  | {
      type: 'create';
      id: string;
      owner: SettlementOwner;
      input: SettlementInput;
      fee: Fee;
      isAuto: boolean;
      quote?: Quote;
      walletShard?: number;
    }
  /**
   * Approval locks the FX rate of a converting settlement: its payout is the net converted at the rate `quote`d now
   * (rounded down), refused as amount_too_small when that is nothing, and as fx_unavailable without a quote.
   */
  | { type: 'approve'; quote?: Quote }
  | { type: 'submit' }
  /**
   * The rail accepted the outstanding submission: its reference recorded, unless one is already (an inquiry that
   * moved it on first keeps its own); the status stays Processing until the rail's answer completes or fails it.
   */
  | { type: 'accepted'; railReference: string | null }
  | { type: 'cancel'; failureReason: string }
  | { type: 'complete'; ledgerAccount: string; railReference?: string | null }
  | { type: 'fail'; failure: Failure };

export type SettlementOwner = { merchantId: string; mode: Mode; traceId: string };
/** A rate quoted now for the settlement's pair (shared/domain/fx.ts). */
export type Quote = Pick<FxQuote, 'rate' | 'at'>;

const converting = (s: Pick<Settlement, 'currency' | 'payoutCurrency'>) => s.currency !== s.payoutCurrency;
const payoutAt = (s: Settlement, quote: Quote) => convertMinor(s.netMinor, s.currency, s.payoutCurrency, quote.rate);

/** The FX lock at approval (see `approve`): the settlement's payout fields, or the refusal. */
function fxLock(s: Settlement, quote: Quote | undefined, now: Date): Partial<Settlement> | Refusal {
  if (!converting(s)) return {};
  if (!quote)
    return refuse(
      'fx_unavailable',
      `No exchange rate is available for ${s.currency} to ${s.payoutCurrency} now; try again later or reject.`,
    );
  const payoutMinor = payoutAt(s, quote);
  if (payoutMinor <= 0)
    return refuse('amount_too_small', `At the current rate the net amount pays out nothing in ${s.payoutCurrency}; reject it.`);
  return { fxRate: quote.rate, fxRateTimestamp: now.toISOString(), payoutMinor };
}

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
  const next: Settlement = { ...s, ...changes, status: to, updatedAt: touchedAt(s.updatedAt, now), version: s.version + 1 };
  return decided(next, j, [{ object: 'settlement', id: s.id, from: s.status, to }]);
}

/**
 * A submission is outstanding: the settlement is Processing (submitted once, its rail's answer not final yet), so an
 * answer of its rail (accepted, completed, failed) or its status inquiry is still about it; anything else it moved to
 * meanwhile stands.
 */
export const settlementOutstanding = (s: Pick<Settlement, 'status'>) => s.status === SettlementStatus.Processing;

export function decideSettlement(s: Settlement | undefined, command: SettlementCommand, now: Date): Decision<Settlement> {
  if (command.type === 'create') {
    if (s) return refuse('unchanged', `Settlement ${s.id} exists.`);
    const { owner, input, fee, isAuto, id, quote, walletShard } = command;
    const settlement = newSettlement(owner, input, fee, isAuto, now, id);
    if (settlement === 'amount_too_small') return refuse('amount_too_small', 'The amount does not cover the settlement fee.');
    if (converting(settlement) && quote && payoutAt(settlement, quote) <= 0)
      return refuse('amount_too_small', `The net amount is too small to pay out in ${input.payoutCurrency}.`);
    const created = walletShard ? { ...settlement, walletShard } : settlement;
    return decided(created, [journals.hold(created)], [{ object: 'settlement', id: created.id, from: null, to: created.status }]);
  }
  if (!s) return refuse('not_found', 'No such settlement.');
  const at = now.toISOString();
  switch (command.type) {
    case 'approve': {
      const fx = fxLock(s, command.quote, now);
      return 'refused' in fx ? fx : move(s, SettlementStatus.Approved, { approvedAt: at, ...fx }, now);
    }
    case 'submit':
      return move(s, SettlementStatus.Processing, { submittedAt: at }, now);
    case 'accepted':
      if (!settlementOutstanding(s)) return refuse('invalid_status', `Settlement ${s.id} is ${settlementStatusNames[s.status]}.`);
      if (s.railReference !== null) return refuse('unchanged', `Settlement ${s.id} has its rail reference.`);
      return decided({ ...s, railReference: command.railReference, updatedAt: touchedAt(s.updatedAt, now), version: s.version + 1 });
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

/**
 * When a new settlement's hold is positioned in its wallet's journal (its cut-off: where its breakdown's window ends):
 * now, but never at or before the previous settlement's cut-off (`previousCutoffAt`); on a clock behind it, the ms after.
 */
export const holdPositionAt = (previousCutoffAt: string | undefined, now: Date): Date =>
  previousCutoffAt !== undefined && now.toISOString() <= previousCutoffAt ? new Date(Date.parse(previousCutoffAt) + 1) : now;

/** When a merchant's automatic settlement runs next after `now` (its schedule; null: manual, never). Written once. */
export const nextAutoSettlementRunAt = (schedule: Merchant['settlementSchedule'], now: Date): string | null =>
  nextSettlementRun(schedule, now)?.toISOString() ?? null;

/** A due automatic-settlement run: whose, when it was due, and the id its settlement takes (the same every time). */
export interface AutoSettlementRun {
  merchantId: string;
  mode: Mode;
  runAt: string;
  id: string;
}
export type AutoSettlementMerchant = Pick<Merchant, 'status' | 'settlementSchedule' | 'defaultCurrency' | 'fees'>;

/**
 * A due automatic-settlement run (the merchant's schedule): the settlement to create, if any (then `create`, the
 * command decided with its hold), and when the run is due next. Something is settled only when the merchant may move
 * money, its schedule has a bank account, a rail exists in the mode and the available balance above the schedule's
 * minimum is more than 0 and covers the fee: all of it, in the merchant's currency (no conversion).
 */
export function decideAutoSettlement(
  run: AutoSettlementRun,
  merchant: AutoSettlementMerchant | undefined,
  availableMinor: number | undefined,
  railExists: boolean,
  now: Date,
): { nextRunAt: string | null; create?: SettlementCommand & { type: 'create' } } {
  const schedule = merchant?.settlementSchedule;
  const nextRunAt = schedule ? nextAutoSettlementRunAt(schedule, now) : null;
  const amountMinor = availableMinor === undefined ? 0 : availableMinor - (schedule?.minimumBalanceMinor ?? 0);
  if (!merchant || !merchantMaySubmit(merchant) || !schedule?.destination || !railExists || amountMinor <= 0) return { nextRunAt };
  const { bankName, iban, accountTitle } = schedule.destination;
  const [currency, owner] = [merchant.defaultCurrency, { merchantId: run.merchantId, mode: run.mode, traceId: `autosettle-${run.runAt}` }];
  const input = { amountMinor, currency, payoutCurrency: currency, destination: { type: 'bank' as const, bankName, iban, accountTitle } };
  const create = { type: 'create' as const, id: run.id, owner, input, fee: merchant.fees.settlement, isAuto: true };
  // The balance may not cover the fee: then nothing to settle.
  return isRefusal(decideSettlement(undefined, create, now)) ? { nextRunAt } : { nextRunAt, create };
}
