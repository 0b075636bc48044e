import { randomUUID } from 'node:crypto';
import type { Mode } from '#shared/domain/credentials.ts';
import { BusinessRuleError, NotFoundError } from '#shared/domain/errors.ts';
import type { Fee } from '#shared/domain/merchant.ts';
import { fromMinor, type Currency } from '#shared/domain/money.ts';
import { settlementView, type SettlementInput, type SettlementView } from '#shared/domain/settlement.ts';
import { logger } from '#shared/logger.ts';
import { rateSourceFor } from '#shared/providers/fx-rates.ts';
import { settlementRail } from '#shared/providers/rails.ts';
import type { FinalChange } from '#shared/store/request.ts';
import { settlementMakerWrite, type Maker } from '#shared/store/dashboard.ts';
import { getSettlement, listSettlements, type SettlementQuery } from '#shared/store/settlements.ts';
import { getWallet, type PlaceHold } from '#shared/store/wallets.ts';
/** A settlement holds funds: its request is committed with the wallet's hold placement (shared/store/request.ts, Funds). */
export { withFunds } from '#shared/store/wallets.ts';
import { settlementBreakdown } from './settlement-breakdown.ts';
import { settled, settlementWithHold, type NewSettlement } from './settlement-hold.ts';
import { breakdownView } from '#shared/domain/settlement-breakdown.ts';

/**
 * The merchant's settlement requests (docs/merchant-guide.md "Settlements"): preview, create (ONE
 * transaction: the settlement, its hold journal refused by the wallet's no-overdraft condition,
 * and the Idempotency-Key record, committed by the caller: shared/store/request.ts), read, list.
 * What happens to a settlement after it was requested is in settlements.ts.
 */
export type { SettlementInput };

export interface Caller {
  merchantId: string;
  mode: Mode;
  fee: Fee;
  traceId: string;
  /** Who asked (a dashboard user, or the user who minted the API key): recorded for maker-checker. */
  maker?: Maker;
}

const railUnavailable = () =>
  new BusinessRuleError(
    'Settlements are not available in live mode: no settlement rail is configured for this deployment.',
    'settlement_rail_unavailable',
  );

/** The rate quoted now for a converting settlement (the rate source asked once); none is refused. */
async function quoteNow(mode: Mode, from: Currency, to: Currency, now: Date) {
  const source = rateSourceFor(mode);
  if (!source)
    throw new BusinessRuleError(`Currency conversion is not available in ${mode} mode: no FX rate source is configured.`, 'fx_unavailable');
  const quote = await source.quote(from, to, now);
  if (!quote) throw new BusinessRuleError(`No exchange rate is available for ${from} to ${to}.`, 'fx_pair_unsupported');
  return quote;
}

/** A merchant's settlement request decided by the core (its fee and net), then, converting, with the rate quoted now. */
async function decideNew(owner: Omit<Caller, 'maker'>, input: SettlementInput, id: string, now: Date) {
  const plain: NewSettlement = { type: 'create', id, owner, input, fee: owner.fee, isAuto: false };
  if (settled(undefined, plain, now).state.payoutMinor !== null) return { create: plain, quote: undefined };
  const create = { ...plain, quote: await quoteNow(owner.mode, input.currency, input.payoutCurrency, now) };
  return { create, quote: create.quote };
}

/**
 * What a settlement request would be, before it is made (the dashboard shows it to confirm): the
 * fee, the net amount and, when converting, the rate quoted now and the payout it gives. The rate
 * is indicative: it is locked when the settlement is approved. Refused exactly as createSettlement
 * would be (no rail, no rate, amount too small): a dry run of the core's create and approval.
 */
export async function previewSettlement(caller: Omit<Caller, 'traceId'>, input: SettlementInput, now = new Date()) {
  if (!settlementRail(caller.mode)) throw railUnavailable();
  const { create, quote } = await decideNew({ ...caller, traceId: 'preview' }, input, 'preview', now);
  const settlement = settled(undefined, create, now).state;
  const { payoutMinor } = quote ? settled(settlement, { type: 'approve', quote }, now).state : settlement;
  return {
    amount: fromMinor(input.amountMinor, input.currency),
    currency: input.currency,
    fee: fromMinor(settlement.feeMinor, input.currency),
    netAmount: fromMinor(settlement.netMinor, input.currency),
    payoutCurrency: input.payoutCurrency,
    payoutAmount: fromMinor(payoutMinor!, input.payoutCurrency),
    fxRate: quote?.rate ?? null,
    fxRateAt: quote?.at ?? null,
  };
}

/** POST /Settlements: the settlement with its hold (refused by the wallet's no-overdraft condition). */
export async function createSettlement(
  caller: Caller,
  input: SettlementInput,
  place: PlaceHold,
  now = new Date(),
): Promise<FinalChange<SettlementView>> {
  const { maker, ...owner } = caller;
  const rail = settlementRail(caller.mode, { destination: input.destination });
  if (!rail) throw railUnavailable();
  const refusal = rail.refuses?.({ destination: input.destination });
  if (refusal) throw new BusinessRuleError(refusal, 'settlement_rail_unavailable');
  const { create } = await decideNew(owner, input, randomUUID(), now);
  // The hold moves the wallet's settlement cut-off (settlement-breakdown.ts): its breakdown's window.
  const { settlement, writes } = await settlementWithHold(create, place, now);
  const { merchantId, mode, currency } = settlement;
  // The maker (maker-checker) in the settlement's own transaction.
  const made = maker
    ? [settlementMakerWrite({ ...maker, settlementId: settlement.id, merchantId, mode, createdAt: now.toISOString() })]
    : [];
  return {
    writes: [...writes, ...made],
    response: settlementView(settlement),
    refused: async (failed) => {
      if (!failed.on('wallet')) return undefined;
      const available = fromMinor((await getWallet(merchantId, mode, currency, true)).available, currency);
      return new BusinessRuleError(
        `Insufficient available balance: ${available} ${currency} available, ` +
          `${fromMinor(input.amountMinor, currency)} ${currency} requested.`,
        'insufficient_balance',
      );
    },
    committed: () => logger.info('settlement created', { settlementId: settlement.id, merchantId, mode, isAuto: false }),
  };
}

/**
 * GET /Settlements/{id}: another merchant's or mode's settlement does not exist. With its breakdown (merchant guide,
 * Settlement breakdowns) and `breakdownStatus`: available; computing (a large window summed in the background, null
 * until then); unavailable (a settlement from before breakdowns existed).
 */
export async function settlementFor(merchantId: string, mode: Mode, id: string) {
  const s = await getSettlement(id);
  if (!s || s.merchantId !== merchantId || s.mode !== mode) throw new NotFoundError(`No settlement with id ${id}.`);
  const b = await settlementBreakdown(s);
  const ready = b !== 'computing' ? b : null;
  return {
    ...settlementView(s),
    breakdown: ready && breakdownView(ready, s.currency),
    breakdownStatus: b === 'computing' ? ('computing' as const) : b ? ('available' as const) : ('unavailable' as const),
  };
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
