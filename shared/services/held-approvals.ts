import { again, retry, retryPolicies } from '#shared/retry.ts';
import { isRefusal } from '#shared/domain/core/decision.ts';
import { heldMethod, holdApproval } from '#shared/domain/core/intent.ts';
import { heldApprovalOf, type HeldApproval, type PaymentIntent } from '#shared/domain/intent.ts';
import { merchantMaySubmit } from '#shared/domain/merchant.ts';
import { logger } from '#shared/logger.ts';
import { emitMetric, metricNames } from '#shared/metrics.ts';
import { transact, TransactionFailed } from '#shared/store/client.ts';
import { heldWrites } from '#shared/store/intents.ts';
import { getMerchant } from '#shared/store/merchants.ts';
import { intentReader } from './transactions.ts';

/**
 * A wallet provider's approval (callback or status inquiry) of a suspended merchant's deposit or
 * checkout, or a card provider's answer that a live card payment was captured (its confirmation or
 * its inquiry), is not credited: the intent stays Pending with details.heldApproval, out of the due
 * index (so it neither expires nor is asked about again), in the held list, until an operator runs
 * `npm run ops -- deposit release|decline <id>` (shared/services/held-decisions.ts). While held,
 * every provider path decides nothing about it (the money core's decideAnswer), so the only way
 * to credit it is the operator's release, one conditional transaction. The money core decides the hold
 * (holdApproval); the store writes the held state it returns (heldWrites).
 */
export const isHeld = (intent: PaymentIntent): boolean => heldApprovalOf(intent) !== undefined;

/** The WARN line of a hold, as the runbook quotes it: `wallet approval held` or `card payment held`. */
const heldMessage = { wallet: 'wallet approval held', card: 'card payment held' } as const;

/**
 * Holds `paymentIntentId`'s approval when its merchant may not be credited now. Returns the held
 * intent (held now or before), or undefined when the approval should be applied as usual (the
 * merchant is active, the intent is no longer Pending, or `applies` says the approval is not about
 * the intent's current charge).
 */
export async function holdApprovalIfSuspended(
  paymentIntentId: string,
  approval: Pick<HeldApproval, 'source' | 'providerReference'>,
  now: Date,
  applies: (current: PaymentIntent) => boolean = () => true,
  known?: PaymentIntent,
): Promise<PaymentIntent | undefined> {
  const read = intentReader(paymentIntentId, known);
  return retry<PaymentIntent | undefined>(
    retryPolicies.versionRace,
    async () => {
      const current = await read();
      if (current?.status !== 'Pending') return undefined;
      if (isHeld(current)) return current;
      if (!applies(current)) return undefined;
      const merchantActive = merchantMaySubmit(await getMerchant(current.merchantId, true));
      const held = holdApproval(current, { type: 'hold-approval', approval, merchantActive }, now);
      if (isRefusal(held)) return undefined;
      try {
        await transact(heldWrites(current, held.state));
      } catch (error) {
        if (error instanceof TransactionFailed && error.failedAt(0)) return again; // changed meanwhile: look again
        throw error;
      }
      // Left for the operator: the ApprovalHeld alarm's metric, and the log line the runbook points at.
      emitMetric(metricNames.approvalsHeld, 1, { Method: heldMethod(current) });
      logger.warn(
        `${heldMessage[heldMethod(current)]}: merchant suspended; ` +
          'an operator must release or decline it (npm run ops -- deposit release|decline)',
        {
          paymentIntentId,
          merchantId: current.merchantId,
          intentType: current.intentType,
          amountMinor: current.amountMinor,
          currency: current.currency,
          source: approval.source,
        },
      );
      return held.state;
    },
    () => new Error(`could not hold the approval of ${paymentIntentId}: too much contention`),
  );
}
