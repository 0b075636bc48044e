import { randomUUID } from 'node:crypto';
import type { Mode } from '#shared/domain/credentials.ts';
import { BusinessRuleError, NotFoundError } from '#shared/domain/errors.ts';
import { convertMinor } from '#shared/domain/fx.ts';
import { holdShardField } from '#shared/domain/ledger.ts';
import type { Fee } from '#shared/domain/merchant.ts';
import { fromMinor, type Currency } from '#shared/domain/money.ts';
import { newSettlement, settlementAmounts, settlementView, type SettlementInput, type SettlementView } from '#shared/domain/settlement.ts';
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
import { settlementWithHold } from './settlement-hold.ts';
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
  const draft = newSettlement(owner, input, caller.fee, false, now, randomUUID());
  if (draft === 'amount_too_small') throw new BusinessRuleError('The amount does not cover the settlement fee.', 'amount_too_small');
  if (draft.payoutMinor === null) await checkConversion(caller.mode, input.currency, input.payoutCurrency, draft.netMinor, now);
  // The hold's wallet shard (0 unless sharded) is recorded on the settlement for its completion or release.
  const placed = { ...draft, ...holdShardField(await place({ ...draft, reference: draft.id, need: draft.amountMinor })) };
  // The hold moves the wallet's settlement cut-off (settlement-breakdown.ts): its breakdown's window.
  const { settlement, writes } = await settlementWithHold(placed, now);
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
