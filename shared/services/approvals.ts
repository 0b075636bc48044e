import type { Mode } from '#shared/domain/credentials.ts';
import { BusinessRuleError, NotFoundError, userRefusal } from '#shared/domain/errors.ts';
import {
  decideApproval,
  notAllowedMessage,
  type ApprovalKind,
  type ApprovalPolicy,
  type ApproverSide,
} from '#shared/domain/core/approval.ts';
import { SettlementStatus } from '#shared/domain/settlement.ts';
import { transact } from '#shared/store/client.ts';
import { auditWrite, getApprovals, recordSideApproval, type Approvals, type Maker } from '#shared/store/dashboard.ts';
import { getMerchant } from '#shared/store/merchants.ts';
import { getSettlement } from '#shared/store/settlements.ts';
import { getRefund } from '#shared/store/refunds.ts';
import { RefundStatus } from '#shared/domain/refund.ts';
import { auditEntry, auditRefusal, operatorActor, throughKey, type Signed } from './dashboard-auth.ts';
import { approveSettlement } from './settlements.ts';
import { approveRefund } from './refunds.ts';
import { approveWithdrawal, findWithdrawal } from './withdrawal-operator.ts';

/**
 * Who approves a merchant's manual payouts, settlements and refunds: the rule is the money core's
 * (shared/domain/core/approval.ts decideApproval, docs/dashboard.md Settings). Every approval of a Pending payout,
 * settlement or refund, from the dashboard or the ops CLI, goes through `approveUnderPolicy`; every merchant
 * approver's decision in the dashboard through `checkDashboardDecision` and `decideInDashboard`.
 */
export type { ApprovalPolicy, ApproverSide } from '#shared/domain/core/approval.ts';
export { describePolicy, mayApprove } from '#shared/domain/core/approval.ts';
export type Approver = { side: 'merchant'; userId: string; email: string } | { side: 'operator' };

export type ApprovalOutcome<T> =
  | { state: 'approved'; result: T; approvals: Approvals }
  | { state: 'waiting'; waitingFor: ApproverSide; approvals: Approvals };

export async function approvalPolicy(merchantId: string): Promise<ApprovalPolicy> {
  return (await getMerchant(merchantId, true))?.payoutApprovals ?? 'either';
}

/** A side the merchant's setting leaves out of approving (or rejecting) this payout, settlement or refund. */
export class ApproverNotAllowed extends BusinessRuleError {
  constructor(
    readonly policy: ApprovalPolicy,
    kind: ApprovalKind,
  ) {
    super(notAllowedMessage(policy, kind), 'approver_not_allowed');
  }
}

/**
 * Approve a Pending payout, settlement or refund as `approver` under the merchant's policy. The caller has checked that
 * the object is Pending (and maker-checker). `both`: the side's approval is recorded (D16) and `approve` runs only once
 * the other side's is there too, whichever came first; a retry after a crash between the two finds both and approves
 * (the approval itself is status-guarded).
 */
export async function approveUnderPolicy<T>(
  kind: ApprovalKind,
  id: string,
  merchantId: string,
  approver: Approver,
  approve: () => Promise<T>,
  now = new Date(),
): Promise<ApprovalOutcome<T>> {
  const policy = await approvalPolicy(merchantId);
  const ask = { kind, policy, decision: 'approve' as const, side: approver.side, status: 'Pending' };
  const first = decideApproval(ask);
  if ('refused' in first) throw new ApproverNotAllowed(policy, kind);
  if (first.decided === 'approve') return { state: 'approved', result: await approve(), approvals: {} };
  const approvals = await recordSideApproval(kind, id, approver.side, {
    at: now.toISOString(),
    ...(approver.side === 'merchant' ? { userId: approver.userId, email: approver.email } : {}),
  });
  const after = decideApproval({ ...ask, approvals });
  if ('decided' in after && after.decided === 'waiting') return { state: 'waiting', waitingFor: after.waitingFor, approvals };
  return { state: 'approved', result: await approve(), approvals };
}

/** What a merchant approver's decision on a payout, settlement or refund is about: its id, status (name) and maker. */
export interface Decided {
  id: string;
  status: string;
  maker: Maker | undefined;
}

/**
 * Every refusal of a merchant approver's decision before anything changes (the confirmation page runs it too): only a
 * Pending one (409), a reason to reject (400), maker-checker and the approval setting (403, audited). The rule is the
 * core's (decideApproval); the sentences are the pages'. Returns the merchant's setting.
 */
export async function checkDashboardDecision(signed: Signed, kind: ApprovalKind, subject: Decided, decision: Decision, reason: string) {
  const [merchantId, mode, policy] = [signed.user.merchantId, signed.session.mode, await approvalPolicy(signed.user.merchantId)];
  const ask = { kind, policy, decision, side: 'merchant' as const, status: subject.status, actor: signed.user.userId };
  const d = decideApproval({ ...ask, maker: subject.maker?.userId });
  const [payout, via] = [kind === 'payout', subject.maker ? throughKey(subject.maker) : ''];
  const pending = payout ? `This payout is ${subject.status}; only a Pending payout can be decided.` : `Only a Pending ${kind} can be`;
  if ('refused' in d && d.refused === 'not_pending') throw userRefusal('conflict', payout ? pending : `${pending} approved or rejected.`);
  if (decision === 'reject' && !reason.trim())
    throw userRefusal('invalid', `Give a reason for rejecting: the ${kind}’s ${payout ? 'creator' : 'requester'} reads it.`, 'reason');
  if (!('refused' in d)) return policy;
  const made = `You ${payout ? 'created' : 'requested'} this ${kind}${via}, so someone else must approve or reject it (maker-checker).`;
  const message = d.refused === 'maker_checker' ? made : notAllowedMessage(policy, kind);
  const detail = d.refused === 'maker_checker' && payout ? `maker-checker: the user created this payout${via}` : message;
  await auditRefusal(merchantId, signed.actor, `${kind}.${decision}`, subject.id, mode, detail);
  throw userRefusal('forbidden', message);
}
type Decision = 'approve' | 'reject';

/**
 * A merchant approver's decision in the dashboard, once checked: approved under the setting (`both`: this side
 * recorded, it may wait for the operator's) or rejected (`reject` gets the reason given); audited.
 */
export async function decideInDashboard(
  signed: Signed,
  kind: ApprovalKind,
  id: string,
  decision: Decision,
  reason: string,
  act: { approve: () => Promise<unknown>; reject: (why: string | undefined) => Promise<unknown> },
  now: Date,
) {
  const [merchantId, mode, why] = [signed.user.merchantId, signed.session.mode, reason.trim().slice(0, 255)];
  let waiting = false;
  try {
    if (decision === 'reject') await act.reject(why || undefined);
    else {
      const approver = { side: 'merchant' as const, userId: signed.user.userId, email: signed.user.email };
      waiting = (await approveUnderPolicy(kind, id, merchantId, approver, act.approve, now)).state === 'waiting';
    }
  } catch (error) {
    if (!(error instanceof ApproverNotAllowed)) throw error;
    await auditRefusal(merchantId, signed.actor, `${kind}.${decision}`, id, mode, error.detail);
    throw userRefusal('forbidden', error.detail);
  }
  const detail = [waiting ? 'approval recorded; waiting for the operator' : '', why].filter(Boolean).join('; ');
  await transact([
    auditWrite(auditEntry(merchantId, signed.actor, `${kind}.${decision}`, { target: id, mode, ...(detail ? { detail } : {}) }, now)),
  ]);
  return { waiting };
}

/** The approvals recorded so far of a payout or settlement (only `both` records them). */
export const approvalsOf = (kind: ApprovalKind, id: string) => getApprovals(kind, id);

/**
 * The operator's approval of one payout, settlement or refund: recorded under the merchant's
 * setting while it is Pending (refused when only the merchant's approvers approve), audited; an
 * object past Pending is approved again idempotently (the service answers what it already is).
 */
async function operatorApprove<R>(
  kind: ApprovalKind,
  subject: { id: string; merchantId: string; mode: Mode; pending: boolean },
  approve: () => Promise<R>,
) {
  if (!subject.pending) return { state: 'approved' as const, result: await approve(), approvals: {} };
  const outcome = await approveUnderPolicy(kind, subject.id, subject.merchantId, { side: 'operator' }, approve);
  const detail = outcome.state === 'approved' ? 'approved by the operator' : 'operator approval recorded; waiting for the merchant';
  const action = `${kind}.approve`;
  await transact([auditWrite(auditEntry(subject.merchantId, operatorActor, action, { target: subject.id, mode: subject.mode, detail }))]);
  return outcome;
}

/** `ops withdrawal approve`: under the merchant's setting (refused when only its approvers approve). */
export async function operatorApproveWithdrawal(
  reference: string,
  scope?: { merchantId: string; mode: Mode },
  given: { receiverCnic?: string } = {},
) {
  const found = await findWithdrawal(reference, scope);
  const subject = { id: found.paymentIntentId, merchantId: found.merchantId, mode: found.mode, pending: found.status === 'Pending' };
  return operatorApprove('payout', subject, () => approveWithdrawal(found.paymentIntentId, undefined, given));
}

/** `ops settlement approve`: under the merchant's setting (refused when only its approvers approve). */
export async function operatorApproveSettlement(id: string) {
  const s = await getSettlement(id);
  if (!s) throw new NotFoundError(`No settlement with id ${id}.`);
  const subject = { id, merchantId: s.merchantId, mode: s.mode, pending: s.status === SettlementStatus.Pending };
  return operatorApprove('settlement', subject, () => approveSettlement(id));
}

/**
 * `ops refund approve`: under the merchant's setting (refused when only its approvers approve;
 * under `both` the operator's approval is recorded and the refund waits for theirs).
 */
export async function operatorApproveRefund(id: string) {
  const r = await getRefund(id);
  if (!r) throw new NotFoundError(`No refund with id ${id}.`);
  const subject = { id, merchantId: r.merchantId, mode: r.mode, pending: r.status === RefundStatus.Pending };
  return operatorApprove('refund', subject, () => approveRefund(id));
}

/** What each side has approved (the dashboard's pages show it). */
export type { Approvals } from '#shared/store/dashboard.ts';
