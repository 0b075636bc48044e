import type { IntentType, PaymentIntent } from '#shared/domain/intent.ts';
import { logger } from '#shared/logger.ts';
import { listDueIntents } from '#shared/store/intents.ts';
import { oldestDueAt } from '#shared/store/due-index.ts';
import * as keys from '#shared/store/keys.ts';
import { checkoutDue } from './checkout.ts';
import { reconcileDeposit } from './deposits.ts';
import { reconcileWithdrawal } from './withdrawals.ts';

/**
 * What happens when an intent's due time comes (it sits in the GSI2 due index until then). Each
 * product registers its handler in `dueHandlers`; a handler decides through changeIntent(), so a
 * due item processed twice (overlapping sweeps) still changes once.
 */
export type DueHandler = (intent: PaymentIntent, now: Date) => Promise<void>;

const dueHandlers: Partial<Record<IntentType, DueHandler>> = {
  checkout: checkoutDue,
  deposit: async (intent, now) => void (await reconcileDeposit(intent, now)),
  withdrawal: reconcileWithdrawal,
};

/**
 * One pass over the due index. Returns how many due intents were handled. `only` narrows the pass
 * (tests sweep their own merchant's intents, never another test's), and so do `shards`: the due
 * index partitions to read, all 32 unless given (a test that knows where its items sit reads those).
 */
export async function processDue(now = new Date(), only?: (intent: PaymentIntent) => boolean, shards?: readonly string[]): Promise<number> {
  const due = (await listDueIntents(now, 100, shards)).filter((intent) => !only || only(intent));
  let handled = 0;
  for (const intent of due) {
    const handler = dueHandlers[intent.intentType];
    if (!handler) {
      logger.warn('no due handler', { intentType: intent.intentType, paymentIntentId: intent.paymentIntentId });
      continue;
    }
    try {
      await handler(intent, now);
      handled++;
    } catch (error) {
      logger.error('due handler failed', { paymentIntentId: intent.paymentIntentId, error });
    }
  }
  return handled;
}

/** Seconds the oldest due item (intents, settlements, refunds, settlement runs) has waited at `now`; 0 when none. */
export async function dueLagSeconds(now: Date): Promise<number> {
  const oldest = await oldestDueAt([...keys.dueShards(), ...keys.moneyDueShards()], now);
  return oldest ? Math.max(0, (now.getTime() - Date.parse(oldest)) / 1000) : 0;
}
