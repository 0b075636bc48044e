import { describe, expect, it } from 'vitest';
import { isRefusal } from '#shared/domain/core/decision.ts';
import {
  answersCurrent,
  decideAnswer,
  decideDepositAnswer,
  decideIntent,
  notificationMismatches,
  type AnswerCommand,
} from '#shared/domain/core/intent.ts';
import type { PaymentIntent } from '#shared/domain/intent.ts';
import { intentFixture } from '../support/intent-fixture.ts';

/**
 * A provider's answer is decided by the money core (decideAnswer, decideDepositAnswer) behind its guards (answersCurrent):
 * only an answer about the attempt the session pays with now decides it; one about an earlier charge or card attempt, or
 * about money held for the operator, changes nothing; with no deciding answer, the approval deadline and the expiry do.
 */
const created = '2026-11-29T05:00:00.000Z';
const now = new Date('2026-11-29T05:10:00.000Z');
const card = { brand: 'visa', last4: '4242', expMonth: 12, expYear: 2030 };
const wallet = { provider: 1, stage: 'approval', providerReference: 'W-2', otpAttempts: 0, approvalRequestedAt: created };
const cardAuth = { stage: 'confirming', providerReference: 'C-2', authenticationId: 'a', url: '', fields: {}, card, startedAt: created };

const checkout = (details: Record<string, unknown>, over: Partial<PaymentIntent> = {}): PaymentIntent =>
  intentFixture({
    ...{ mode: 'live', intentType: 'checkout', feeMinor: 0, description: 'checkout', createdAt: created, updatedAt: created },
    ...{ expiresAt: '2026-11-29T05:30:00.000Z', details: { feeRate: { basisPoints: 200, fixedMinor: 0 }, ...details } },
    ...over,
  });
const approved = { status: 'Approved' } as const;
const chargeAnswer = (reference: string, answer?: AnswerCommand['answer']): Extract<AnswerCommand, { type: 'charge-answered' }> => ({
  type: 'charge-answered',
  reference,
  stage: 'approval',
  answer,
});
const statusOf = (d: ReturnType<typeof decideAnswer>) => (isRefusal(d) ? d.refused : d.state.status);

describe('a provider answer decided by the money core', () => {
  it('credits an approval of the charge the session awaits, once, and of no earlier charge', () => {
    const session = checkout({ wallet, walletProvider: 'JazzCash' });
    const paid = decideAnswer(session, chargeAnswer('W-2', approved), now);
    expect(isRefusal(paid) ? paid.refused : [paid.state.status, paid.state.feeMinor, paid.journals.length]).toEqual([
      'Completed',
      2_000,
      1,
    ]);
    expect(statusOf(decideAnswer(session, chargeAnswer('W-1', approved), now))).toBe('unchanged');
  });

  it('takes a card answer only about the card payment being confirmed', () => {
    const session = checkout({ cardAuth });
    expect(statusOf(decideAnswer(session, { type: 'card-answered', reference: 'C-2', answer: approved }, now))).toBe('Completed');
    expect(statusOf(decideAnswer(session, { type: 'card-answered', reference: 'C-1', answer: approved }, now))).toBe('unchanged');
    // A wallet's answer never ends a card payment being confirmed.
    expect(statusOf(decideAnswer(session, chargeAnswer('C-2', approved), now))).toBe('unchanged');
    const declined = { status: 'Declined', reason: 'insufficient_funds', detail: 'no funds' } as const;
    const failed = decideAnswer(session, { type: 'card-answered', reference: 'C-2', answer: declined }, now);
    // The first declined attempt leaves the session payable again, the attempt recorded with the card's reason.
    expect(isRefusal(failed) ? failed.refused : failed.state.details.attempts).toMatchObject([{ reason: 'insufficient_funds', card }]);
  });

  it('does not take an approval about a charge the session has moved on from (declined meanwhile) as its own', () => {
    const session = checkout({ wallet, walletProvider: 'JazzCash' });
    const declined = decideIntent(
      session,
      { type: 'attempt-failed', source: { walletProvider: 1 }, failure: { reason: 'customer_declined' } },
      now,
    );
    if (isRefusal(declined)) throw new Error(declined.message);
    expect(answersCurrent(session, chargeAnswer('W-2', approved))).toBe(true);
    expect(answersCurrent(declined.state, chargeAnswer('W-2', approved))).toBe(false);
    expect(statusOf(decideAnswer(declined.state, chargeAnswer('W-2', approved), now))).toBe('unchanged');
  });

  it('credits no answer about money held for the operator', () => {
    const heldApproval = { heldAt: created, source: 'inquiry', providerReference: 'W-2' };
    const session = checkout({ wallet, walletProvider: 'JazzCash', heldApproval });
    expect(statusOf(decideAnswer(session, chargeAnswer('W-2', approved), now))).toBe('unchanged');
    const deposit = checkout({ providerId: 1, heldApproval }, { intentType: 'deposit', feeMinor: 20_00 });
    expect(statusOf(decideDepositAnswer(deposit, { type: 'charge-answered', answer: approved, details: {} }, now))).not.toBe('Completed');
  });

  it('expires an unanswered approval at its deadline, not before, and not while a withdrawal is unconfirmed', () => {
    const session = checkout({ wallet, walletProvider: 'JazzCash' }, { expiresAt: '2026-11-29T05:05:00.000Z' });
    const pending = { status: 'Pending' } as const;
    // Requested at 05:00: the 10-minute approval window ends at 05:10, after the session's expiry.
    expect(statusOf(decideAnswer(session, chargeAnswer('W-2', pending), new Date('2026-11-29T05:09:59.999Z')))).toBe('unchanged');
    expect(statusOf(decideAnswer(session, chargeAnswer('W-2', pending), now))).toBe('Expired');
    expect(statusOf(decideAnswer(session, { ...chargeAnswer('W-2', pending), keepOpen: true }, now))).toBe('unchanged');
  });

  it('refuses a notification stating another amount or currency than the stored payment (it never credits)', () => {
    const deposit = checkout({ providerId: 1 }, { intentType: 'deposit', amountMinor: 500_00, currency: 'PKR' });
    expect(notificationMismatches(deposit, { amountMinor: 500_00, currency: 'PKR', mismatched: [] })).toEqual([]);
    expect(notificationMismatches(deposit, { mismatched: [] })).toEqual([]);
    expect(notificationMismatches(deposit, { amountMinor: 5_000_00, mismatched: [] })).toEqual(['amount']);
    expect(notificationMismatches(deposit, { amountMinor: 500_00, currency: 'USD', mismatched: [] })).toEqual(['currency']);
    expect(notificationMismatches(deposit, { amountMinor: 499_99, mismatched: ['pp_MerchantID'] })).toEqual(['pp_MerchantID', 'amount']);
  });
});
