import { createHash } from 'node:crypto';
import { again, retry, retryPolicies } from '#shared/retry.ts';
import type { Mode } from '#shared/domain/credentials.ts';
import { decideAutoSettlement } from '#shared/domain/core/settlement.ts';
import { settlementView, type Settlement, type SettlementView } from '#shared/domain/settlement.ts';
import { logger } from '#shared/logger.ts';
import { settlementRail } from '#shared/providers/rails.ts';
import { cutoffRefused, transact, TransactionFailed } from '#shared/store/client.ts';
import { getMerchant } from '#shared/store/merchants.ts';
import { getAutoSettlementRun, rearmAutoSettlementWrite } from '#shared/store/settlements.ts';
import { getWallet, withFunds } from '#shared/store/wallets.ts';
import { settlementWithHold } from './settlement-hold.ts';

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
      const wallet = merchant && (await getWallet(merchantId, mode, merchant.defaultCurrency, true));
      // The money core decides what the run settles and when it runs next (core/settlement.ts decideAutoSettlement).
      const at = { merchantId, mode, runAt: run.runAt, id: runSettlementId(merchantId, mode, run.runAt) };
      const { create, nextRunAt } = decideAutoSettlement(at, merchant, wallet?.available, !!settlementRail(mode), now);
      const rearm = rearmAutoSettlementWrite(run, nextRunAt);
      let settlement: Settlement | undefined;
      try {
        if (create)
          await withFunds(async (place) => {
            const held = await settlementWithHold(create, place, now);
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
