import { describe, expect, it } from 'vitest';
import type { PaymentIntent } from '#shared/domain/intent.ts';
import { decideInquiry, pastNotFoundGrace } from '#shared/domain/outbound.ts';
import { newWithdrawal, payoutFailure, payoutMessages, withdrawalDetails } from '#shared/domain/payout.ts';
import {
  newRefund,
  refundAfterFailure,
  refundAmount,
  refundNotReceivedReason,
  refundOverdue,
  refundReadyForAttempt,
  RefundStatus,
  type RefundableIntent,
} from '#shared/domain/refund.ts';
import { newSettlement, settlementFailureReason } from '#shared/domain/settlement.ts';
import { TransactionFailed } from '#shared/store/client.ts';

/** The pure decisions of the outbound-transfer engine and its three products (no store, no provider). */
describe('status inquiry decisions', () => {
  it('completes on Completed and fails on Failed', () => {
    expect(decideInquiry({ status: 'Completed' }, false)).toEqual({ kind: 'completed' });
    expect(decideInquiry({ status: 'Failed', reason: 'closed account' }, false)).toEqual({
      kind: 'failed',
      failure: { kind: 'failed', reason: 'closed account' },
    });
  });

  it('asks again while Processing, and after the re-inquiry wait when there is no answer', () => {
    expect(decideInquiry({ status: 'Processing' }, true)).toEqual({ kind: 'again', after: 'poll' });
    expect(decideInquiry(undefined, true)).toEqual({ kind: 'again', after: 'reinquire' });
  });

  it('believes NotFound only after the grace period, and a possibly stale Failed too', () => {
    expect(decideInquiry({ status: 'NotFound' }, false)).toEqual({ kind: 'again', after: 'poll' });
    expect(decideInquiry({ status: 'NotFound' }, true)).toEqual({ kind: 'failed', failure: { kind: 'not_received' } });
    expect(decideInquiry({ status: 'Failed', reason: 'declined' }, false, true)).toEqual({ kind: 'again', after: 'poll' });
    expect(decideInquiry({ status: 'Failed', reason: 'declined' }, true, true)).toMatchObject({ kind: 'failed' });
  });

  it('measures the grace from the submission record with the given clock', () => {
    expect(pastNotFoundGrace('2026-01-01T00:00:00.000Z', new Date('2026-01-01T00:14:59.999Z'))).toBe(false);
    expect(pastNotFoundGrace('2026-01-01T00:00:00.000Z', new Date('2026-01-01T00:15:00.000Z'))).toBe(true);
  });
});

describe('payout decisions', () => {
  const request = {
    merchantId: 'm1',
    mode: 'test' as const,
    traceId: 'trace-1',
    fee: { basisPoints: 100, fixedMinor: 10_00 },
    amountMinor: 500_00,
    currency: 'PKR' as const,
    description: 'Payout',
    metadataJson: null,
    callbackUrl: null,
    orderRef: { orderRef: 'O1' },
    bank: { code: 'MEEZAN', name: 'Meezan Bank', group: 'bank' as never, aliases: [] },
    accountNumber: 'PK36SCBL0000001123456702',
    accountTitle: 'Ayesha Khan',
    customer: {},
  };
  const ids = { paymentIntentId: 'p1', transactionReference: 'WD1' };
  const now = new Date('2026-01-01T00:00:00.000Z');

  it('creates a manual payout Pending without a submission, an automatic one Processing with its submission record', () => {
    const manual = newWithdrawal({ ...request, autoProcessPayout: false }, { name: 'Rail', reconcileAt: now }, now, ids);
    expect(manual).toMatchObject({ status: 'Pending', feeMinor: 15_00 });
    expect(withdrawalDetails(manual).submission).toBeUndefined();
    const auto = newWithdrawal(
      { ...request, autoProcessPayout: true },
      { name: 'Rail', reconcileAt: new Date(now.getTime() + 30_000) },
      now,
      ids,
    ) as PaymentIntent;
    expect(auto.status).toBe('Processing');
    expect(withdrawalDetails(auto).submission).toEqual({ provider: 'Rail', submittedAt: now.toISOString() });
    expect(withdrawalDetails(auto).payoutInfo).toMatchObject({
      errorCode: 'WP_OUTCOME_PENDING',
      customerAccountNumber: '********************6702',
    });
  });

  it('shows the bank reason for a refusal, only the trace id for an internal failure or a payout the bank never received', () => {
    expect(payoutFailure({ kind: 'rejected', reason: 'closed account' }, 't')).toMatchObject({
      status: 'Failed',
      errorCode: 'WP_REQUEST_REJECTED',
      errorDetails: 'closed account',
    });
    expect(payoutFailure({ kind: 'rejected', reason: 'TLS to 10.0.0.1', internal: true }, 't')).toMatchObject({
      errorCode: 'WP_INTERNAL_ERROR',
      errorDetails: payoutMessages.internal('t'),
    });
    expect(payoutFailure({ kind: 'not_received' }, 't')).toMatchObject({
      errorCode: 'WP_INTERNAL_ERROR',
      errorDetails: payoutMessages.notReceived('t'),
    });
  });
});

describe('settlement decisions', () => {
  const destination = { type: 'bank' as const, bankName: 'HBL', iban: 'PK36SCBL0000001123456702', accountTitle: 'Acme' };
  const owner = { merchantId: 'm1', mode: 'test' as const, traceId: 't' };

  it('refuses an amount the fee takes whole, and fixes the payout amount at once only without conversion', () => {
    const at = new Date();
    expect(
      newSettlement(
        owner,
        { amountMinor: 10_00, currency: 'PKR', payoutCurrency: 'PKR', destination },
        { basisPoints: 0, fixedMinor: 10_00 },
        false,
        at,
        's1',
      ),
    ).toBe('amount_too_small');
    expect(
      newSettlement(
        owner,
        { amountMinor: 100_00, currency: 'PKR', payoutCurrency: 'PKR', destination },
        { basisPoints: 0, fixedMinor: 1_00 },
        false,
        at,
        's1',
      ),
    ).toMatchObject({ netMinor: 99_00, payoutMinor: 99_00 });
    expect(
      newSettlement(
        owner,
        { amountMinor: 100_00, currency: 'PKR', payoutCurrency: 'USDT', destination },
        { basisPoints: 0, fixedMinor: 1_00 },
        false,
        at,
        's1',
      ),
    ).toMatchObject({ payoutMinor: null });
  });

  it('tells the merchant why it failed', () => {
    expect(settlementFailureReason({ kind: 'rejected', reason: 'closed' })).toBe('closed');
    expect(settlementFailureReason({ kind: 'not_received' })).toMatch(/did not reach/);
  });
});

describe('refund decisions', () => {
  const intent = {
    paymentIntentId: 'p1',
    intentType: 'checkout',
    status: 'Completed',
    amountMinor: 100_00,
    currency: 'PKR',
    refundReservedMinor: 30_00,
  } as RefundableIntent;
  const refund = newRefund(
    { merchantId: 'm1', mode: 'test', traceId: 't' },
    intent,
    40_00,
    0,
    null,
    new Date('2026-01-01T00:00:00.000Z'),
    'r1',
  );

  it('takes the remainder by default, refuses below the minimum, above the remainder, and what is not refundable', () => {
    expect(refundAmount(intent, undefined)).toEqual({ amountMinor: 70_00 });
    expect(refundAmount(intent, 70_00)).toEqual({ amountMinor: 70_00 });
    expect(refundAmount(intent, 70_01)).toMatchObject({ code: 'amount_exceeds_refundable' });
    expect(refundAmount(intent, 9_99)).toMatchObject({ code: 'amount_below_minimum' });
    expect(refundAmount({ ...intent, refundReservedMinor: 100_00 }, undefined)).toMatchObject({ code: 'already_refunded' });
    expect(refundAmount({ ...intent, status: 'Pending' }, undefined)).toMatchObject({ code: 'not_refundable' });
  });

  it('retries an unsuccessful attempt while attempts remain, keeping the last decline when a retry never arrived', () => {
    expect(refundAfterFailure({ attemptCount: 1, failureReason: null }, { kind: 'rejected', reason: 'declined' })).toEqual({
      retry: true,
      failureReason: 'declined',
    });
    expect(refundAfterFailure({ attemptCount: 2, failureReason: 'declined' }, { kind: 'not_received' })).toEqual({
      retry: true,
      failureReason: 'declined',
    });
    expect(refundAfterFailure({ attemptCount: 3, failureReason: 'declined' }, { kind: 'not_received' })).toEqual({
      retry: false,
      failureReason: refundNotReceivedReason,
    });
    expect(refundAfterFailure({ attemptCount: 3, failureReason: null }, { kind: 'failed', reason: 'declined' })).toEqual({
      retry: false,
      failureReason: 'declined',
    });
  });

  it('attempts only an approved refund or one whose last attempt was declined; expires only a Pending one past its expiry', () => {
    expect(refundReadyForAttempt({ ...refund, status: RefundStatus.Approved })).toBe(true);
    expect(refundReadyForAttempt({ ...refund, status: RefundStatus.Processing, attemptCount: 1, attemptedAt: null })).toBe(true);
    expect(
      refundReadyForAttempt({ ...refund, status: RefundStatus.Processing, attemptCount: 1, attemptedAt: '2026-01-01T00:00:00.000Z' }),
    ).toBe(false);
    expect(refundReadyForAttempt({ ...refund, status: RefundStatus.Processing, attemptCount: 3, attemptedAt: null })).toBe(false);
    expect(refundOverdue(refund, new Date('2026-01-08T00:00:00.000Z'))).toBe(true);
    expect(refundOverdue(refund, new Date('2026-01-07T23:59:59.999Z'))).toBe(false);
    expect(refundOverdue({ ...refund, status: RefundStatus.Approved }, new Date('2027-01-01T00:00:00.000Z'))).toBe(false);
  });
});

describe('named transaction items', () => {
  it('says which named item refused its condition', () => {
    const failed = new TransactionFailed(
      [{ code: 'None' }, { code: 'None' }, { code: 'ConditionalCheckFailed' }],
      ['settlement', 'journal', 'wallet'],
    );
    expect(failed.on('wallet')).toBe(true);
    expect(failed.on('settlement')).toBe(false);
    expect(new TransactionFailed([{ code: 'ConditionalCheckFailed' }]).on('settlement')).toBe(false);
  });
});
