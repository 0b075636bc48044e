import type { Mode } from '#shared/domain/credentials.ts';
import { BusinessRuleError, DomainError, NotFoundError } from '#shared/domain/errors.ts';
import type { PaymentIntent } from '#shared/domain/intent.ts';
import { payoutMessages, withdrawalDetails } from '#shared/domain/payout.ts';
import { payoutRail } from '#shared/providers/rails.ts';
import { findIntent, getIntent } from '#shared/store/intents.ts';
import { merchantMaySubmitNow } from './merchant-gate.ts';
import { submitOnce } from './outbound.ts';
import { changeIntent, transactionView } from './transactions.ts';
import { decidePayout } from '#shared/domain/core/payout.ts';
import { assertPayoutComplete, payouts, providerUnavailable } from './withdrawals.ts';

/** The operator's commands on withdrawals (npm run ops -- withdrawal approve|reject). */

/** ID is a paymentIntentId; with merchant and mode, also an orderRef or transactionReference. */
export async function findWithdrawal(reference: string, scope?: { merchantId: string; mode: Mode }): Promise<PaymentIntent> {
  const intent = scope ? await findIntent(scope.merchantId, scope.mode, reference) : await getIntent(reference);
  if (intent?.intentType !== 'withdrawal') {
    throw new NotFoundError(
      scope
        ? `no withdrawal ${reference} for merchant ${scope.merchantId} (${scope.mode})`
        : `no withdrawal with paymentIntentId ${reference} (give --merchant and --mode to use an orderRef)`,
    );
  }
  return intent;
}

/** The operator's answer when the core refuses a withdrawal past Pending (decidePayout approve / reject). */
const notPending = (w: { paymentIntentId: string; status: string | undefined }, action: 'approved' | 'rejected') =>
  new BusinessRuleError(`withdrawal ${w.paymentIntentId} is ${w.status}; only a Pending withdrawal can be ${action}`, 'not_pending');

/** Pending → Processing with the submission record, then the one submit to the rail. */
export async function approveWithdrawal(
  reference: string,
  scope?: { merchantId: string; mode: Mode },
  given: { receiverCnic?: string } = {},
) {
  const found = await findWithdrawal(reference, scope);
  // Asked first, so a withdrawal past Pending is answered not_pending before the merchant, rail and CNIC are looked at.
  if (found.status !== 'Pending') throw notPending(found, 'approved');
  if (!(await merchantMaySubmitNow(found.merchantId)))
    throw new BusinessRuleError(`merchant ${found.merchantId} is suspended; reactivate it before approving a payout`, 'merchant_suspended');
  const rail = payoutRail(found.mode, { bankCode: withdrawalDetails(found).beneficiary.bankCode });
  if (!rail) throw providerUnavailable();
  if (given.receiverCnic !== undefined && !/^\d{13}$/.test(given.receiverCnic))
    throw new DomainError('invalid', 'The receiver CNIC has exactly 13 digits.', {
      errors: { receiverCnic: ['must be exactly 13 digits'] },
      field: 'receiverCnic',
    });
  // A payout requested before its rail needed a member (a live JazzCash wallet payout without the receiver's CNIC).
  assertPayoutComplete(
    rail,
    { ...payouts.instruction(found), ...given },
    ' The operator can give it when approving (ops withdrawal approve --receiver-cnic), ' +
      'or the merchant can request the payout again with it.',
  );
  const now = new Date();
  const reconcileAt = new Date(now.getTime() + rail.timings.inquireAfterMs);
  const approve = { type: 'approve' as const, provider: rail.name, reconcileAt, ...given };
  const approved = await changeIntent(found.paymentIntentId, (current) => ({
    ...decidePayout(current, approve, now),
    dueAt: reconcileAt.toISOString(),
  }));
  if (!approved.changed) throw notPending({ ...found, status: approved.intent?.status }, 'approved');
  return transactionView(
    (await submitOnce(payouts, rail, now, Promise.resolve({ changed: true, value: approved.intent }))) ?? approved.intent,
  );
}

/** Pending → Cancelled (rejected by the operator), releasing the hold. The reason may reach an end customer. */
export async function rejectWithdrawal(
  reference: string,
  reason: string = payoutMessages.rejectedByOperator,
  scope?: { merchantId: string; mode: Mode },
) {
  const found = await findWithdrawal(reference, scope);
  const rejected = await changeIntent(found.paymentIntentId, (current) => decidePayout(current, { type: 'reject', reason }, new Date()));
  if (!rejected.changed) throw notPending({ ...found, status: rejected.intent?.status }, 'rejected');
  return transactionView(rejected.intent);
}
