import { merchantMaySubmitNow } from '#shared/services/merchant-gate.ts';
import { createHash, randomUUID } from 'node:crypto';
import type { Mode } from '#shared/domain/credentials.ts';
import { BusinessRuleError, NotFoundError } from '#shared/domain/errors.ts';
import { convertMinor } from '#shared/domain/fx.ts';
import { holdFunds, journal, releaseHold } from '#shared/domain/ledger.ts';
import { merchantMaySubmit, nextSettlementRun, type Fee } from '#shared/domain/merchant.ts';
import { fromMinor, type Currency } from '#shared/domain/money.ts';
import {
  canSettlementTransition,
  settlementAmounts,
  settlementStatusNames,
  settlementView,
  SettlementStatus,
  type Settlement,
  type SettlementDestination,
  type SettlementView,
} from '#shared/domain/settlement.ts';
import { bounded, later, outboundTimings, pastNotFoundGrace } from './outbound.ts';
import { logger } from '#shared/logger.ts';
import { rateSourceFor } from '#shared/providers/fx-rates.ts';
import { settlementRailFor, type SettlementInstruction, type SettlementRail } from '#shared/providers/settlement-rail.ts';
import { transact, TransactionFailed, type TxItem } from '#shared/store/client.ts';
import { emitOutcome } from '#shared/metrics.ts';
import { getMerchant } from '#shared/store/merchants.ts';
import {
  createSettlementWrite,
  getAutoSettlementRun,
  getSettlement,
  listSettlements,
  rearmAutoSettlementWrite,
  settlementChange,
  settlementEventWrites,
  type SettlementQuery,
} from '#shared/store/settlements.ts';
import { getWallet, postJournal, walletWriteIndex } from '#shared/store/wallets.ts';

/**
 * Settlements (SPEC "Settlement", CONTRACT §6, docs/merchant-guide.md "Settlements").
 *
 *   create    ONE transaction: the settlement item, its hold journal (available → held:Settlement,
 *             refused by the wallet's no-overdraft condition) and the Idempotency-Key record.
 *   approve   the operator; locks the FX rate (rate source of the mode) and makes it due now.
 *   process   the sweep: Approved → Processing with the submission record (submittedAt), committed
 *             BEFORE the one submit (raced by a timeout), so a settlement is submitted at most once.
 *             A thrown / timed-out submit or a crash is an unknown outcome; a Processing settlement
 *             is only ever settled by the rail's status inquiry: Completed (held → rail + fees) or
 *             Failed (held → available); NotFound after a grace period → Failed, hold released.
 *             Reject / cancel (Pending only) → Cancelled, hold released.
 *   auto      a merchant's schedule arms one run item per mode in the due index; each run creates
 *             an isAuto settlement of (available − minimumBalance) to the schedule's bank account.
 */
export class SettlementRefused extends BusinessRuleError {}

export interface SettlementInput {
  amountMinor: number;
  currency: Currency;
  payoutCurrency: Currency;
  destination: SettlementDestination;
}

export interface Caller {
  merchantId: string;
  mode: Mode;
  fee: Fee;
  traceId: string;
}

/** A settlement's own index in every transaction built here: its conditional write comes first. */
const settlementWriteIndex = 0;

const scopeOf = (s: Settlement, now: Date) => ({ merchantId: s.merchantId, mode: s.mode, currency: s.currency, reference: s.id, now });
const holdJournal = (s: Settlement, now: Date) => holdFunds(scopeOf(s, now), 'Settlement', s.amountMinor, 'settlement.hold');
const releaseJournal = (s: Settlement, kind: string, now: Date) => releaseHold(scopeOf(s, now), 'Settlement', s.amountMinor, kind);

function completedJournal(s: Settlement, rail: SettlementRail, now: Date) {
  return journal({
    merchantId: s.merchantId,
    mode: s.mode,
    currency: s.currency,
    kind: 'settlement.completed',
    reference: s.id,
    movements: [
      { account: { kind: 'held', holdType: 'Settlement' }, amount: -s.amountMinor },
      { account: { kind: 'external', name: rail.ledgerAccount }, amount: s.netMinor },
      { account: { kind: 'fees' }, amount: s.feeMinor },
    ],
    now,
  });
}

const railFor = (mode: Mode) => {
  const rail = settlementRailFor(mode);
  if (!rail) throw new SettlementRefused('Settlements are not available in live mode: no settlement rail is configured for this deployment.', 'settlement_rail_unavailable');
  return rail;
};

/** Checks the pair has a rate now and that the net amount converts to something; the rate is locked at approval. */
async function checkConversion(mode: Mode, from: Currency, to: Currency, netMinor: number, now: Date) {
  const source = rateSourceFor(mode);
  if (!source) throw new SettlementRefused(`Currency conversion is not available in ${mode} mode: no FX rate source is configured.`, 'fx_unavailable');
  const quote = await source.quote(from, to, now);
  if (!quote) throw new SettlementRefused(`No exchange rate is available for ${from} to ${to}.`, 'fx_pair_unsupported');
  if (convertMinor(netMinor, from, to, quote.rate) <= 0) throw new SettlementRefused(`The net amount is too small to pay out in ${to}.`, 'amount_too_small');
}

function newSettlement(caller: Omit<Caller, 'fee'>, input: SettlementInput, fee: Fee, isAuto: boolean, now: Date, id: string = randomUUID()): Settlement {
  const { feeMinor, netMinor } = settlementAmounts(input.amountMinor, fee);
  if (netMinor <= 0) throw new SettlementRefused('The amount does not cover the settlement fee.', 'amount_too_small');
  const converting = input.currency !== input.payoutCurrency;
  const at = now.toISOString();
  return {
    id,
    merchantId: caller.merchantId,
    mode: caller.mode,
    currency: input.currency,
    amountMinor: input.amountMinor,
    feeMinor,
    netMinor,
    payoutCurrency: input.payoutCurrency,
    payoutMinor: converting ? null : netMinor,
    fxRate: null,
    fxRateTimestamp: null,
    destination: input.destination,
    status: SettlementStatus.Pending,
    isAuto,
    requestedAt: at,
    approvedAt: null,
    processedAt: null,
    failureReason: null,
    submittedAt: null,
    railReference: null,
    traceId: caller.traceId,
    updatedAt: at,
    version: 1,
  };
}

async function insufficient(s: Settlement): Promise<never> {
  const wallet = await getWallet(s.merchantId, s.mode, s.currency, true);
  throw new SettlementRefused(
    `Insufficient available balance: ${fromMinor(wallet.available, s.currency)} ${s.currency} available, ${fromMinor(s.amountMinor, s.currency)} ${s.currency} requested.`,
    'insufficient_balance',
  );
}

/**
 * What a settlement request would be, before it is made (the dashboard shows it to confirm): the
 * fee, the net amount and, when converting, the rate quoted now and the payout it gives. The rate
 * is indicative: it is locked when the settlement is approved. Refused exactly as createSettlement
 * would be (no rail, no rate, amount too small).
 */
export async function previewSettlement(caller: Omit<Caller, 'traceId'>, input: Omit<SettlementInput, 'destination'>, now = new Date()) {
  railFor(caller.mode);
  const { feeMinor, netMinor } = settlementAmounts(input.amountMinor, caller.fee);
  if (netMinor <= 0) throw new SettlementRefused('The amount does not cover the settlement fee.', 'amount_too_small');
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
 * POST /Settlements. `commit(view)` returns the Idempotency-Key record committed with it (or
 * nothing); the settlement, its hold and that record are ONE transaction.
 */
export async function createSettlement(caller: Caller, input: SettlementInput, commit: (view: SettlementView) => TxItem | undefined, now = new Date()): Promise<SettlementView> {
  railFor(caller.mode);
  const settlement = newSettlement(caller, input, caller.fee, false, now);
  if (settlement.payoutMinor === null) await checkConversion(caller.mode, input.currency, input.payoutCurrency, settlement.netMinor, now);
  const view = settlementView(settlement);
  try {
    await transact([createSettlementWrite(settlement), ...postJournal(holdJournal(settlement, now))], { idempotency: commit(view) });
  } catch (error) {
    if (error instanceof TransactionFailed && error.failedAt(1 + walletWriteIndex)) await insufficient(settlement);
    throw error;
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

/** GET /Settlements: the page envelope of CONTRACT §7. A foreign MerchantId filter gives an empty page. */
export async function settlementPage(merchantId: string, mode: Mode, query: SettlementQuery & { merchantIdFilter?: string }) {
  const { merchantIdFilter, ...q } = query;
  const { items, totalCount } =
    merchantIdFilter !== undefined && merchantIdFilter.toLowerCase() !== merchantId.toLowerCase() ? { items: [], totalCount: 0 } : await listSettlements(merchantId, mode, q);
  const totalPages = Math.ceil(totalCount / q.pageSize);
  return { items: items.map(settlementView), page: q.page, pageSize: q.pageSize, totalCount, totalPages, hasMore: q.page < totalPages };
}

/**
 * Read → decide → one conditional transaction; a lost race (the settlement changed since it was
 * read) reads again and decides again. `decide` returns null to change nothing.
 */
async function changeSettlement(
  id: string,
  decide: (current: Settlement) => Promise<{ next: Settlement; writes: TxItem[] } | null> | { next: Settlement; writes: TxItem[] } | null,
): Promise<{ settlement: Settlement | undefined; changed: boolean }> {
  for (let attempt = 0; attempt < 8; attempt++) {
    const current = await getSettlement(id);
    if (!current) return { settlement: undefined, changed: false };
    const decision = await decide(current);
    if (!decision) return { settlement: current, changed: false };
    try {
      // A status change commits with its SettlementStatusChanged event, last so the writes' indexes stay put.
      await transact([...decision.writes, ...settlementEventWrites(current, decision.next)]);
      if (decision.next.status !== current.status && decision.next.status >= SettlementStatus.Completed) emitOutcome('settlement', settlementStatusNames[decision.next.status], decision.next.amountMinor);
      return { settlement: decision.next, changed: true };
    } catch (error) {
      if (error instanceof TransactionFailed && error.failedAt(settlementWriteIndex)) continue;
      throw error;
    }
  }
  throw new Error(`could not change settlement ${id}: too much contention`);
}

function requireTransition(s: Settlement, to: SettlementStatus, action: string) {
  if (!canSettlementTransition(s.status, to)) {
    throw new SettlementRefused(`Settlement ${s.id} is ${settlementStatusNames[s.status]}; only a Pending settlement can be ${action}.`, 'invalid_status');
  }
}

async function operatorChange(id: string, decide: (s: Settlement, now: Date) => Promise<{ next: Settlement; writes: TxItem[] }>, now: () => Date) {
  const { settlement } = await changeSettlement(id, (s) => decide(s, now()));
  if (!settlement) throw new NotFoundError(`No settlement with id ${id}.`);
  return settlementView(settlement);
}

/** Operator: Pending → Approved, locking the FX rate when converting; processing starts at once. */
export function approveSettlement(id: string, now: () => Date = () => new Date()) {
  return operatorChange(
    id,
    async (s, at) => {
      requireTransition(s, SettlementStatus.Approved, 'approved');
      const lock: Partial<Settlement> = {};
      if (s.currency !== s.payoutCurrency) {
        const source = rateSourceFor(s.mode);
        const quote = source && (await source.quote(s.currency, s.payoutCurrency, at));
        if (!quote) throw new SettlementRefused(`No exchange rate is available for ${s.currency} to ${s.payoutCurrency} now; try again later or reject.`, 'fx_unavailable');
        const payoutMinor = convertMinor(s.netMinor, s.currency, s.payoutCurrency, quote.rate);
        if (payoutMinor <= 0) throw new SettlementRefused(`At the current rate the net amount pays out nothing in ${s.payoutCurrency}; reject it.`, 'amount_too_small');
        Object.assign(lock, { fxRate: quote.rate, fxRateTimestamp: at.toISOString(), payoutMinor });
      }
      const { next, write } = settlementChange(s, { status: SettlementStatus.Approved, approvedAt: at.toISOString(), ...lock }, at.toISOString(), at);
      return { next, writes: [write] };
    },
    now,
  );
}

/** Operator: Pending → Cancelled, the hold released. `rejected` tells the merchant why (failureReason). */
function cancelWith(id: string, failureReason: string, action: string, now: () => Date) {
  return operatorChange(
    id,
    async (s, at) => {
      requireTransition(s, SettlementStatus.Cancelled, action);
      const { next, write } = settlementChange(s, { status: SettlementStatus.Cancelled, failureReason }, null, at);
      return { next, writes: [write, ...postJournal(releaseJournal(s, 'settlement.cancelled', at))] };
    },
    now,
  );
}

export const rejectSettlement = (id: string, reason?: string, now: () => Date = () => new Date()) =>
  cancelWith(id, reason ? `Rejected by the operator: ${reason}` : 'Rejected by the operator.', 'rejected', now);

export const cancelSettlement = (id: string, now: () => Date = () => new Date()) => cancelWith(id, 'Cancelled by the operator.', 'cancelled', now);

const instruction = (s: Settlement): SettlementInstruction => ({
  reference: s.id,
  payoutMinor: s.payoutMinor ?? s.netMinor,
  payoutCurrency: s.payoutCurrency,
  destination: s.destination,
  submittedAt: submittedAtOf(s),
});

/** The submission record's time; settlements stored before it existed were submitted when they became Processing. */
const submittedAtOf = (s: Settlement) => s.submittedAt ?? s.updatedAt;

/** A submission whose answer was never recorded is first asked about (status inquiry) this long after it was recorded. */
const inquireAfterMs = 30_000;
const retryInquiryMs = outboundTimings.reinquireAfterMs;
/** failureReason when the rail never received the submission. Shown to the merchant. */
const notReceivedReason = 'The settlement did not reach the settlement rail; the funds were released.';

function failWrites(s: Settlement, reason: string, now: Date) {
  const { next, write } = settlementChange(s, { status: SettlementStatus.Failed, failureReason: reason, processedAt: now.toISOString() }, null, now);
  return { next, writes: [write, ...postJournal(releaseJournal(s, 'settlement.failed', now))] };
}

/** Only moves a Processing settlement's due time (nothing if it was settled meanwhile). */
async function askAgain(id: string, dueAt: string, now: Date) {
  return (
    await changeSettlement(id, (s) => {
      if (s.status !== SettlementStatus.Processing) return null;
      // A settlement stored before the submission record existed gets one now (its grace starts at the latest).
      const { next, write } = settlementChange(s, s.submittedAt ? {} : { submittedAt: s.updatedAt }, dueAt, now);
      return { next, writes: [write] };
    })
  ).settlement;
}

/**
 * One step of processing, when the settlement is due (the sweep; tests call it directly):
 *   Approved    → Processing WITH the submission record (one version-conditioned commit), then the
 *                 ONE submit to the rail (raced by a timeout), then its answer if it gave one
 *   Processing  → the rail's status inquiry: Completed / Failed / ask again later; NotFound after
 *                 the grace period → Failed, funds released. NEVER submitted again: a thrown or
 *                 timed-out submit, a crash before its answer was recorded, or a slow submit still
 *                 running elsewhere are all settled here.
 * Returns the settlement after the step.
 */
export async function advanceSettlement(id: string, now = new Date()): Promise<Settlement | undefined> {
  const current = await getSettlement(id);
  if (!current) return undefined;
  const rail = settlementRailFor(current.mode);
  if (current.status === SettlementStatus.Approved) {
    if (!rail) {
      return (await changeSettlement(id, (s) => (s.status === SettlementStatus.Approved ? failWrites(s, 'No settlement rail is configured for this mode.', now) : null))).settlement;
    }
    if (!(await merchantMaySubmitNow(current.merchantId))) return current; // suspended: waits for reactivation
    // The submission record: only the sweep whose write lands here submits, and only this once.
    const claim = await changeSettlement(id, (s) => {
      if (s.status !== SettlementStatus.Approved) return null;
      const { next, write } = settlementChange(s, { status: SettlementStatus.Processing, submittedAt: now.toISOString() }, later(now, inquireAfterMs), now);
      return { next, writes: [write] };
    });
    if (!claim.changed || !claim.settlement) return claim.settlement;
    return submitOnce(claim.settlement, rail, now);
  }
  if (current.status !== SettlementStatus.Processing) return current;
  if (!rail) {
    logger.error('settlement cannot be reconciled: no settlement rail for its mode', { settlementId: id, mode: current.mode });
    return askAgain(id, later(now, retryInquiryMs), now);
  }
  const answer = await bounded(() => rail.status(instruction(current)), 'settlement rail', { settlementId: id, call: 'status' });
  if ('outcome' in answer) return askAgain(id, later(now, retryInquiryMs), now);
  if (answer.status === 'Processing') return askAgain(id, later(now, rail.pollIntervalMs), now);
  if (answer.status === 'NotFound' && !pastNotFoundGrace(submittedAtOf(current), now)) return askAgain(id, later(now, rail.pollIntervalMs), now);
  const decided = await changeSettlement(id, (s) => {
    if (s.status !== SettlementStatus.Processing) return null;
    if (answer.status === 'Completed') {
      const { next, write } = settlementChange(s, { status: SettlementStatus.Completed, processedAt: now.toISOString(), failureReason: null }, null, now);
      return { next, writes: [write, ...postJournal(completedJournal(s, rail, now))] };
    }
    if (answer.status === 'NotFound') logger.error('settlement never reached the rail: failed, funds released', { settlementId: id, submittedAt: submittedAtOf(s) });
    return failWrites(s, answer.status === 'Failed' ? answer.reason : notReceivedReason, now);
  });
  if (decided.changed) logger.info('settlement outcome', { settlementId: id, status: decided.settlement?.status });
  return decided.settlement;
}

/** The ONE submit of a settlement whose submission record was just written by this caller. */
async function submitOnce(s: Settlement, rail: SettlementRail, now: Date): Promise<Settlement | undefined> {
  const result = await bounded(() => rail.submit(instruction(s)), 'settlement rail', { settlementId: s.id, call: 'submit' });
  // Unknown: stays Processing with its submission record, due for the status inquiry.
  if (result.outcome === 'unknown') return s;
  return (
    await changeSettlement(s.id, (current) => {
      if (current.status !== SettlementStatus.Processing) return null;
      if (result.outcome === 'rejected') return failWrites(current, result.reason, now);
      if (current.railReference !== null) return null;
      // If an inquiry already moved it on (its schedule stands), only the reference is recorded.
      const dueAt = current.version === s.version ? later(now, rail.firstCheckAfterMs) : undefined;
      const { next, write } = settlementChange(current, { railReference: result.railReference }, dueAt, now);
      return { next, writes: [write] };
    })
  ).settlement;
}

/** Deterministic id of the settlement a run creates: a run that is swept twice creates it once. */
function runSettlementId(merchantId: string, mode: Mode, runAt: string): string {
  const h = createHash('sha256').update(`autosettle:${merchantId}:${mode}:${runAt}`).digest('hex');
  return `${h.slice(0, 8)}-${h.slice(8, 12)}-5${h.slice(13, 16)}-${((parseInt(h.slice(16, 17), 16) & 3) | 8).toString(16)}${h.slice(17, 20)}-${h.slice(20, 32)}`;
}

/**
 * A due automatic-settlement run: creates an isAuto settlement of the available balance above the
 * schedule's minimum, to its bank account, in the merchant's currency (no conversion), and moves
 * the run to the next date, in ONE transaction. Nothing to settle (or no rail in this mode): only
 * the run moves. Returns the settlement created, if any.
 */
export async function runAutoSettlement(merchantId: string, mode: Mode, now = new Date()): Promise<SettlementView | undefined> {
  for (let attempt = 0; attempt < 5; attempt++) {
    const run = await getAutoSettlementRun(merchantId, mode);
    if (!run || run.runAt > now.toISOString()) return undefined;
    const merchant = await getMerchant(merchantId);
    const schedule = merchant?.settlementSchedule;
    const nextRunAt = schedule ? (nextSettlementRun(schedule, now)?.toISOString() ?? null) : null;
    const rearm = rearmAutoSettlementWrite(run, nextRunAt);
    const destination = schedule?.destination;
    const wallet = merchant && (await getWallet(merchantId, mode, merchant.defaultCurrency, true));
    const amountMinor = wallet ? wallet.available - (schedule?.minimumBalanceMinor ?? 0) : 0;
    let settlement: Settlement | undefined;
    if (merchant && merchantMaySubmit(merchant) && destination && settlementRailFor(mode) && amountMinor > 0) {
      const input: SettlementInput = {
        amountMinor,
        currency: merchant.defaultCurrency,
        payoutCurrency: merchant.defaultCurrency,
        destination: { type: 'bank', bankName: destination.bankName, iban: destination.iban, accountTitle: destination.accountTitle },
      };
      try {
        settlement = newSettlement({ merchantId, mode, traceId: `autosettle-${run.runAt}` }, input, merchant.fees.settlement, true, now, runSettlementId(merchantId, mode, run.runAt));
      } catch (error) {
        if (!(error instanceof SettlementRefused)) throw error; // the balance does not cover the fee: nothing to settle
      }
    }
    try {
      if (settlement) await transact([rearm, createSettlementWrite(settlement), ...postJournal(holdJournal(settlement, now))]);
      else await transact([rearm]);
    } catch (error) {
      if (error instanceof TransactionFailed && error.failedAt(0)) return undefined; // another sweep ran it
      if (error instanceof TransactionFailed && settlement && (error.failedAt(2 + walletWriteIndex) || error.failedAt(1))) continue; // the balance moved: read again
      throw error;
    }
    if (settlement) logger.info('settlement created', { settlementId: settlement.id, merchantId, mode, isAuto: true });
    return settlement && settlementView(settlement);
  }
  throw new Error(`automatic settlement of ${merchantId} (${mode}) could not be applied: too much contention`);
}
