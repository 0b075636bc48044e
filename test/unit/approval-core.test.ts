import { describe, expect, it } from 'vitest';
import { decideApproval, notAllowedMessage, type ApprovalAsk, type ApprovalPolicy } from '#shared/domain/core/approval.ts';

/** Who may release money out: the one approval rule of the money core (shared/domain/core/approval.ts). */
const ask = (over: Partial<ApprovalAsk>): ApprovalAsk => ({
  kind: 'payout',
  policy: 'either',
  decision: 'approve',
  side: 'merchant',
  status: 'Pending',
  maker: 'u_maker',
  actor: 'u_checker',
  ...over,
});
const outcome = (over: Partial<ApprovalAsk>) => {
  const d = decideApproval(ask(over));
  return 'refused' in d ? d.refused : d.decided === 'waiting' ? `waiting for ${d.waitingFor}` : d.decided;
};
const policies: ApprovalPolicy[] = ['either', 'merchant', 'operator', 'both'];

describe('decideApproval', () => {
  it('decides only a Pending object, never by its maker (maker-checker), before the setting', () => {
    expect(decideApproval(ask({ status: 'Processing', policy: 'operator' }))).toEqual({ refused: 'not_pending' });
    expect(outcome({ actor: 'u_maker', policy: 'operator' })).toBe('maker_checker');
    expect(outcome({ actor: 'u_maker', side: 'operator', maker: null })).toBe('approve');
  });

  it('payouts and settlements: the setting names who approves; both waits for the other side', () => {
    for (const kind of ['payout', 'settlement'] as const) {
      const approving = (side: 'merchant' | 'operator') => policies.map((policy) => outcome({ kind, policy, side }));
      expect(approving('merchant')).toEqual(['approve', 'approve', 'approver_not_allowed', 'waiting for operator']);
      expect(approving('operator')).toEqual(['approve', 'approver_not_allowed', 'approve', 'waiting for merchant']);
      const rejecting = (side: 'merchant' | 'operator') => policies.map((policy) => outcome({ kind, policy, side, decision: 'reject' }));
      expect(rejecting('merchant')).toEqual(['reject', 'reject', 'approver_not_allowed', 'reject']);
      expect(rejecting('operator')).toEqual(['reject', 'reject', 'reject', 'reject']);
    }
    expect(outcome({ policy: 'both', approvals: { merchant: {} } })).toBe('waiting for operator');
    expect(outcome({ policy: 'both', approvals: { merchant: {}, operator: {} } })).toBe('approve');
    expect(outcome({ policy: 'both', side: 'operator', approvals: { merchant: {}, operator: {} } })).toBe('approve');
  });

  it("refunds: the merchant's approvers only under merchant or both; else the operator (the sandbox in test mode)", () => {
    const approving = (side: 'merchant' | 'operator') => policies.map((policy) => outcome({ kind: 'refund', policy, side }));
    expect(approving('merchant')).toEqual(['approver_not_allowed', 'approve', 'approver_not_allowed', 'waiting for operator']);
    expect(approving('operator')).toEqual(['approve', 'approver_not_allowed', 'approve', 'waiting for merchant']);
    const rejecting = policies.map((policy) => outcome({ kind: 'refund', policy, decision: 'reject' }));
    expect(rejecting).toEqual(['approver_not_allowed', 'reject', 'approver_not_allowed', 'reject']);
    expect(notAllowedMessage('operator', 'refund')).toBe(
      "This merchant's refunds are approved by the operator (in test mode the sandbox) (merchant setting).",
    );
    expect(notAllowedMessage('operator', 'settlement')).toBe(
      "This merchant's settlements are approved by the operator (merchant setting).",
    );
  });
});
