import type { Mode } from '#shared/domain/credentials.ts';
import { logger } from '#shared/logger.ts';
import { listDueMoneyItems, type DueItem } from '#shared/store/money-due.ts';
import { advanceRefund } from './refunds.ts';
import { runAutoSettlement } from './auto-settlement.ts';
import { advanceSettlement } from './settlements.ts';
import { advanceBreakdown } from './settlement-breakdown.ts';

/**
 * One pass over the money due index (settlements, refunds, automatic-settlement runs, breakdowns): each due
 * item gets one step. Every step is a conditional change, so an item swept twice (overlapping
 * runs) still changes once. `only` narrows the pass (tests sweep their own items, never another
 * test's), and so do `shards` (the due index partitions to read; all unless given). Returns how many
 * items were handled.
 */
export async function processDueSettlementsAndRefunds(
  now = new Date(),
  only?: (item: DueItem) => boolean,
  shards?: readonly string[],
): Promise<number> {
  const due = (await listDueMoneyItems(now, 100, shards)).filter((item) => !only || only(item));
  let handled = 0;
  for (const item of due) {
    try {
      if (item.entity === 'Settlement') await advanceSettlement(item.id, now);
      else if (item.entity === 'Refund') await advanceRefund(item.id, now);
      else if (item.entity === 'SettlementBreakdown') await advanceBreakdown(item.id, now);
      else await runAutoSettlement(item.id, item.mode as Mode, now);
      handled++;
    } catch (error) {
      logger.error('money due item failed', { entity: item.entity, id: item.id, error });
    }
  }
  return handled;
}
