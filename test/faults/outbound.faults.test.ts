import { describe, expect, it } from 'vitest';
import { SettlementStatus } from '#shared/domain/settlement.ts';
import { RefundStatus } from '#shared/domain/refund.ts';
import { armFault } from '#shared/faults.ts';
import { creditTestWallet } from '#shared/services/merchants.ts';
import { createRefund } from '#shared/services/refund-requests.ts';
import { advanceRefund, approveRefund } from '#shared/services/refunds.ts';
import { createSettlement } from '#shared/services/settlement-requests.ts';
import { advanceSettlement, approveSettlement } from '#shared/services/settlements.ts';
import { hasSandboxReceipt } from '#shared/store/sandbox-receipts.ts';
import { getWallet, withFunds } from '#shared/store/wallets.ts';
import { newMerchant } from '../support/gateway.ts';
import { completedPayment, expectLedgerConsistent } from '../support/money.ts';
import { commitRequest } from '#shared/store/request.ts';

/**
 * The crash between "submission recorded" and "provider called", per product (the withdrawal one
 * is in withdrawal.faults.test.ts): the process dies right before the sandbox provider is called.
 * The submission stays recorded and is never submitted again; the sandbox, which never received
 * it, answers the status inquiry NotFound; within the grace period nothing changes, after it the
 * engine treats the submission as never sent (settlement: Failed, funds released; refund: the
 * next attempt, with the same reference).
 */
const noFee = { basisPoints: 0, fixedMinor: 0 };
const minutes = (n: number) => n * 60_000;

describe('crash between "submission recorded" and "provider called"', () => {
  it('settlement: NotFound keeps it Processing within the grace, then Failed with the funds released, never submitted', async () => {
    const m = await newMerchant();
    await creditTestWallet(m.merchantId, 'test', 1000_00, 'PKR');
    const caller = { merchantId: m.merchantId, mode: 'test' as const, fee: noFee, traceId: 'crash-settlement' };
    const destination = { type: 'bank' as const, bankName: 'HBL', iban: 'PK36SCBL0000001123456702', accountTitle: 'Acme Ltd' };
    const s = await commitRequest(
      (place) => createSettlement(caller, { amountMinor: 400_00, currency: 'PKR', payoutCurrency: 'PKR', destination }, place),
      undefined,
      withFunds,
    );
    await approveSettlement(s.id);

    let t = Date.now();
    const fault = armFault(1, (point) => point === 'provider:settlement_rail.submit');
    await advanceSettlement(s.id, new Date(t)).catch(() => undefined);
    fault.disarm();
    expect(fault.fired()).toBe('provider:settlement_rail.submit');
    expect(await hasSandboxReceipt('settlement_rail', s.id)).toBe(false);

    expect(await advanceSettlement(s.id, new Date((t += 31_000)))).toMatchObject({
      status: SettlementStatus.Processing,
      railReference: null,
    });
    expect(await advanceSettlement(s.id, new Date((t += minutes(5))))).toMatchObject({ status: SettlementStatus.Processing });
    expect(await advanceSettlement(s.id, new Date((t += minutes(11))))).toMatchObject({
      status: SettlementStatus.Failed,
      failureReason: expect.stringMatching(/did not reach/),
    });
    expect(await hasSandboxReceipt('settlement_rail', s.id)).toBe(false); // never submitted again
    expect(await getWallet(m.merchantId, 'test', 'PKR', true)).toMatchObject({ available: 1000_00, held: 0 });
    await expectLedgerConsistent(m.merchantId, 'test');
  });

  it('refund: NotFound keeps the attempt outstanding within the grace, then the next attempt (same reference) completes it', async () => {
    const m = await newMerchant();
    const payment = await completedPayment(m.merchantId, 'test', 100_00);
    const caller = { merchantId: m.merchantId, mode: 'test' as const, fee: noFee, traceId: 'crash-refund' };
    const r = await commitRequest(() => createRefund(caller, { trxnRef: payment.paymentIntentId, amount: 40 }));
    await approveRefund(r.id);

    let t = Date.now() + 1_000;
    const fault = armFault(1, (point) => point === 'provider:refund_provider.submit');
    await advanceRefund(r.id, new Date(t)).catch(() => undefined);
    fault.disarm();
    expect(fault.fired()).toBe('provider:refund_provider.submit');
    expect(await hasSandboxReceipt('refund_provider', r.id)).toBe(false);

    expect(await advanceRefund(r.id, new Date((t += 61_000)))).toMatchObject({ status: RefundStatus.Processing, attemptCount: 1 });
    expect(await advanceRefund(r.id, new Date((t += minutes(15))))).toMatchObject({
      status: RefundStatus.Processing,
      attemptCount: 1,
      attemptedAt: null,
      failureReason: expect.stringMatching(/did not reach/),
    });
    expect(await hasSandboxReceipt('refund_provider', r.id)).toBe(false);
    expect(await advanceRefund(r.id, new Date((t += 3_000)))).toMatchObject({
      status: RefundStatus.Completed,
      attemptCount: 2,
      failureReason: null,
    });
    expect(await hasSandboxReceipt('refund_provider', r.id)).toBe(true);
    expect(await getWallet(m.merchantId, 'test', 'PKR', true)).toMatchObject({ available: 60_00, held: 0 });
    expect((await expectLedgerConsistent(m.merchantId, 'test')).external('refund_rail')).toBe(40_00);
  });
});
