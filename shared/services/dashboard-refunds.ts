import type { Mode } from '#shared/domain/credentials.ts';
import { userRefusal } from '#shared/domain/errors.ts';
import { RefundStatus, refundView } from '#shared/domain/refund.ts';
import { transact } from '#shared/store/client.ts';
import { auditWrite, getRefundMaker } from '#shared/store/dashboard.ts';
import { getRefund } from '#shared/store/refunds.ts';
import {
  approvalPolicy,
  approvalsOf,
  approveUnderPolicy,
  approverNotAllowed,
  ApproverNotAllowed,
  type Approvals,
  describeRefundPolicy,
  mayApprove,
  mayReject,
} from './approvals.ts';
import { auditEntry, auditRefusal, throughKey, type Signed } from './dashboard-auth.ts';
import { approveRefund, rejectRefund } from './refunds.ts';

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

/** Every refusal of a refund decision before anything changes; the confirmation page runs it too. */
async function checkRefundDecision(signed: Signed, id: string, decision: 'approve' | 'reject', reason: string) {
  const { merchantId } = signed.user;
  const mode = signed.session.mode;
  const refund = await refundOf(merchantId, mode, id);
  if (refund.status !== RefundStatus.Pending) throw userRefusal('conflict', 'Only a Pending refund can be approved or rejected.');
  if (decision === 'reject' && !reason.trim())
    throw userRefusal('invalid', 'Give a reason for rejecting: the refund’s requester reads it.', 'reason');
  const refuse = async (message: string) => {
    await auditRefusal(merchantId, signed.actor, `refund.${decision}`, refund.id, mode, message);
    return userRefusal('forbidden', message);
  };
  const maker = await getRefundMaker(refund.id);
  if (maker?.userId === signed.user.userId)
    throw await refuse(`You requested this refund${throughKey(maker)}, so someone else must approve or reject it (maker-checker).`);
  const policy = await approvalPolicy(merchantId);
  if (!(decision === 'reject' ? mayReject : mayApprove)(policy, 'merchant', 'refund'))
    throw await refuse(approverNotAllowed(policy, 'refund').detail);
  return { refund, maker, policy, refuse };
}

/** What the user is about to approve or reject, shown to confirm. */
export async function refundDecisionPreview(signed: Signed, id: string, decision: 'approve' | 'reject', reason: string) {
  const { refund, maker } = await checkRefundDecision(signed, id, decision, reason);
  return { refund: refundView(refund), makerEmail: maker?.email ?? null, reason: reason.trim().slice(0, 255) };
}

/** Approve (under the setting: `both` records this side and may wait for the operator's) or reject a Pending refund. */
export async function decideRefund(signed: Signed, id: string, decision: 'approve' | 'reject', reason: string, now = new Date()) {
  const { merchantId } = signed.user;
  const mode = signed.session.mode;
  const { refund, refuse } = await checkRefundDecision(signed, id, decision, reason);
  const why = reason.trim().slice(0, 255);
  let waiting = false;
  try {
    if (decision === 'reject') await rejectRefund(refund.id, why, () => now, signed.user.email);
    else {
      const approver = { side: 'merchant' as const, userId: signed.user.userId, email: signed.user.email };
      const outcome = await approveUnderPolicy('refund', refund.id, merchantId, approver, () => approveRefund(refund.id, () => now), now);
      waiting = outcome.state === 'waiting';
    }
  } catch (error) {
    if (error instanceof ApproverNotAllowed) throw await refuse(error.detail);
    throw error;
  }
  const detail = [waiting ? 'approval recorded; waiting for the operator' : '', why].filter(Boolean).join('; ');
  await transact([
    auditWrite(auditEntry(merchantId, signed.actor, `refund.${decision}`, { target: refund.id, mode, ...(detail ? { detail } : {}) }, now)),
  ]);
  return { waiting };
}

/** For the Refunds page: who requested each Pending refund (maker-checker) and, under `both`, the approvals so far. */
export async function pendingRefundDecisions(merchantId: string, refunds: readonly { id: string; status: number }[]) {
  const pending = refunds.filter((r) => r.status === RefundStatus.Pending);
  const policy = await approvalPolicy(merchantId);
  const [makers, approvals] = await Promise.all([
    Promise.all(pending.map(async (r) => [r.id, (await getRefundMaker(r.id))?.userId ?? null] as const)),
    policy === 'both' ? Promise.all(pending.map(async (r) => [r.id, await approvalsOf('refund', r.id)] as const)) : [],
  ]);
  return {
    policy,
    policyText: describeRefundPolicy(policy),
    /** Whether the merchant's approvers decide refunds under the setting. */
    merchantDecides: mayApprove(policy, 'merchant', 'refund'),
    makers: Object.fromEntries(makers) as Record<string, string | null>,
    approvals: Object.fromEntries(approvals) as Record<string, Approvals>,
  };
}
