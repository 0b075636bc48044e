import { expect } from 'vitest';
import { draft } from '#shared/domain/core/decision.ts';
import { creditTestWallet } from '#shared/services/merchants.ts';
import { advanceRefund, approveRefund } from '#shared/services/refunds.ts';
import { advanceSettlement, approveSettlement } from '#shared/services/settlements.ts';
import { changeStatus } from './intents.ts';
import { rejectWithdrawal } from '#shared/services/withdrawal-operator.ts';
import { reconcileWithdrawal } from '#shared/services/withdrawals.ts';
import { getIntent } from '#shared/store/intents.ts';
import { call, type TestMerchant } from './gateway.ts';
import { seedIntent } from './intents.ts';

/** A payment the customer paid, its fee taken: the same journal lines the checkout and deposit flows post. */
export async function paid(m: TestMerchant, intentType: 'checkout' | 'deposit', amountMinor: number, feeMinor: number) {
  const intent = await seedIntent(m.merchantId, 'test', { amountMinor, intentType });
  const done = await changeStatus(intent.paymentIntentId, (c) => ({
    to: 'Completed',
    feeMinor,
    journals: [
      draft(`${intentType}.completed`, c.paymentIntentId, [
        { account: { kind: 'external', name: intentType === 'checkout' ? 'card_network' : 'wallet:JAZZCASH' }, amount: -amountMinor },
        { account: { kind: 'available' }, amount: amountMinor - feeMinor },
        { account: { kind: 'fees' }, amount: feeMinor },
      ]),
    ],
  }));
  expect(done.changed).toBe(true);
  return intent;
}

/**
 * A mixed history of a test merchant through the real flows (issue 28): an operator credit, two card
 * payments and a deposit with fees, a payout completed and one rejected, a partial refund, a bank
 * settlement, and with `fx` a settlement paid in USDT at the rate locked at approval.
 */
export async function mixedHistory(baseUrl: string, m: TestMerchant, options: { fx?: boolean } = {}) {
  const post = (path: string, body: Record<string, unknown>) =>
    call(baseUrl, 'POST', `/Gateway/v1${path}`, { key: m.test.apiKey, secret: m.test.secretKey, body });
  await creditTestWallet(m.merchantId, 'test', 2000_00, 'PKR');
  const card = await paid(m, 'checkout', 1500_00, 37_50);
  await paid(m, 'checkout', 820_00, 20_50);
  const deposit = await paid(m, 'deposit', 1000_00, 15_00);
  const payout = (orderRef: string, autoProcessPayout: boolean) =>
    post('/Payment/withdraw', {
      amount: 300,
      currency: 'PKR',
      description: 'Payout',
      autoProcessPayout,
      customerRef: { bankAccountNumber: 'PK36SCBL0000001123450000', bankCode: 'MEEZAN', accountTitle: 'Ayesha Khan' },
      orderRef: { orderRef },
    });
  const completed = await payout(`BTOK${m.merchantId.slice(0, 6)}`, true);
  expect(completed.status).toBe(200);
  const processing = (await getIntent(completed.json.paymentIntentId))!;
  await reconcileWithdrawal(processing, new Date(Date.now() + 10_000));
  expect((await getIntent(completed.json.paymentIntentId))!.status).toBe('Completed');
  const rejected = await payout(`BTNO${m.merchantId.slice(0, 6)}`, false);
  expect(rejected.status).toBe(200);
  await rejectWithdrawal(rejected.json.paymentIntentId, 'Account title does not match');
  const refund = await post('/Refunds', { trxnRef: card.paymentIntentId, amount: 40, reason: 'One item' });
  expect(refund.status).toBe(201);
  await approveRefund(refund.json.id);
  let t = Date.now();
  for (let i = 0; i < 8 && (await advanceRefund(refund.json.id, new Date((t += 3_000))))!.status < 3; i++);
  const settlement = await post('/Settlements', {
    amount: 500,
    currency: 'PKR',
    bankName: 'HBL',
    iban: 'PK36SCBL0000001123456702',
    accountTitle: 'Acme Ltd',
  });
  expect(settlement.status).toBe(200);
  await approveSettlement(settlement.json.id);
  for (let i = 0; i < 8 && (await advanceSettlement(settlement.json.id, new Date((t += 3_000))))!.status < 3; i++);
  const fx = options.fx ? await post('/Settlements', { amount: 300, usdtAddress: 'TR7NHqjeKQxGTCi8q8ZY4pL8otSzgjLj6t' }) : undefined;
  if (fx) {
    expect(fx.status).toBe(200);
    expect((await approveSettlement(fx.json.id)).fxRate).toBeGreaterThan(0);
    for (let i = 0; i < 8 && (await advanceSettlement(fx.json.id, new Date((t += 3_000))))!.status < 3; i++);
  }
  return {
    ...(fx ? { fx: fx.json.id as string } : {}),
    card,
    deposit,
    payout: completed.json.paymentIntentId,
    failed: rejected.json.paymentIntentId,
    refund: refund.json.id,
    settlement: settlement.json.id,
  };
}
