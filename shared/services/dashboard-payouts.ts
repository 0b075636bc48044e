import type { Mode } from '#shared/domain/credentials.ts';
import { resolveBankCode } from '#shared/domain/bank-codes.ts';
import { userRefusal } from '#shared/domain/errors.ts';
import { minorUnits } from '#shared/domain/money.ts';
import { generatedOrderRef } from '#shared/domain/references.ts';
import { auditWrite, getPayoutMaker, type Approvals } from '#shared/store/dashboard.ts';
import { commitRequest, withWrites } from '#shared/store/request.ts';
import type { PlaceHold } from '#shared/store/wallets.ts';
import { listTransactions, transactionView } from './transactions.ts';
import { requestDashboardPayout, withFunds } from './withdrawal-requests.ts';
import { approveWithdrawal, findWithdrawal, rejectWithdrawal } from './withdrawal-operator.ts';
import { approvalPolicy, approvalsOf, checkDashboardDecision, decideInDashboard, describePolicy } from './approvals.ts';
import { auditEntry, type Signed } from './dashboard-auth.ts';
import { sessionMerchant } from './dashboard.ts';

/**
 * The dashboard's payouts (docs/dashboard.md, Payouts): the list, a payout created by a user (the
 * withdrawals service, never auto-processed) and the approvers' decisions, maker-checker and the
 * approval setting applied. Its own module, so only the payouts Lambda bundles the withdrawal
 * services and the payout rail.
 */
/** Payouts page: withdrawals awaiting approval (with the approvals so far when both sides approve), and the latest others. */
export async function payoutsPage(merchantId: string, mode: Mode) {
  const [pending, recent, policy] = await Promise.all([
    listTransactions(merchantId, mode, { intentType: 'withdrawal', status: 'Pending', limit: 50 }),
    listTransactions(merchantId, mode, { intentType: 'withdrawal', limit: 25 }),
    approvalPolicy(merchantId),
  ]);
  const items = (p: typeof pending) => (p === 'invalid_cursor' ? [] : p.items);
  const waiting = items(pending);
  const approvals: Record<string, Approvals> =
    policy === 'both'
      ? Object.fromEntries(await Promise.all(waiting.map(async (t) => [t.paymentIntentId, await approvalsOf('payout', t.paymentIntentId)])))
      : {};
  // Who created each waiting payout: its creator is shown what it waits for, never Approve / Reject (maker-checker).
  const makers: Record<string, string> = Object.fromEntries(
    (
      await Promise.all(
        waiting.map(async (t) => [t.paymentIntentId, (await getPayoutMaker(mode, merchantId, t.orderRef.orderRef))?.userId]),
      )
    ).filter((entry): entry is [string, string] => entry[1] !== undefined),
  );
  return {
    pending: waiting,
    makers,
    recent: items(recent).filter((t) => t.status !== 'Pending'),
    policy,
    policyText: describePolicy(policy),
    approvals,
  };
}

/**
 * A payout (withdrawal) created in the dashboard: the withdrawals service, never auto-processed
 * (it waits for an approver), with its maker recorded in the service's first transaction.
 */
export async function createPayoutFromDashboard(
  signed: Signed,
  input: { amount: string; bankCode: string; accountNumber: string; accountTitle: string; receiverCnic?: string; description: string },
  traceId: string,
  now = new Date(),
) {
  const { merchant, merchantId, mode } = await sessionMerchant(signed, 'payouts');
  if (!/^\d+(\.\d+)?$/.test(input.amount.trim()))
    throw userRefusal('invalid', 'Enter the amount as a number, e.g. 5000 or 1250.50.', 'amount');
  const bank = resolveBankCode(input.bankCode);
  if (!bank) throw userRefusal('invalid', 'Choose a bank.', 'bankCode');
  const accountNumber = input.accountNumber.replaceAll(' ', '');
  if (!/^[A-Za-z0-9]{10,24}$/.test(accountNumber))
    throw userRefusal('invalid', 'The account number or IBAN has 10-24 letters and digits.', 'accountNumber');
  const accountTitle = input.accountTitle.trim();
  if (accountTitle.length < 2 || accountTitle.length > 100)
    throw userRefusal('invalid', 'The account title has 2-100 characters.', 'accountTitle');
  // The receiver's CNIC (JazzCash wallets need it in live mode: the withdrawals service refuses without it).
  const cnic = (input.receiverCnic ?? '').replace(/[\s-]/g, '');
  if (cnic && !/^\d{13}$/.test(cnic)) throw userRefusal('invalid', "The receiver's CNIC has 13 digits.", 'receiverCnic');
  const currency = merchant.defaultCurrency;
  const orderRef = generatedOrderRef('DASH');
  const decide = (place: PlaceHold) =>
    requestDashboardPayout(
      {
        merchantId,
        mode,
        traceId,
        fee: merchant.fees.withdrawal,
        amountMinor: minorUnits(Number(input.amount.trim()), currency),
        currency,
        description: input.description.trim().slice(0, 255) || 'Payout from the dashboard',
        autoProcessPayout: false,
        metadataJson: null,
        callbackUrl: null,
        orderRef: { orderRef, discount: null, tax: null },
        bank,
        accountNumber,
        accountTitle,
        customer: cnic ? { cnic } : {},
        allowInsecureWebhooks: false,
        maker: { userId: signed.user.userId, email: signed.user.email },
      },
      place,
    );
  // The maker (written by the service) and the audit entry are recorded in the withdrawal's first transaction.
  const audit = auditEntry(
    merchantId,
    signed.actor,
    'payout.create',
    { target: `${orderRef} ${input.amount.trim()} ${currency}`, mode },
    now,
  );
  return commitRequest(
    withWrites(decide, () => [auditWrite(audit)]),
    undefined,
    withFunds,
  );
}

/** Every refusal of a payout decision before anything changes (checkDashboardDecision); the confirmation page runs it too. */
async function checkPayoutDecision(signed: Signed, paymentIntentId: string, decision: 'approve' | 'reject', reason: string) {
  const { merchantId } = signed.user;
  const mode = signed.session.mode;
  const payout = await findWithdrawal(paymentIntentId, { merchantId, mode }).catch(() => undefined);
  if (!payout || payout.paymentIntentId !== paymentIntentId) throw userRefusal('not_found', 'There is no such payout in this mode.');
  const maker = await getPayoutMaker(mode, merchantId, payout.orderRef.orderRef);
  const policy = await checkDashboardDecision(signed, 'payout', { id: paymentIntentId, status: payout.status, maker }, decision, reason);
  return { payout, maker, policy };
}

/** What the user is about to approve or reject, shown to confirm: the payout, who created it, the reason given. */
export async function payoutDecisionPreview(signed: Signed, paymentIntentId: string, decision: 'approve' | 'reject', reason: string) {
  const { payout, maker, policy } = await checkPayoutDecision(signed, paymentIntentId, decision, reason);
  return { payout: transactionView(payout), makerEmail: maker?.email ?? null, policy, reason: reason.trim().slice(0, 255) };
}

/** Approve or reject a Pending payout; maker-checker: never the user who created it (in the dashboard or with a key they minted). */
export async function decidePayout(
  signed: Signed,
  paymentIntentId: string,
  decision: 'approve' | 'reject',
  reason: string,
  now = new Date(),
) {
  const scope = { merchantId: signed.user.merchantId, mode: signed.session.mode };
  await checkPayoutDecision(signed, paymentIntentId, decision, reason);
  return decideInDashboard(
    signed,
    'payout',
    paymentIntentId,
    decision,
    reason,
    { approve: () => approveWithdrawal(paymentIntentId, scope), reject: (why) => rejectWithdrawal(paymentIntentId, why, scope) },
    now,
  );
}
