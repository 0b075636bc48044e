import { createHash } from 'node:crypto';
import { again, retry, retryPolicies } from '#shared/retry.ts';
import type { Mode } from '#shared/domain/credentials.ts';
import { merchantMaySubmit, nextSettlementRun } from '#shared/domain/merchant.ts';
import { isRefusal } from '#shared/domain/core/decision.ts';
import { decideSettlement } from '#shared/domain/core/settlement.ts';
import { settlementView, type Settlement, type SettlementView } from '#shared/domain/settlement.ts';
import { logger } from '#shared/logger.ts';
import { settlementRail } from '#shared/providers/rails.ts';
import { cutoffRefused, transact, TransactionFailed } from '#shared/store/client.ts';
import { getMerchant } from '#shared/store/merchants.ts';
import { getAutoSettlementRun, rearmAutoSettlementWrite } from '#shared/store/settlements.ts';
import { getWallet, withFunds } from '#shared/store/wallets.ts';
import { settlementWithHold, type NewSettlement } from './settlement-hold.ts';

/** Deterministic id of the settlement a run creates: a run that is swept twice creates it once. */
function runSettlementId(merchantId: string, mode: Mode, runAt: string): string {
  const h = createHash('sha256').update(`autosettle:${merchantId}:${mode}:${runAt}`).digest('hex');
  const variant = ((parseInt(h.slice(16, 17), 16) & 3) | 8).toString(16);
  return `${h.slice(0, 8)}-${h.slice(8, 12)}-5${h.slice(13, 16)}-${variant}${h.slice(17, 20)}-${h.slice(20, 32)}`;
}

/**
 * A due automatic-settlement run: creates an isAuto settlement of the available balance above the
 * schedule's minimum, to its bank account, in the merchant's currency (no conversion), and moves
 * the run to the next date, in ONE transaction. Nothing to settle (or no rail in this mode): only
 * the run moves. Returns the settlement created, if any.
 */
export async function runAutoSettlement(merchantId: string, mode: Mode, now = new Date()): Promise<SettlementView | undefined> {
  return retry<SettlementView | undefined>(
    retryPolicies.itemRace,
    async () => {
      const run = await getAutoSettlementRun(merchantId, mode);
      if (!run || run.runAt > now.toISOString()) return undefined;
      const merchant = await getMerchant(merchantId);
      const schedule = merchant?.settlementSchedule;
      const nextRunAt = schedule ? (nextSettlementRun(schedule, now)?.toISOString() ?? null) : null;
      const rearm = rearmAutoSettlementWrite(run, nextRunAt);
      const destination = schedule?.destination;
      const wallet = merchant && (await getWallet(merchantId, mode, merchant.defaultCurrency, true));
      const amountMinor = wallet ? wallet.available - (schedule?.minimumBalanceMinor ?? 0) : 0;
      let create: NewSettlement | undefined;
      if (merchant && merchantMaySubmit(merchant) && destination && settlementRail(mode) && amountMinor > 0) {
        const { bankName, iban, accountTitle } = destination;
        const [currency, id] = [merchant.defaultCurrency, runSettlementId(merchantId, mode, run.runAt)];
        const input = {
          amountMinor,
          currency,
          payoutCurrency: currency,
          destination: { type: 'bank' as const, bankName, iban, accountTitle },
        };
        const owner = { merchantId, mode, traceId: `autosettle-${run.runAt}` };
        const c = { type: 'create' as const, id, owner, input, fee: merchant.fees.settlement, isAuto: true };
        // The balance may not cover the fee: then nothing to settle (the core refuses it).
        if (!isRefusal(decideSettlement(undefined, c, now))) create = c;
      }
      let settlement: Settlement | undefined;
      try {
        const c = create;
        if (c)
          await withFunds(async (place) => {
            const held = await settlementWithHold(c, place, now);
            settlement = held.settlement;
            await transact([rearm, ...held.writes]);
          });
        else await transact([rearm]);
      } catch (error) {
        if (error instanceof TransactionFailed && error.on('run')) return undefined; // another sweep ran it
        // the balance moved: read again
        if (error instanceof TransactionFailed && create && (error.on('wallet') || error.on('settlement') || error.on(cutoffRefused)))
          return again;
        throw error;
      }
      if (settlement) logger.info('settlement created', { settlementId: settlement.id, merchantId, mode, isAuto: true });
      return settlement && settlementView(settlement);
    },
    () => new Error(`automatic settlement of ${merchantId} (${mode}) could not be applied: too much contention`),
  );
}
