import type { Mode } from '#shared/domain/credentials.ts';
import { BusinessRuleError, NotFoundError } from '#shared/domain/errors.ts';
import type { PayoutApprovalPolicy } from '#shared/domain/merchant.ts';
import { SettlementStatus } from '#shared/domain/settlement.ts';
import { transact } from '#shared/store/client.ts';
import { auditWrite, getApprovals, recordSideApproval, type ApprovalKind, type Approvals } from '#shared/store/dashboard.ts';
import { getMerchant } from '#shared/store/merchants.ts';
import { getSettlement } from '#shared/store/settlements.ts';
import { getRefund } from '#shared/store/refunds.ts';
import { RefundStatus } from '#shared/domain/refund.ts';
import { auditEntry, operatorActor } from './dashboard-auth.ts';
import { approveSettlement } from './settlements.ts';
import { approveRefund } from './refunds.ts';
import { approveWithdrawal, findWithdrawal } from './withdrawal-operator.ts';

/**
 * Who approves a merchant's manual payouts and settlements (docs/dashboard.md, Settings): the
 * merchant setting `payoutApprovals` decides whether the merchant's approvers (dashboard), the
 * operator (ops CLI) or both must approve; absent, either one does. Every approval of a Pending
 * payout or settlement, from the dashboard or the ops CLI, goes through `approveUnderPolicy`.
 * Rejections: the operator may always reject; the merchant's approvers unless the setting is
 * `operator`.
 */
export type ApprovalPolicy = PayoutApprovalPolicy | 'either';
export type ApproverSide = 'merchant' | 'operator';
export type Approver = { side: 'merchant'; userId: string; email: string } | { side: 'operator' };

export type ApprovalOutcome<T> =
  | { state: 'approved'; result: T; approvals: Approvals }
  | { state: 'waiting'; waitingFor: ApproverSide; approvals: Approvals };

export async function approvalPolicy(merchantId: string): Promise<ApprovalPolicy> {
  return (await getMerchant(merchantId, true))?.payoutApprovals ?? 'either';
}

const policyText: Record<ApprovalPolicy, string> = {
  either: "the merchant's approvers or the operator, whichever decides first",
  merchant: "the merchant's approvers (dashboard)",
  operator: 'the operator',
  both: "both the merchant's approvers and the operator",
};
export const describePolicy = (policy: ApprovalPolicy) => policyText[policy];

/**
 * Refunds follow the setting only where it names the merchant's approvers: `merchant` (they
 * approve; the operator may still reject) and `both`. Under `either` and `operator` the operator
 * approves refunds (in test mode the sandbox plays the operator), as before the setting covered
 * refunds: a refund sends the merchant's money to a customer, not to the merchant.
 */
const refundPolicyText: Record<ApprovalPolicy, string> = {
  either: 'the operator (in test mode the sandbox)',
  merchant: "the merchant's approvers (dashboard)",
  operator: 'the operator (in test mode the sandbox)',
  both: "both the merchant's approvers and the operator (in test mode the sandbox)",
};
export const describeRefundPolicy = (policy: ApprovalPolicy) => refundPolicyText[policy];

export const mayApprove = (policy: ApprovalPolicy, side: ApproverSide, kind: ApprovalKind = 'payout') =>
  kind === 'refund'
    ? policy === 'both' || (side === 'merchant' ? policy === 'merchant' : policy !== 'merchant')
    : policy === 'either' || policy === 'both' || policy === side;
export const mayReject = (policy: ApprovalPolicy, side: ApproverSide, kind: ApprovalKind = 'payout') =>
  side === 'operator' || (kind === 'refund' ? policy === 'merchant' || policy === 'both' : policy !== 'operator');

const kindText: Record<ApprovalKind, string> = { payout: 'manual payouts', settlement: 'settlements', refund: 'refunds' };

/** A side the merchant's setting leaves out of approving (or rejecting) this payout, settlement or refund. */
export class ApproverNotAllowed extends BusinessRuleError {
  constructor(
    readonly policy: ApprovalPolicy,
    what: string,
  ) {
    const text = what === kindText.refund ? refundPolicyText[policy] : policyText[policy];
    super(`This merchant's ${what} are approved by ${text} (merchant setting).`, 'approver_not_allowed');
  }
}
export const approverNotAllowed = (policy: ApprovalPolicy, kind: ApprovalKind) => new ApproverNotAllowed(policy, kindText[kind]);

/**
 * Approve a Pending payout or settlement as `approver` under the merchant's policy. The caller has
 * checked that the object is Pending (and maker-checker). `both`: the side's approval is recorded
 * (D16) and `approve` runs only once the other side's is there too, whichever came first; a retry
 * after a crash between the two finds both and approves (the approval itself is status-guarded).
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
  if (!mayApprove(policy, approver.side, kind)) throw approverNotAllowed(policy, kind);
  if (policy !== 'both') return { state: 'approved', result: await approve(), approvals: {} };
  const approvals = await recordSideApproval(kind, id, approver.side, {
    at: now.toISOString(),
    ...(approver.side === 'merchant' ? { userId: approver.userId, email: approver.email } : {}),
  });
  const other: ApproverSide = approver.side === 'merchant' ? 'operator' : 'merchant';
  if (!approvals[other]) return { state: 'waiting', waitingFor: other, approvals };
  return { state: 'approved', result: await approve(), approvals };
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
