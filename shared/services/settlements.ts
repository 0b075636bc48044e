import { randomUUID } from 'node:crypto';
import type { Mode } from '#shared/domain/credentials.ts';
import { BusinessRuleError, NotFoundError } from '#shared/domain/errors.ts';
import { convertMinor } from '#shared/domain/fx.ts';
import type { Fee } from '#shared/domain/merchant.ts';
import { fromMinor, type Currency } from '#shared/domain/money.ts';
import {
  canSettlementTransition,
  newSettlement,
  settlementAmounts,
  settlementFailureReason,
  settlementJournals,
  settlementStatusNames,
  settlementView,
  SettlementStatus,
  type Settlement,
  type SettlementInput,
  type SettlementView,
} from '#shared/domain/settlement.ts';
import { logger } from '#shared/logger.ts';
import { emitOutcome } from '#shared/metrics.ts';
import { rateSourceFor } from '#shared/providers/fx-rates.ts';
import { railFor } from '#shared/providers/rails.ts';
import type { SettlementInstruction } from '#shared/providers/settlement-rail.ts';
import { merchantMaySubmitNow } from '#shared/services/merchant-gate.ts';
import { transact, TransactionFailed, type TxItem } from '#shared/store/client.ts';
import type { RecordResponse } from '#shared/store/idempotency.ts';
import {
  createSettlementWrite,
  getSettlement,
  listSettlements,
  settlementChange,
  settlementEventWrites,
  type SettlementQuery,
} from '#shared/store/settlements.ts';
import { changeVersioned, type VersionedChange } from '#shared/store/versioned.ts';
import { getWallet, postJournal, withFunds } from '#shared/store/wallets.ts';
import { askLater, inquire, later, submitAndRecord, type OutboundProduct } from './outbound.ts';

/**
 * Settlements (docs/merchant-guide.md "Settlements"): declarations over the outbound-transfer
 * engine (shared/services/outbound.ts, docs/architecture.md).
 *
 *   create    ONE transaction: the settlement, its hold journal (available → held:Settlement,
 *             refused by the wallet's no-overdraft condition) and the Idempotency-Key record.
 *   approve   the operator; locks the FX rate and makes it due now. Reject / cancel (Pending only)
 *             → Cancelled, hold released.
 *   process   the sweep: Approved → Processing with the submission record, then the engine's one
 *             submit; a Processing settlement is decided by the rail's status inquiry only.
 */

export type { SettlementInput };

export interface Caller {
  merchantId: string;
  mode: Mode;
  fee: Fee;
  traceId: string;
}

const settlementRail = (mode: Mode) => railFor('settlement', mode);

/** Checks the pair has a rate now and that the net amount converts to something; the rate is locked at approval. */
async function checkConversion(mode: Mode, from: Currency, to: Currency, netMinor: number, now: Date) {
  const source = rateSourceFor(mode);
  if (!source)
    throw new BusinessRuleError(`Currency conversion is not available in ${mode} mode: no FX rate source is configured.`, 'fx_unavailable');
  const quote = await source.quote(from, to, now);
  if (!quote) throw new BusinessRuleError(`No exchange rate is available for ${from} to ${to}.`, 'fx_pair_unsupported');
  if (convertMinor(netMinor, from, to, quote.rate) <= 0)
    throw new BusinessRuleError(`The net amount is too small to pay out in ${to}.`, 'amount_too_small');
}

/**
 * What a settlement request would be, before it is made (the dashboard shows it to confirm): the
 * fee, the net amount and, when converting, the rate quoted now and the payout it gives. The rate
 * is indicative: it is locked when the settlement is approved. Refused exactly as createSettlement
 * would be (no rail, no rate, amount too small).
 */
export async function previewSettlement(caller: Omit<Caller, 'traceId'>, input: Omit<SettlementInput, 'destination'>, now = new Date()) {
  if (!settlementRail(caller.mode))
    throw new BusinessRuleError(
      'Settlements are not available in live mode: no settlement rail is configured for this deployment.',
      'settlement_rail_unavailable',
    );
  const { feeMinor, netMinor } = settlementAmounts(input.amountMinor, caller.fee);
  if (netMinor <= 0) throw new BusinessRuleError('The amount does not cover the settlement fee.', 'amount_too_small');
  let fx: { rate: string; at: string; payoutMinor: number } | null = null;
  if (input.currency !== input.payoutCurrency) {
    await checkConversion(caller.mode, input.currency, input.payoutCurrency, netMinor, now);
    const quote = (await rateSourceFor(caller.mode)!.quote(input.currency, input.payoutCurrency, now))!;
    fx = { rate: quote.rate, at: quote.at, payoutMinor: convertMinor(netMinor, input.currency, input.payoutCurrency, quote.rate) };
  }
  return {
    amount: fromMinor(input.amountMinor, input.currency),
    currency: input.currency,
    fee: fromMinor(feeMinor, input.currency),
    netAmount: fromMinor(netMinor, input.currency),
    payoutCurrency: input.payoutCurrency,
    payoutAmount: fx ? fromMinor(fx.payoutMinor, input.payoutCurrency) : fromMinor(netMinor, input.currency),
    fxRate: fx?.rate ?? null,
    fxRateAt: fx?.at ?? null,
  };
}

/**
 * POST /Settlements. `recordResponse(view)` returns the Idempotency-Key record committed with it (or
 * nothing); the settlement, its hold and that record are ONE transaction.
 */
export async function createSettlement(
  caller: Caller,
  input: SettlementInput,
  recordResponse: RecordResponse<SettlementView>,
  now = new Date(),
): Promise<SettlementView> {
  if (!settlementRail(caller.mode))
    throw new BusinessRuleError(
      'Settlements are not available in live mode: no settlement rail is configured for this deployment.',
      'settlement_rail_unavailable',
    );
  const settlement = newSettlement(caller, input, caller.fee, false, now, randomUUID());
  if (settlement === 'amount_too_small') throw new BusinessRuleError('The amount does not cover the settlement fee.', 'amount_too_small');
  if (settlement.payoutMinor === null) await checkConversion(caller.mode, input.currency, input.payoutCurrency, settlement.netMinor, now);
  const view = settlementView(settlement);
  try {
    const idempotency = recordResponse(view);
    await withFunds(settlement, () =>
      transact([createSettlementWrite(settlement), ...postJournal(settlementJournals.hold(settlement, now))], { idempotency }),
    );
  } catch (error) {
    if (!(error instanceof TransactionFailed && error.on('wallet'))) throw error;
    const wallet = await getWallet(settlement.merchantId, settlement.mode, settlement.currency, true);
    throw new BusinessRuleError(
      `Insufficient available balance: ${fromMinor(wallet.available, input.currency)} ${input.currency} ` +
        `available, ${fromMinor(input.amountMinor, input.currency)} ${input.currency} requested.`,
      'insufficient_balance',
    );
  }
  logger.info('settlement created', { settlementId: settlement.id, merchantId: caller.merchantId, mode: caller.mode, isAuto: false });
  return view;
}

/** GET /Settlements/{id}: another merchant's or mode's settlement does not exist. */
export async function settlementFor(merchantId: string, mode: Mode, id: string): Promise<SettlementView> {
  const s = await getSettlement(id);
  if (!s || s.merchantId !== merchantId || s.mode !== mode) throw new NotFoundError(`No settlement with id ${id}.`);
  return settlementView(s);
}

/** GET /Settlements: one page. A foreign MerchantId filter gives an empty page. */
export async function settlementPage(merchantId: string, mode: Mode, query: SettlementQuery & { merchantIdFilter?: string }) {
  const { merchantIdFilter, ...q } = query;
  const { items, totalCount } =
    merchantIdFilter !== undefined && merchantIdFilter.toLowerCase() !== merchantId.toLowerCase()
      ? { items: [], totalCount: 0 }
      : await listSettlements(merchantId, mode, q);
  const totalPages = Math.ceil(totalCount / q.pageSize);
  return { items: items.map(settlementView), page: q.page, pageSize: q.pageSize, totalCount, totalPages, hasMore: q.page < totalPages };
}

type Change = VersionedChange<Settlement>;

/** Read → decide → one conditional transaction, retried on a lost race; a final status counts once. */
async function changeSettlement(id: string, decide: (current: Settlement) => Promise<Change | null> | Change | null) {
  // A status change commits with its SettlementStatusChanged event in the same transaction.
  const withEvent = async (s: Settlement): Promise<Change | null> => {
    const c = await decide(s);
    return c && { next: c.next, writes: [...c.writes, ...settlementEventWrites(s, c.next)] };
  };
  const result = await changeVersioned('settlement', () => getSettlement(id), withEvent, {
    label: `settlement ${id}`,
    committed: (before, after) =>
      after.status !== before.status &&
      after.status >= SettlementStatus.Completed &&
      emitOutcome('settlement', settlementStatusNames[after.status], after.amountMinor),
  });
  return { settlement: result.value, changed: result.changed };
}

/** settlementChange with extra writes in the same transaction. */
function change(s: Settlement, changes: Partial<Settlement>, dueAt: string | null | undefined, now: Date, ...extra: TxItem[]): Change {
  const { next, write } = settlementChange(s, changes, dueAt, now);
  return { next, writes: [write, ...extra] };
}

const failed = (s: Settlement, failureReason: string, now: Date) =>
  change(
    s,
    { status: SettlementStatus.Failed, failureReason, processedAt: now.toISOString() },
    null,
    now,
    ...postJournal(settlementJournals.released(s, 'settlement.failed', now)),
  );

async function operatorChange(
  id: string,
  to: SettlementStatus,
  action: string,
  decide: (s: Settlement, now: Date) => Promise<Change>,
  now: () => Date,
) {
  const { settlement } = await changeSettlement(id, (s) => {
    if (!canSettlementTransition(s.status, to)) {
      throw new BusinessRuleError(
        `Settlement ${s.id} is ${settlementStatusNames[s.status]}; only a Pending settlement can be ${action}.`,
        'invalid_status',
      );
    }
    return decide(s, now());
  });
  if (!settlement) throw new NotFoundError(`No settlement with id ${id}.`);
  return settlementView(settlement);
}

/** Operator: Pending → Approved, locking the FX rate when converting; processing starts at once. */
export function approveSettlement(id: string, now: () => Date = () => new Date()) {
  return operatorChange(
    id,
    SettlementStatus.Approved,
    'approved',
    async (s, at) => {
      const lock: Partial<Settlement> = {};
      if (s.currency !== s.payoutCurrency) {
        const source = rateSourceFor(s.mode);
        const quote = source && (await source.quote(s.currency, s.payoutCurrency, at));
        if (!quote)
          throw new BusinessRuleError(
            `No exchange rate is available for ${s.currency} to ${s.payoutCurrency} now; try again later or reject.`,
            'fx_unavailable',
          );
        const payoutMinor = convertMinor(s.netMinor, s.currency, s.payoutCurrency, quote.rate);
        if (payoutMinor <= 0)
          throw new BusinessRuleError(
            `At the current rate the net amount pays out nothing in ${s.payoutCurrency}; reject it.`,
            'amount_too_small',
          );
        Object.assign(lock, { fxRate: quote.rate, fxRateTimestamp: at.toISOString(), payoutMinor });
      }
      return change(s, { status: SettlementStatus.Approved, approvedAt: at.toISOString(), ...lock }, at.toISOString(), at);
    },
    now,
  );
}

/** Operator: Pending → Cancelled, the hold released. `failureReason` tells the merchant why. */
const cancelWith = (id: string, failureReason: string, action: string, now: () => Date) =>
  operatorChange(
    id,
    SettlementStatus.Cancelled,
    action,
    async (s, at) =>
      change(
        s,
        { status: SettlementStatus.Cancelled, failureReason },
        null,
        at,
        ...postJournal(settlementJournals.released(s, 'settlement.cancelled', at)),
      ),
    now,
  );

/** Pending → Cancelled; `by` names who rejected it in `failureReason` (the operator, or a dashboard approver's e-mail). */
export const rejectSettlement = (id: string, reason?: string, now: () => Date = () => new Date(), by = 'the operator') =>
  cancelWith(id, reason ? `Rejected by ${by}: ${reason}` : `Rejected by ${by}.`, 'rejected', now);

export const cancelSettlement = (id: string, now: () => Date = () => new Date()) =>
  cancelWith(id, 'Cancelled by the operator.', 'cancelled', now);

/** The submission record's time; settlements stored before it existed were submitted when they became Processing. */
const submittedAtOf = (s: Settlement) => s.submittedAt ?? s.updatedAt;

/** Settlements over the outbound-transfer engine: their instruction and transitions. */
const settlements: OutboundProduct<Settlement, SettlementInstruction, Change> = {
  who: 'settlement rail',
  context: (s) => ({ settlementId: s.id }),
  instruction: (s) => ({
    reference: s.id,
    payoutMinor: s.payoutMinor ?? s.netMinor,
    payoutCurrency: s.payoutCurrency,
    destination: s.destination,
    submittedAt: submittedAtOf(s),
  }),
  submittedAt: submittedAtOf,
  outstanding: (current) => current.status === SettlementStatus.Processing,
  commit: async (asked, decide) => (await changeSettlement(asked.id, decide)).settlement,
  // If an inquiry already moved it on (its schedule stands), only the reference is recorded.
  accepted: ({ current, asked, rail, now }, answer) =>
    current.railReference !== null
      ? null
      : change(
          current,
          { railReference: answer.providerReference },
          current.version === asked.version ? later(now, rail.timings.firstCheckAfterMs) : undefined,
          now,
        ),
  completed: ({ current, rail, now }) =>
    change(
      current,
      { status: SettlementStatus.Completed, processedAt: now.toISOString(), failureReason: null },
      null,
      now,
      ...postJournal(settlementJournals.completed(current, rail.ledgerAccount, now)),
    ),
  failed: ({ current, now }, why) => failed(current, settlementFailureReason(why), now),
  // A settlement stored before the submission record existed gets one now (its grace starts at the latest).
  dueAgain: ({ current, now }, dueAt) => change(current, current.submittedAt ? {} : { submittedAt: current.updatedAt }, dueAt, now),
};

/**
 * One step of processing, when the settlement is due (the sweep; tests call it directly):
 *   Approved    → Processing WITH the submission record (one version-conditioned commit), then the
 *                 ONE submit to the rail and its answer (shared/services/outbound.ts)
 *   Processing  → the rail's status inquiry, never a second submit.
 * Returns the settlement after the step.
 */
export async function advanceSettlement(id: string, now = new Date()): Promise<Settlement | undefined> {
  const current = await getSettlement(id);
  if (!current) return undefined;
  const rail = settlementRail(current.mode);
  if (current.status === SettlementStatus.Approved) {
    if (!rail)
      return (
        await changeSettlement(id, (s) =>
          s.status === SettlementStatus.Approved ? failed(s, 'No settlement rail is configured for this mode.', now) : null,
        )
      ).settlement;
    if (!(await merchantMaySubmitNow(current.merchantId))) return current; // suspended: waits for reactivation
    // The submission record: only the sweep whose write lands here submits, and only this once.
    const claim = await changeSettlement(id, (s) =>
      s.status === SettlementStatus.Approved
        ? change(s, { status: SettlementStatus.Processing, submittedAt: now.toISOString() }, later(now, rail.timings.inquireAfterMs), now)
        : null,
    );
    return claim.changed ? submitAndRecord(settlements, rail, claim.settlement!, now) : claim.settlement;
  }
  if (current.status !== SettlementStatus.Processing) return current;
  if (rail) return inquire(settlements, rail, current, now);
  logger.error('settlement cannot be reconciled: no settlement rail for its mode', { settlementId: id, mode: current.mode });
  return askLater(settlements, rail, current, now);
}
