import Stripe from 'stripe';
import { afterAll, beforeEach, describe, expect, it } from 'vitest';
import { jobs } from '#functions/jobs.ts';
import { routeList } from '#functions/routes.ts';
import { creditTestWallet, parseEventTypes, setWebhook } from '#shared/services/merchants.ts';
import { advanceRefund, approveRefund } from '#shared/services/refunds.ts';
import { advanceSettlement, approveSettlement } from '#shared/services/settlements.ts';
import { call, newMerchant, useGateway, type TestMerchant } from '../support/gateway.ts';
import { changeStatus, seedIntent } from '../support/intents.ts';
import { completedPayment } from '../support/money.ts';
import { eventually, startReceiver, useWebhookStack, type Delivery, type Receiver } from '../support/webhooks.ts';

/**
 * RefundStatusChanged and SettlementStatusChanged (issue 11 point 7) end to end on the local
 * pipeline (commit → stream relay → local SQS → dispatcher → a real receiver on 127.0.0.1),
 * verified with Stripe's own `stripe` library; endpoint subscriptions to a subset of types.
 */
useWebhookStack([jobs.webhookRelay, jobs.webhookDispatcher]);
const gw = useGateway(routeList);
const stripe = new Stripe('sk_test_not_used_for_verification');
const receivers: Receiver[] = [];
afterAll(async () => {
  await Promise.all(receivers.map((r) => r.stop()));
});
beforeEach(() => {
  process.env.WEBHOOK_RETRY_SCHEDULE = '1,1,1,1,1,1,1';
  process.env.WEBHOOK_MERCHANT_CACHE_MS = '0';
});

async function receiver() {
  const r = await startReceiver();
  receivers.push(r);
  return r;
}

const refundFields = [
  'RefundId',
  'PaymentIntentId',
  'TransactionReference',
  'PreviousStatus',
  'CurrentStatus',
  'CurrentStatusName',
  'Amount',
  'Currency',
  'Reason',
  'AttemptCount',
  'MerchantId',
  'Timestamp',
  'TraceId',
];
const settlementFields = [
  'SettlementId',
  'PreviousStatus',
  'CurrentStatus',
  'CurrentStatusName',
  'Amount',
  'Currency',
  'PayoutCurrency',
  'PayoutAmount',
  'FxRate',
  'FailureReason',
  'IsAuto',
  'MerchantId',
  'Timestamp',
  'TraceId',
  'Breakdown',
];
// In status order: these flows only move forward, and the test drives them with a simulated clock that
// can put a step's Timestamp ahead of one a background job stamps with the real time.
const ofType = (ds: Delivery[], type: string) =>
  ds.filter((d) => d.event.type === type).sort((a, b) => a.event.data.CurrentStatus - b.event.data.CurrentStatus);

async function refundToCompletion(m: TestMerchant) {
  const payment = await completedPayment(m.merchantId, 'test', 100_00);
  const created = await call(gw.baseUrl, 'POST', '/Gateway/v1/Refunds', {
    key: m.test.apiKey,
    secret: m.test.secretKey,
    body: { trxnRef: payment.orderRef.orderRef, amount: 40, reason: 'Damaged item' },
  });
  expect(created.status).toBe(201);
  await approveRefund(created.json.id);
  let t = Date.now();
  for (let i = 0; i < 8 && (await advanceRefund(created.json.id, new Date((t += 3_000))))!.status < 3; i++);
  return { id: created.json.id as string, payment };
}

async function settlementToCompletion(m: TestMerchant) {
  await creditTestWallet(m.merchantId, 'test', 1000_00, 'PKR');
  const created = await call(gw.baseUrl, 'POST', '/Gateway/v1/Settlements', {
    key: m.test.apiKey,
    secret: m.test.secretKey,
    body: { amount: 500, currency: 'PKR', bankName: 'HBL', iban: 'PK36SCBL0000001123456702', accountTitle: 'Acme Ltd' },
  });
  expect(created.status).toBe(200);
  await approveSettlement(created.json.id);
  let t = Date.now();
  for (let i = 0; i < 6 && (await advanceSettlement(created.json.id, new Date((t += 3_000))))!.status < 3; i++);
  return created.json.id as string;
}

describe('refund and settlement events', { timeout: 90_000 }, () => {
  it('sends RefundStatusChanged and SettlementStatusChanged on each status change, checked by stripe.webhooks.constructEvent', async () => {
    const hook = await receiver();
    const m = await newMerchant({ name: 'Events Merchant', webhookUrl: `${hook.url}/hooks`, allowInsecureWebhooks: true });
    const refund = await refundToCompletion(m);
    const settlementId = await settlementToCompletion(m);
    const all = await hook.waitFor(
      (ds) => ofType(ds, 'RefundStatusChanged').length >= 3 && ofType(ds, 'SettlementStatusChanged').length >= 3,
    );
    const secret = m.test.webhookSecret!;

    for (const d of [...ofType(all, 'RefundStatusChanged'), ...ofType(all, 'SettlementStatusChanged')]) {
      // Stripe's library verifies the X-Svc-Signature-V2 header (t=…,v1=…) against the raw body.
      const event = stripe.webhooks.constructEvent(d.body, String(d.headers['x-svc-signature-v2']), secret) as unknown as Delivery['event'];
      expect(event.id).toBe(d.headers['x-svc-event-id']);
      expect(d.headers['x-svc-event-type']).toBe(event.type);
      expect(Object.keys(event).sort()).toEqual(['api_version', 'created', 'data', 'id', 'livemode', 'type']);
      expect(event).toMatchObject({ livemode: false, api_version: 'v1' });
      expect(() =>
        stripe.webhooks.constructEvent(
          d.body.replace('"Currency":"PKR"', '"Currency":"USD"'),
          String(d.headers['x-svc-signature-v2']),
          secret,
        ),
      ).toThrow();
      expect(() => stripe.webhooks.constructEvent(d.body, String(d.headers['x-svc-signature-v2']), m.live.webhookSecret!)).toThrow();
    }

    const refunds = ofType(all, 'RefundStatusChanged').map((d) => d.event.data);
    expect(refunds.map((e) => [e.PreviousStatus, e.CurrentStatus, e.CurrentStatusName])).toEqual([
      [0, 1, 'Approved'],
      [1, 2, 'Processing'],
      [2, 3, 'Completed'],
    ]);
    // exactly these members (the stored map keeps no order)
    for (const data of refunds) expect(Object.keys(data).sort()).toEqual([...refundFields].sort());
    expect(refunds[2]).toEqual({
      RefundId: refund.id,
      PaymentIntentId: refund.payment.paymentIntentId,
      TransactionReference: refund.payment.transactionReference,
      PreviousStatus: 2,
      CurrentStatus: 3,
      CurrentStatusName: 'Completed',
      Amount: 40,
      Currency: 'PKR',
      Reason: 'Damaged item',
      AttemptCount: 1,
      MerchantId: m.merchantId,
      Timestamp: expect.stringMatching(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/),
      TraceId: expect.any(String),
    });

    const settlements = ofType(all, 'SettlementStatusChanged').map((d) => d.event.data);
    expect(settlements.map((e) => [e.PreviousStatus, e.CurrentStatus, e.CurrentStatusName])).toEqual([
      [0, 1, 'Approved'],
      [1, 2, 'Processing'],
      [2, 3, 'Completed'],
    ]);
    for (const data of settlements) expect(Object.keys(data).sort()).toEqual([...settlementFields].sort());
    // Every event carries the settlement's breakdown totals (issue 28 §4), as the lookup shows them: the wallet's history
    // before it (the refunded payment, the refund, the operator credit) and CarriedIn + Net = Amount + CarriedForward.
    const { breakdown } = (await call(gw.baseUrl, 'GET', `/Gateway/v1/Settlements/${settlementId}`, { key: m.test.apiKey })).json;
    const pascal = Object.fromEntries(Object.entries(breakdown).map(([k, v]) => [k[0]!.toUpperCase() + k.slice(1), v]));
    expect(breakdown).toEqual({
      carriedIn: 0,
      gross: 100,
      fees: 0,
      refunds: 40,
      payouts: 0,
      other: 1000,
      net: 1060,
      amount: 500,
      carriedForward: 560,
      count: 3, // the refund's completion was posted at the test's later clock: after this settlement's cut-off
    });
    for (const data of settlements) expect(data.Breakdown).toEqual(pascal);
    expect(settlements[2]).toMatchObject({
      SettlementId: settlementId,
      Amount: 500,
      Currency: 'PKR',
      PayoutCurrency: 'PKR',
      PayoutAmount: expect.any(Number),
      FailureReason: null,
      IsAuto: false,
      MerchantId: m.merchantId,
    });

    // Logged and resendable like TransactionStatusChanged: the attempts route and a resend with the same id.
    const refundEvent = ofType(all, 'RefundStatusChanged')[2]!.event;
    const attempts = await call(gw.baseUrl, 'GET', `/Gateway/v1/Events/${refundEvent.id}/attempts`, { key: m.test.apiKey });
    expect(attempts.json).toMatchObject({
      eventId: refundEvent.id,
      paymentIntentId: refund.payment.paymentIntentId,
      delivery: { state: 'delivered', attempts: 1 },
    });
    const settlementEvent = ofType(all, 'SettlementStatusChanged')[0]!.event;
    expect((await call(gw.baseUrl, 'GET', `/Gateway/v1/Events/${settlementEvent.id}/attempts`, { key: m.test.apiKey })).json).toMatchObject(
      {
        eventId: settlementEvent.id,
        paymentIntentId: null,
        delivery: { state: 'delivered' },
        items: [{ outcome: 'delivered', destination: 'endpoint', statusCode: 200 }],
      },
    );
    for (const id of [refundEvent.id, settlementEvent.id]) {
      const resent = await call(gw.baseUrl, 'POST', `/Gateway/v1/Events/${id}/resend`, { key: m.test.apiKey });
      expect(resent.status).toBe(202);
    }
    const again = await hook.waitFor(
      (ds) => ds.filter((d) => d.event.id === refundEvent.id || d.event.id === settlementEvent.id).length >= 4,
    );
    const resentRefund = again.filter((d) => d.event.id === refundEvent.id);
    expect(resentRefund[1]!.body).toBe(resentRefund[0]!.body);
    expect(resentRefund[1]!.headers['x-svc-delivery-id']).not.toBe(resentRefund[0]!.headers['x-svc-delivery-id']);
    // Another merchant cannot see or resend them.
    const other = await newMerchant();
    expect((await call(gw.baseUrl, 'GET', `/Gateway/v1/Events/${refundEvent.id}/attempts`, { key: other.test.apiKey })).status).toBe(404);
  });

  it('sends an endpoint only the event types it subscribes to; the others are recorded as no_destination', async () => {
    const hook = await receiver();
    const m = await newMerchant({ name: 'Subscriber', webhookUrl: hook.url, allowInsecureWebhooks: true });
    expect(await setWebhook(m.merchantId, 'test', undefined, undefined, parseEventTypes('RefundStatusChanged'))).toMatchObject({
      url: hook.url,
      events: ['RefundStatusChanged'],
      webhookSecret: null,
    });
    const intent = await seedIntent(m.merchantId, 'test');
    const change = await changeStatus(intent.paymentIntentId, () => ({ to: 'Completed' }));
    expect(change.changed).toBe(true);
    const refund = await refundToCompletion(m);
    await hook.waitFor((ds) => ds.filter((d) => d.event.type === 'RefundStatusChanged').length >= 3);
    const transactionEvent = change.changed ? change.transition.event : undefined;
    const attempts = await eventually(
      async () => (await call(gw.baseUrl, 'GET', `/Gateway/v1/Events/${transactionEvent!.id}/attempts`, { key: m.test.apiKey })).json,
      (j) => j?.delivery?.state === 'no_destination',
    );
    expect(attempts.items[0].error).toBeDefined();
    expect(hook.deliveries.map((d) => d.event.type)).not.toContain('TransactionStatusChanged');
    expect(hook.deliveries.every((d) => d.event.data.RefundId === refund.id)).toBe(true);

    // "all" restores the default; unknown names are refused.
    expect(await setWebhook(m.merchantId, 'test', undefined, undefined, parseEventTypes('all'))).toMatchObject({
      events: ['TransactionStatusChanged', 'RefundStatusChanged', 'SettlementStatusChanged'],
    });
    expect(() => parseEventTypes('RefundStatusChanged,Bogus')).toThrow(/unknown: Bogus/);
    const second = await seedIntent(m.merchantId, 'test');
    await changeStatus(second.paymentIntentId, () => ({ to: 'Completed' }));
    await hook.waitFor((ds) => ds.some((d) => d.event.data.TransactionId === second.paymentIntentId));
  });
});
