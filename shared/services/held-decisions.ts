import { checkoutDetails } from '#shared/domain/checkout.ts';
import { heldApprovalDeclinedReason, heldApprovalOf, type PaymentIntent } from '#shared/domain/intent.ts';
import { logger } from '#shared/logger.ts';
import { getIntent, listHeldApprovals } from '#shared/store/intents.ts';
import { getMerchant } from '#shared/store/merchants.ts';
import { completedDecision } from './checkout.ts';
import { depositCompletedDecision, depositDeclinedByOperatorDecision } from './deposits.ts';
import { OperatorError } from './merchants.ts';
import { changeStatus, transactionView, type Decision } from './transactions.ts';

/**
 * The operator's decision about a held wallet approval (shared/services/held-approvals.ts), the
 * only way out of a hold: `npm run ops -- deposit release|decline <id>`. Each is ONE transaction
 * through changeStatus(): the intent update conditioned on its status (Pending) and version, its
 * outbox event and, for a release, the journal that credits the wallet. A second or concurrent
 * decision finds the intent no longer held and fails loudly, so a held approval is credited at
 * most once.
 */
export type HeldDecision = 'release' | 'decline';

export async function listHeld() {
  const held = await listHeldApprovals();
  return held
    .filter((i) => i.status === 'Pending' && heldApprovalOf(i))
    .map((i) => ({ ...transactionView(i), merchantId: i.merchantId, heldApproval: heldApprovalOf(i)! }));
}

export async function decideHeldApproval(paymentIntentId: string, decision: HeldDecision, now = new Date()) {
  const found = await getIntent(paymentIntentId);
  const notHeld = (intent: PaymentIntent | undefined) =>
    new OperatorError(
      intent
        ? `transaction ${paymentIntentId} is ${intent.status}` +
            (heldApprovalOf(intent)?.decision ? ` (${heldApprovalOf(intent)!.decision})` : '') +
            '; only a Pending held approval can be released or declined'
        : `no transaction ${paymentIntentId}`,
    );
  if (!found || found.status !== 'Pending' || !heldApprovalOf(found)) throw notHeld(found);
  const result = await changeStatus(
    paymentIntentId,
    (current): Decision | null => {
      const held = heldApprovalOf(current);
      if (current.status !== 'Pending' || !held || held.decision) return null;
      const decided = {
        heldApproval: { ...held, decision: decision === 'release' ? 'released' : 'declined', decidedAt: now.toISOString() },
      };
      const base = decision === 'release' ? released(current, now) : declined(current);
      return { ...base, details: { ...base.details, ...decided } };
    },
    () => now,
  );
  if (!result.changed) throw notHeld(result.intent);
  const merchant = await getMerchant(found.merchantId, true);
  const context = {
    paymentIntentId,
    merchantId: found.merchantId,
    merchantStatus: merchant?.status,
    amountMinor: found.amountMinor,
    currency: found.currency,
  };
  if (decision === 'decline')
    logger.error('held wallet approval declined by the operator: refund the customer at the wallet provider', context);
  else logger.info('held wallet approval released by the operator: wallet credited', context);
  return { ...transactionView(result.intent), merchantId: found.merchantId, merchantStatus: merchant?.status ?? null };
}

function released(current: PaymentIntent, now: Date): Decision {
  if (current.intentType === 'deposit') return depositCompletedDecision(current, now);
  const wallet = checkoutDetails(current).wallet;
  if (current.intentType !== 'checkout' || !wallet)
    throw new OperatorError(`transaction ${current.paymentIntentId} has no wallet charge to release`);
  return completedDecision(current, { walletProvider: wallet.provider });
}

function declined(current: PaymentIntent): Decision {
  if (current.intentType === 'deposit') return depositDeclinedByOperatorDecision(current);
  return { to: 'Failed', reason: heldApprovalDeclinedReason };
}
