import type { PayoutApprovalPolicy } from '../merchant.ts';

/**
 * Who may release money out (docs/dashboard.md, Settings: approvals): the merchant's setting `payoutApprovals` says
 * whether its approvers (dashboard), the operator (ops CLI) or both approve manual payouts and settlements; absent,
 * either one does. Refunds follow the setting only where it names the merchant's approvers (`merchant`: they approve,
 * the operator may still reject; `both`); under `either` and `operator` the operator approves them (in test mode the
 * sandbox), as before the setting covered refunds: a refund sends the merchant's money to a customer. The operator may
 * always reject; the merchant's approvers unless the setting leaves them out. Maker-checker: the user who made it never
 * decides it. Only a Pending payout, settlement or refund is decided. One pure rule, `decideApproval`, asked by the
 * dashboard's three pages, the operator's approvals and the sandbox's refund approval.
 */
export type ApprovalPolicy = PayoutApprovalPolicy | 'either';
export type ApproverSide = 'merchant' | 'operator';
export type ApprovalKind = 'payout' | 'settlement' | 'refund';

export const mayApprove = (policy: ApprovalPolicy, side: ApproverSide, kind: ApprovalKind = 'payout') =>
  kind === 'refund'
    ? policy === 'both' || (side === 'merchant' ? policy === 'merchant' : policy !== 'merchant')
    : policy === 'either' || policy === 'both' || policy === side;
export const mayReject = (policy: ApprovalPolicy, side: ApproverSide, kind: ApprovalKind = 'payout') =>
  side === 'operator' || (kind === 'refund' ? policy === 'merchant' || policy === 'both' : policy !== 'operator');

const policyText: Record<ApprovalPolicy, string> = {
  either: "the merchant's approvers or the operator, whichever decides first",
  merchant: "the merchant's approvers (dashboard)",
  operator: 'the operator',
  both: "both the merchant's approvers and the operator",
};
const refundPolicyText: Record<ApprovalPolicy, string> = {
  either: 'the operator (in test mode the sandbox)',
  merchant: "the merchant's approvers (dashboard)",
  operator: 'the operator (in test mode the sandbox)',
  both: "both the merchant's approvers and the operator (in test mode the sandbox)",
};
/** Who approves, in words (the dashboard's pages): refunds read the setting their own way (above). */
export const describePolicy = (policy: ApprovalPolicy, kind: ApprovalKind = 'payout') =>
  (kind === 'refund' ? refundPolicyText : policyText)[policy];
const kindText: Record<ApprovalKind, string> = { payout: 'manual payouts', settlement: 'settlements', refund: 'refunds' };
/** The refusal's sentence for a side the setting leaves out. */
export const notAllowedMessage = (policy: ApprovalPolicy, kind: ApprovalKind) =>
  `This merchant's ${kindText[kind]} are approved by ${describePolicy(policy, kind)} (merchant setting).`;

/** One side's approval recorded so far (under `both`). */
export type SidesApproved = Partial<Record<ApproverSide, unknown>>;

export interface ApprovalAsk {
  kind: ApprovalKind;
  policy: ApprovalPolicy;
  decision: 'approve' | 'reject';
  side: ApproverSide;
  /** The object's status: only a Pending one is decided. */
  status: string;
  /** The user who made it and the user deciding (maker-checker); absent for the operator or an unknown maker. */
  maker?: string | null;
  actor?: string;
  /** Under `both`: the sides that have approved, this one included once recorded (absent: not recorded yet). */
  approvals?: SidesApproved;
}

export type ApprovalDecision =
  | { decided: 'approve' | 'reject' }
  /** Under `both`: this side's approval is (to be) recorded and the object waits for the other's. */
  | { decided: 'waiting'; waitingFor: ApproverSide }
  /** Its sentence is the caller's (`notAllowedMessage` for a side the setting leaves out). */
  | { refused: 'not_pending' | 'maker_checker' | 'approver_not_allowed' };

export function decideApproval(a: ApprovalAsk): ApprovalDecision {
  if (a.status !== 'Pending') return { refused: 'not_pending' };
  if (a.maker && a.maker === a.actor) return { refused: 'maker_checker' };
  if (!(a.decision === 'reject' ? mayReject : mayApprove)(a.policy, a.side, a.kind)) return { refused: 'approver_not_allowed' };
  if (a.decision === 'reject' || a.policy !== 'both') return { decided: a.decision };
  const other: ApproverSide = a.side === 'merchant' ? 'operator' : 'merchant';
  return a.approvals?.[a.side] && a.approvals[other] ? { decided: 'approve' } : { decided: 'waiting', waitingFor: other };
}
