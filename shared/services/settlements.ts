import { randomUUID } from 'node:crypto';
import type { Mode } from '#shared/domain/credentials.ts';
import { BusinessRuleError, NotFoundError } from '#shared/domain/errors.ts';
import { convertMinor } from '#shared/domain/fx.ts';
import type { Fee } from '#shared/domain/merchant.ts';
import { fromMinor, type Currency } from '#shared/domain/money.ts';
import {
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
import { rateSourceFor } from '#shared/providers/fx-rates.ts';
import { railFor } from '#shared/providers/rails.ts';
import type { SettlementInstruction } from '#shared/providers/settlement-rail.ts';
import { merchantMaySubmitNow } from '#shared/services/merchant-gate.ts';
import type { FinalChange } from '#shared/store/request.ts';
import {
  createSettlementWrite,
  getSettlement,
  listSettlements,
  settlementChange,
  settlementEventWrites,
  type SettlementQuery,
} from '#shared/store/settlements.ts';
import type { VersionedChange } from '#shared/store/versioned.ts';
import { getWallet, postJournal } from '#shared/store/wallets.ts';
import { moneyItems } from './money-items.ts';
import { inquireOrLater, later, submitOnce, type OutboundProduct } from './outbound.ts';

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
const railUnavailable = () =>
  new BusinessRuleError(
    'Settlements are not available in live mode: no settlement rail is configured for this deployment.',
    'settlement_rail_unavailable',
  );

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
  if (!settlementRail(caller.mode)) throw railUnavailable();
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

/** POST /Settlements: the settlement with its hold (refused by the wallet's no-overdraft condition). */
export async function createSettlement(caller: Caller, input: SettlementInput, now = new Date()): Promise<FinalChange<SettlementView>> {
  if (!settlementRail(caller.mode)) throw railUnavailable();
  const settlement = newSettlement(caller, input, caller.fee, false, now, randomUUID());
  if (settlement === 'amount_too_small') throw new BusinessRuleError('The amount does not cover the settlement fee.', 'amount_too_small');
  if (settlement.payoutMinor === null) await checkConversion(caller.mode, input.currency, input.payoutCurrency, settlement.netMinor, now);
  const { merchantId, mode, currency } = settlement;
  return {
    writes: [createSettlementWrite(settlement), ...postJournal(settlementJournals.hold(settlement, now))],
    response: settlementView(settlement),
    debits: settlement,
    refused: async (failed) => {
      if (!failed.on('wallet')) return undefined;
      const available = fromMinor((await getWallet(merchantId, mode, currency, true)).available, currency);
      return new BusinessRuleError(
        `Insufficient available balance: ${available} ${currency} available, ${fromMinor(input.amountMinor, currency)} ${currency} requested.`,
        'insufficient_balance',
      );
    },
    committed: () => logger.info('settlement created', { settlementId: settlement.id, merchantId, mode, isAuto: false }),
  };
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

/** Read → decide → commit with the status event; the operator's commands on a Pending settlement. */
const items = moneyItems({
  subject: 'settlement',
  read: getSettlement,
  writes: { change: settlementChange, eventWrites: settlementEventWrites },
  statusNames: settlementStatusNames,
  finalFrom: SettlementStatus.Completed,
  pending: SettlementStatus.Pending,
});
const change = items.write;
const commit = async (id: string, decide: (current: Settlement) => Change | null) => (await items.change(id, decide)).value;

const released = (
  s: Settlement,
  status: SettlementStatus,
  failureReason: string,
  journal: 'settlement.failed' | 'settlement.cancelled',
  now: Date,
  more = {},
) => change(s, { status, failureReason, ...more }, null, now, ...postJournal(settlementJournals.released(s, journal, now)));
const failed = (s: Settlement, failureReason: string, now: Date) =>
  released(s, SettlementStatus.Failed, failureReason, 'settlement.failed', now, { processedAt: now.toISOString() });

/** Operator: Pending → Approved, locking the FX rate when converting; processing starts at once. */
export async function approveSettlement(id: string, now: () => Date = () => new Date()) {
  const at = now();
  const approved = await items.operator(id, 'approved', async (s) => {
    const lock: Partial<Settlement> = {};
    if (s.currency !== s.payoutCurrency) {
      const quote = await rateSourceFor(s.mode)?.quote(s.currency, s.payoutCurrency, at);
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
  });
  return settlementView(approved);
}

/** Operator: Pending → Cancelled, the hold released. `failureReason` tells the merchant why. */
const cancelWith = async (id: string, failureReason: string, action: string, now: () => Date) =>
  settlementView(
    await items.operator(id, action, (s) => released(s, SettlementStatus.Cancelled, failureReason, 'settlement.cancelled', now())),
  );

export const rejectSettlement = (id: string, reason?: string, now: () => Date = () => new Date()) =>
  cancelWith(id, reason ? `Rejected by the operator: ${reason}` : 'Rejected by the operator.', 'rejected', now);

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
  outstanding: (current) => current.status === SettlementStatus.Processing,
  commit: (asked, decide) => commit(asked.id, decide),
  // If an inquiry already moved it on (its schedule stands), only the reference is recorded.
  accepted: ({ current, asked, rail, now }, answer) => {
    if (current.railReference !== null) return null;
    const dueAt = current.version === asked.version ? later(now, rail.timings.firstCheckAfterMs) : undefined;
    return change(current, { railReference: answer.providerReference }, dueAt, now);
  },
  completed: ({ current, rail, now }) =>
    change(
      current,
      { status: SettlementStatus.Completed, processedAt: now.toISOString(), failureReason: null },
      null,
      now,
      ...postJournal(settlementJournals.completed(current, rail.ledgerAccount, now)),
    ),
  failed: ({ current, now }, why) => failed(current, settlementFailureReason(why), now),
  dueAgain: ({ current, now }, dueAt) => change(current, {}, dueAt, now),
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
  const approved = (s: Settlement) => s.status === SettlementStatus.Approved;
  if (approved(current)) {
    if (!rail) return commit(id, (s) => (approved(s) ? failed(s, 'No settlement rail is configured for this mode.', now) : null));
    if (!(await merchantMaySubmitNow(current.merchantId))) return current; // suspended: waits for reactivation
    const processing = { status: SettlementStatus.Processing, submittedAt: now.toISOString() };
    const dueAt = later(now, rail.timings.inquireAfterMs);
    return submitOnce(
      settlements,
      rail,
      now,
      items.change(id, (s) => (approved(s) ? change(s, processing, dueAt, now) : null)),
    );
  }
  if (current.status !== SettlementStatus.Processing) return current;
  return inquireOrLater(settlements, rail, current, now);
}
