import { decideHeld, heldMethod, type HeldMethod } from '#shared/domain/core/intent.ts';
import { heldApprovalOf, type PaymentIntent } from '#shared/domain/intent.ts';
import { logger } from '#shared/logger.ts';
import { getIntent, listHeldApprovals } from '#shared/store/intents.ts';
import { getMerchant } from '#shared/store/merchants.ts';
import { heldChargeDetails } from './deposits.ts';
import { OperatorError } from './merchants.ts';
import { changeIntent, transactionView } from './transactions.ts';

/**
 * The operator's decision about a held wallet approval or card payment (shared/services/held-approvals.ts), the
 * only way out of a hold: `npm run ops -- deposit release|decline <id>`. The money core decides it (decideHeld:
 * `release-held` / `decline-held`), ONE transaction through changeIntent(): the intent update conditioned on its
 * status (Pending) and version, its outbox event and, for a release, the journal that credits the wallet. A second or concurrent
 * decision finds the intent no longer held and fails loudly, so a held approval is credited at
 * most once.
 */
export type HeldDecision = 'release' | 'decline';

export async function listHeld() {
  const held = await listHeldApprovals();
  return held
    .filter((i) => i.status === 'Pending' && heldApprovalOf(i))
    .map((i) => ({ ...transactionView(i), merchantId: i.merchantId, method: heldMethod(i), heldApproval: heldApprovalOf(i)! }));
}

export async function decideHeldApproval(paymentIntentId: string, decision: HeldDecision, now = new Date()) {
  const found = await getIntent(paymentIntentId);
  const notHeld = (intent: PaymentIntent | undefined) =>
    new OperatorError(
      intent
        ? `transaction ${paymentIntentId} is ${intent.status}` +
            (heldApprovalOf(intent)?.decision ? ` (${heldApprovalOf(intent)!.decision})` : '') +
            '; only a Pending held approval (a wallet approval or a captured card payment) can be released or declined'
        : `no transaction ${paymentIntentId}`,
    );
  if (found?.status !== 'Pending' || !heldApprovalOf(found)) throw notHeld(found);
  // The money core checks the hold and decides: credited as what paid, or failed; the hold stamped with the decision.
  const type = decision === 'release' ? 'release-held' : 'decline-held';
  const result = await changeIntent(
    paymentIntentId,
    (current) => decideHeld(current, { type, details: heldChargeDetails(current, decision) }, now),
    () => now,
  );
  if (!result.changed) throw notHeld(result.intent);
  const merchant = await getMerchant(found.merchantId, true);
  const method = heldMethod(found);
  const context = {
    paymentIntentId,
    merchantId: found.merchantId,
    merchantStatus: merchant?.status,
    amountMinor: found.amountMinor,
    currency: found.currency,
    method,
    // What the customer's money is known by at the provider (the wallet charge or the card transaction).
    providerReference: heldApprovalOf(found)!.providerReference,
  };
  if (decision === 'decline') logger.error(declinedMessage(method), context);
  else logger.info(`${heldName[method]} released by the operator: the merchant's wallet credited`, context);
  return { ...transactionView(result.intent), merchantId: found.merchantId, merchantStatus: merchant?.status ?? null, method };
}

const heldName = { wallet: 'held wallet approval', card: 'held card payment' } as const;
/** Where the operator gives the customer's money back after a decline (the ERROR log, the ops tool's line, the runbook). */
export const refundAt = {
  wallet: 'refund the customer at the wallet provider',
  card: "void or refund the customer's card at the card provider",
} as const;
const declinedMessage = (method: HeldMethod) => `${heldName[method]} declined by the operator: ${refundAt[method]}`;
