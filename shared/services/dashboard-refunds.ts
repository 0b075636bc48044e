import type { Mode } from '#shared/domain/credentials.ts';
import { userRefusal } from '#shared/domain/errors.ts';
import { RefundStatus, refundStatusNames, refundView } from '#shared/domain/refund.ts';
import { auditWrite, getRefundMaker, getRefundMakers } from '#shared/store/dashboard.ts';
import { getRefund } from '#shared/store/refunds.ts';
import {
  approvalPolicy,
  approvalsOf,
  checkDashboardDecision,
  decideInDashboard,
  describePolicy,
  mayApprove,
  type Approvals,
} from './approvals.ts';
import { auditEntry, type Signed } from './dashboard-auth.ts';
import { approveRefund, rejectRefund } from './refunds.ts';
import { createRefund, refundsOfMerchant } from './refund-requests.ts';
import { commitRequest, withWrites } from '#shared/store/request.ts';
import { sessionMerchant } from './dashboard.ts';

/**
 * A refund's decision by the merchant's approver in the dashboard (docs/dashboard.md, Refunds):
 * under the approval setting `merchant` or `both` a Pending refund waits for it (shared/services/
 * approvals.ts). The same rules as payouts and settlements: approvers and admins only (the route's
 * `refunds:approve`), never the refund's maker (who requested it in the dashboard or through an
 * API key they minted), a reason to reject, a confirmation page first, and an audit entry.
 */
const refundOf = async (merchantId: string, mode: Mode, id: string) => {
  const r = /^[0-9a-f-]{36}$/i.test(id) ? await getRefund(id.toLowerCase()) : undefined;
  if (!r || r.merchantId !== merchantId || r.mode !== mode) throw userRefusal('not_found', 'There is no such refund in this mode.');
  return r;
};

/** Every refusal of a refund decision before anything changes (checkDashboardDecision); the confirmation page runs it too. */
async function checkRefundDecision(signed: Signed, id: string, decision: 'approve' | 'reject', reason: string) {
  const refund = await refundOf(signed.user.merchantId, signed.session.mode, id);
  const maker = await getRefundMaker(refund.id);
  const subject = { id: refund.id, status: refundStatusNames[refund.status]!, maker };
  return { refund, maker, policy: await checkDashboardDecision(signed, 'refund', subject, decision, reason) };
}

/** What the user is about to approve or reject, shown to confirm. */
export async function refundDecisionPreview(signed: Signed, id: string, decision: 'approve' | 'reject', reason: string) {
  const { refund, maker } = await checkRefundDecision(signed, id, decision, reason);
  return { refund: refundView(refund), makerEmail: maker?.email ?? null, reason: reason.trim().slice(0, 255) };
}

/** Approve (under the setting: `both` records this side and may wait for the operator's) or reject a Pending refund. */
export async function decideRefund(signed: Signed, id: string, decision: 'approve' | 'reject', reason: string, now = new Date()) {
  const { refund } = await checkRefundDecision(signed, id, decision, reason);
  const act = {
    approve: () => approveRefund(refund.id, () => now),
    reject: (why?: string) => rejectRefund(refund.id, why, () => now, signed.user.email),
  };
  return decideInDashboard(signed, 'refund', refund.id, decision, reason, act, now);
}

/** For the Refunds page: who requested each Pending refund (maker-checker) and, under `both`, the approvals so far. */
export async function pendingRefundDecisions(merchantId: string, refunds: readonly { id: string; status: number }[]) {
  const pending = refunds.filter((r) => r.status === RefundStatus.Pending);
  const policy = await approvalPolicy(merchantId);
  const [makers, approvals] = await Promise.all([
    // One BatchGetItem for the page's Pending refunds (was one GetItem each).
    getRefundMakers(pending.map((r) => r.id)).then((found) => pending.map((r) => [r.id, found.get(r.id)?.userId ?? null] as const)),
    policy === 'both' ? Promise.all(pending.map(async (r) => [r.id, await approvalsOf('refund', r.id)] as const)) : [],
  ]);
  return {
    policy,
    policyText: describePolicy(policy, 'refund'),
    /** Whether the merchant's approvers decide refunds under the setting. */
    merchantDecides: mayApprove(policy, 'merchant', 'refund'),
    makers: Object.fromEntries(makers) as Record<string, string | null>,
    approvals: Object.fromEntries(approvals) as Record<string, Approvals>,
  };
}

/** The Refund action: the refunds service, with the audit entry in the refund's own transaction. */
export async function refundFromDashboard(
  signed: Signed,
  paymentIntentId: string,
  input: { amount: string; reason: string },
  traceId: string,
  now = new Date(),
) {
  const { merchant, merchantId, mode } = await sessionMerchant(signed, 'refunds');
  const amountText = input.amount.trim();
  if (amountText !== '' && !/^\d+(\.\d+)?$/.test(amountText))
    throw userRefusal('invalid', 'Enter the amount as a number, e.g. 250 or 99.50, or leave it empty to refund everything left.', 'amount');
  if (input.reason.length > 500) throw userRefusal('invalid', 'The reason can have at most 500 characters.', 'reason');
  const refund = { trxnRef: paymentIntentId, amount: amountText === '' ? null : Number(amountText), reason: input.reason.trim() || null };
  // The audit entry is committed in the refund's ONE transaction.
  return commitRequest(
    withWrites(
      () =>
        createRefund(
          { merchantId, mode, fee: merchant.fees.refund, traceId, maker: { userId: signed.user.userId, email: signed.user.email } },
          refund,
          now,
        ),
      ({ response: view }) => [
        auditWrite(
          auditEntry(
            merchantId,
            signed.actor,
            'refund.create',
            { target: `${paymentIntentId} refund ${view.id} ${view.amount} ${view.currency}`, mode },
            now,
          ),
        ),
      ],
    ),
  );
}

/** Refunds page: the merchant's refunds in the session's mode, newest first, 25 per page (cursor: a refund id). */
export async function refundsPage(merchantId: string, mode: Mode, after?: string) {
  if (after !== undefined && !/^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i.test(after))
    throw userRefusal('invalid', 'That page link is not valid.');
  const page = await refundsOfMerchant(merchantId, mode, { limit: 25, ...(after ? { startingAfter: after.toLowerCase() } : {}) });
  if (page === 'invalid_cursor') throw userRefusal('invalid', 'That page link is not valid. Start from the first page.');
  return { ...page, ...(await pendingRefundDecisions(merchantId, page.items)) };
}
