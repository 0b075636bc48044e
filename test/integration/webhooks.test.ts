import { createHmac } from 'node:crypto';
import { Webhook, WebhookVerificationError } from 'standardwebhooks';
import { afterAll, beforeEach, describe, expect, it } from 'vitest';
import { jobs } from '#functions/jobs.ts';
import { routeList } from '#functions/routes.ts';
import { setWebhook } from '#shared/services/merchants.ts';
import {
  constructEvent,
  nextState,
  verifyLegacySignature,
  verifySignature,
  WebhookSignatureError,
  type ReceivedState,
} from '../../sdk/node/src/webhooks.ts';
import { rotateWebhookSecret } from '#shared/webhooks/secrets.ts';
import { call, newMerchant, useGateway, type TestMerchant } from '../support/gateway.ts';
import { changeStatus, seedIntent } from '../support/intents.ts';
import { eventually, startReceiver, useWebhookStack, type Receiver } from '../support/webhooks.ts';

/**
 * Webhooks end to end on the local stack: a status change commits with its outbox event, the
 * stream relay puts it on local SQS, the dispatcher signs and POSTs it to a real receiver on
 * 127.0.0.1, and the merchant endpoints show the delivery log.
 */
useWebhookStack([jobs.webhookRelay, jobs.webhookDispatcher]);
const gw = useGateway(routeList);
const receivers: Receiver[] = [];
afterAll(async () => {
  await Promise.all(receivers.map((r) => r.stop()));
});

beforeEach(() => {
  process.env.WEBHOOK_RETRY_SCHEDULE = '1,1,1,1,1,1,1';
  process.env.WEBHOOK_MERCHANT_CACHE_MS = '0'; // endpoint and secret changes apply to the very next delivery
  delete process.env.WEBHOOK_TIMEOUT_MS;
});

async function receiver(reply?: Parameters<typeof startReceiver>[0]) {
  const r = await startReceiver(reply);
  receivers.push(r);
  return r;
}

async function merchantWithEndpoint(url: string) {
  return newMerchant({ name: 'Webhook Merchant', webhookUrl: url, allowInsecureWebhooks: true });
}

const complete = (paymentIntentId: string) => changeStatus(paymentIntentId, () => ({ to: 'Completed' }));

/** Stripe's published verification recipe, written out independently of shared/webhooks/verify.ts. */
function stripeStyleVerify(payload: string, header: string, secret: string, toleranceSeconds = 300): boolean {
  const items = header.split(',').map((kv) => kv.split('=') as [string, string]);
  const timestamp = Number(items.find(([k]) => k === 't')?.[1]);
  const signatures = items.filter(([k]) => k === 'v1').map(([, v]) => v);
  const expected = createHmac('sha256', secret).update(`${timestamp}.${payload}`, 'utf8').digest('hex');
  return signatures.includes(expected) && Math.abs(Date.now() / 1000 - timestamp) <= toleranceSeconds;
}

describe('webhooks', { timeout: 60_000 }, () => {
  it('delivers a committed status change, signed, with the documented envelope and headers', async () => {
    const hook = await receiver();
    const m = await merchantWithEndpoint(`${hook.url}/hooks`);
    const intent = await seedIntent(m.merchantId, 'test');
    const changed = await complete(intent.paymentIntentId);
    expect(changed.changed).toBe(true);

    const [d] = await hook.waitFor((ds) => ds.length >= 1);
    const secret = m.test.webhookSecret!;
    // Stripe-style verification of the raw body, and the exported helper.
    expect(stripeStyleVerify(d!.body, String(d!.headers['x-svc-signature-v2']), secret)).toBe(true);
    const event = constructEvent(d!.body, d!.headers, secret);
    expect(verifyLegacySignature(d!.body, String(d!.headers['x-svc-signature']), secret)).toBe(true);
    expect(() => verifySignature(d!.body.replace('Completed', 'Cancelled'), String(d!.headers['x-svc-signature-v2']), secret)).toThrow(
      WebhookSignatureError,
    );
    expect(() => verifySignature(d!.body, String(d!.headers['x-svc-signature-v2']), m.live.webhookSecret!)).toThrow(WebhookSignatureError);

    expect(d!.path).toBe('/hooks');
    expect(d!.headers).toMatchObject({
      'content-type': 'application/json',
      'user-agent': 'Svc-Webhook/1.0',
      'x-svc-event-type': 'TransactionStatusChanged',
      'x-svc-event-id': event.id,
      'x-svc-signature-timestamp': expect.stringMatching(/^\d+$/),
      'x-svc-delivery-id': expect.stringMatching(/^dlv_[0-9a-f]{32}$/),
    });
    expect(d!.headers['x-svc-signature-v2']).toBe(
      `t=${d!.headers['x-svc-signature-timestamp']},` +
        `v1=${createHmac('sha256', secret).update(`${d!.headers['x-svc-signature-timestamp']}.${d!.body}`).digest('hex')}`,
    );
    expect(Object.keys(event).sort()).toEqual(['api_version', 'created', 'data', 'id', 'livemode', 'type']);
    expect(event).toMatchObject({
      id: changed.changed && changed.transition.event.id,
      type: 'TransactionStatusChanged',
      livemode: false,
      api_version: 'v1',
      created: expect.any(Number),
    });
    expect(event.data).toMatchObject({
      TransactionId: intent.paymentIntentId,
      PreviousStatus: 'Pending',
      CurrentStatus: 'Completed',
      Amount: 150,
      Currency: 'PKR',
      Reason: null,
      TransactionReference: intent.transactionReference,
      CustomerRef: { name: 'Ayesha' },
      MerchantId: m.merchantId,
      TraceId: intent.traceId,
    });
    expect(typeof event.data.OrderRef).toBe('string');
    expect(JSON.parse(event.data.OrderRef)).toEqual({ OrderRef: intent.orderRef.orderRef, Discount: null, Tax: '5' });

    // The delivery log, through the merchant endpoints.
    const listed = await eventually(
      () => call(gw.baseUrl, 'GET', `/Gateway/v1/Transaction/${intent.orderRef.orderRef}/events`, { key: m.test.apiKey }),
      (r) => r.json?.items?.[0]?.delivery?.state === 'delivered',
    );
    expect(listed.status).toBe(200);
    expect(listed.json).toMatchObject({
      paymentIntentId: intent.paymentIntentId,
      items: [
        {
          eventId: event.id,
          type: 'TransactionStatusChanged',
          previousStatus: 'Pending',
          currentStatus: 'Completed',
          delivery: { state: 'delivered', attempts: 1, lastStatusCode: 200 },
          event: { id: event.id },
        },
      ],
    });
    const attempts = await call(gw.baseUrl, 'GET', `/Gateway/v1/Events/${event.id}/attempts`, { key: m.test.apiKey });
    expect(attempts.status).toBe(200);
    expect(attempts.json).toMatchObject({
      eventId: event.id,
      paymentIntentId: intent.paymentIntentId,
      items: [
        {
          attempt: 1,
          trigger: 'automatic',
          deliveryId: d!.headers['x-svc-delivery-id'],
          statusCode: 200,
          error: null,
          outcome: 'delivered',
          url: `${hook.url}/hooks`,
          destination: 'endpoint',
          durationMs: expect.any(Number),
          attemptedAt: expect.any(String),
        },
      ],
    });

    // Other merchants and the other mode see nothing.
    const other = await newMerchant();
    expect((await call(gw.baseUrl, 'GET', `/Gateway/v1/Events/${event.id}/attempts`, { key: other.test.apiKey })).status).toBe(404);
    expect((await call(gw.baseUrl, 'GET', `/Gateway/v1/Events/${event.id}/attempts`, { key: m.live.apiKey })).status).toBe(404);
    expect(
      (await call(gw.baseUrl, 'GET', `/Gateway/v1/Transaction/${intent.paymentIntentId}/events`, { key: other.test.apiKey })).status,
    ).toBe(404);
    expect((await call(gw.baseUrl, 'POST', `/Gateway/v1/Events/${event.id}/resend`, { key: other.test.apiKey })).status).toBe(404);
  });

  it('signs every delivery the Standard Webhooks way too, one v1 per live secret during a rotation', async () => {
    const hook = await receiver();
    const m = await merchantWithEndpoint(hook.url);
    const old = m.test.webhookSecret!;
    const first = await seedIntent(m.merchantId, 'test');
    await complete(first.paymentIntentId);
    const [d] = await hook.waitFor((ds) => ds.length >= 1);
    const headers = {
      'webhook-id': String(d!.headers['webhook-id']),
      'webhook-timestamp': String(d!.headers['webhook-timestamp']),
      'webhook-signature': String(d!.headers['webhook-signature']),
    };
    expect(headers['webhook-id']).toBe(d!.headers['x-svc-event-id']);
    expect(headers['webhook-timestamp']).toBe(d!.headers['x-svc-signature-timestamp']);
    expect(headers['webhook-signature']).toMatch(/^v1,[A-Za-z0-9+/]+=*$/);
    const verified = new Webhook(old).verify(d!.body, headers) as { id: string; type: string };
    expect(verified).toMatchObject({ id: headers['webhook-id'], type: 'TransactionStatusChanged' });
    expect(() => new Webhook(old).verify(d!.body.replace('Completed', 'Cancelled'), headers)).toThrow(WebhookVerificationError);
    expect(() => new Webhook(m.live.webhookSecret!).verify(d!.body, headers)).toThrow(WebhookVerificationError);

    const rotated = await rotateWebhookSecret(m.merchantId, 'test', 3600);
    const second = await seedIntent(m.merchantId, 'test');
    await complete(second.paymentIntentId);
    const [, during] = await hook.waitFor((ds) => ds.length >= 2);
    const rotatedHeaders = {
      'webhook-id': String(during!.headers['webhook-id']),
      'webhook-timestamp': String(during!.headers['webhook-timestamp']),
      'webhook-signature': String(during!.headers['webhook-signature']),
    };
    expect(rotatedHeaders['webhook-signature'].split(' ')).toHaveLength(2);
    new Webhook(old).verify(during!.body, rotatedHeaders);
    new Webhook(rotated.webhookSecret).verify(during!.body, rotatedHeaders);
  });

  it('retries after a 500 with the same event id and a new delivery id, and logs every attempt', async () => {
    const hook = await receiver((_d, all) => (all.length === 1 ? 500 : 200));
    const m = await merchantWithEndpoint(hook.url);
    const intent = await seedIntent(m.merchantId, 'test');
    await complete(intent.paymentIntentId);
    const [first, second] = await hook.waitFor((ds) => ds.length >= 2);
    expect(second!.headers['x-svc-event-id']).toBe(first!.headers['x-svc-event-id']);
    expect(second!.event.id).toBe(first!.event.id);
    expect(second!.body).toBe(first!.body);
    expect(second!.headers['x-svc-delivery-id']).not.toBe(first!.headers['x-svc-delivery-id']);
    for (const d of [first!, second!]) constructEvent(d.body, d.headers, m.test.webhookSecret!);

    const log = await eventually(
      () => call(gw.baseUrl, 'GET', `/Gateway/v1/Events/${first!.event.id}/attempts`, { key: m.test.apiKey }),
      (r) => r.json?.delivery?.state === 'delivered' && r.json.items.some((a: any) => a.outcome === 'delivered'),
    );
    expect(log.json.items.map((a: any) => [a.attempt, a.statusCode, a.outcome, a.error])).toEqual([
      [1, 500, 'failed', 'http_status'],
      [2, 200, 'delivered', null],
    ]);
    expect(log.json.items[0].nextAttemptAt).toEqual(expect.any(String));
    expect(log.json.delivery).toMatchObject({ state: 'delivered', attempts: 2, lastStatusCode: 200 });
  });

  it('gives up on a receiver slower than the timeout and tries again', async () => {
    process.env.WEBHOOK_TIMEOUT_MS = '300';
    const hook = await receiver((_d, all) => (all.length === 1 ? { status: 200, delayMs: 1_500 } : 200));
    const m = await merchantWithEndpoint(hook.url);
    const intent = await seedIntent(m.merchantId, 'test');
    await complete(intent.paymentIntentId);
    const [first, second] = await hook.waitFor((ds) => ds.length >= 2);
    expect(second!.event.id).toBe(first!.event.id);
    const log = await eventually(
      () => call(gw.baseUrl, 'GET', `/Gateway/v1/Events/${first!.event.id}/attempts`, { key: m.test.apiKey }),
      (r) => r.json?.delivery?.state === 'delivered' && r.json.items.some((a: any) => a.outcome === 'delivered'),
    );
    expect(log.json.items[0]).toMatchObject({ attempt: 1, statusCode: null, outcome: 'failed', error: 'timeout' });
    expect(log.json.items[1]).toMatchObject({ attempt: 2, statusCode: 200, outcome: 'delivered' });
  });

  it("sends to the request's callbackUrl when there is one, else to the merchant endpoint", async () => {
    const endpoint = await receiver();
    const callback = await receiver();
    const m = await merchantWithEndpoint(`${endpoint.url}/endpoint`);
    const withCallback = await seedIntent(m.merchantId, 'test', { callbackUrl: `${callback.url}/callback` });
    const without = await seedIntent(m.merchantId, 'test');
    await complete(withCallback.paymentIntentId);
    await complete(without.paymentIntentId);
    await callback.waitFor((ds) => ds.length >= 1);
    await endpoint.waitFor((ds) => ds.length >= 1);
    expect(callback.deliveries.map((d) => [d.path, d.event.data.TransactionId])).toEqual([['/callback', withCallback.paymentIntentId]]);
    expect(endpoint.deliveries.map((d) => [d.path, d.event.data.TransactionId])).toEqual([['/endpoint', without.paymentIntentId]]);
    // Both are signed with the endpoint's secret for the mode.
    for (const d of [...callback.deliveries, ...endpoint.deliveries]) constructEvent(d.body, d.headers, m.test.webhookSecret!);
  });

  it('signs callbackUrl deliveries for a merchant that never configured a portal endpoint', async () => {
    const callback = await receiver();
    const m = await newMerchant({ name: 'Callback Only', allowInsecureWebhooks: true });
    expect(m.test.webhookSecret).toMatch(/^whsec_/);
    const intent = await seedIntent(m.merchantId, 'test', { callbackUrl: `${callback.url}/cb` });
    await complete(intent.paymentIntentId);
    await callback.waitFor((ds) => ds.length >= 1);
    const event = constructEvent(callback.deliveries[0]!.body, callback.deliveries[0]!.headers, m.test.webhookSecret) as {
      data: { TransactionId: string };
    };
    expect(event.data.TransactionId).toBe(intent.paymentIntentId);
  });

  it('does not follow redirects: a 3xx is a failed attempt', async () => {
    const elsewhere = await receiver();
    const hook = await receiver((_d, all) => (all.length === 1 ? { status: 302, headers: { Location: `${elsewhere.url}/moved` } } : 200));
    const m = await merchantWithEndpoint(hook.url);
    const intent = await seedIntent(m.merchantId, 'test');
    await complete(intent.paymentIntentId);
    const [first] = await hook.waitFor((ds) => ds.length >= 2);
    const log = await eventually(
      () => call(gw.baseUrl, 'GET', `/Gateway/v1/Events/${first!.event.id}/attempts`, { key: m.test.apiKey }),
      (r) => r.json?.delivery?.state === 'delivered' && r.json.items.some((a: any) => a.outcome === 'delivered'),
    );
    expect(log.json.items[0]).toMatchObject({ statusCode: 302, outcome: 'failed', error: 'http_status' });
    expect(elsewhere.deliveries).toHaveLength(0);
  });

  it('refuses destinations that are not HTTPS or resolve to internal addresses, at connect time', async () => {
    const hook = await receiver();
    const port = new URL(hook.url).port;
    const m = await merchantWithEndpoint(hook.url);
    // The local-development switch is off for this merchant: its stored http://127.0.0.1 endpoint is refused too.
    const { changeMerchant } = await import('#shared/store/merchants.ts');
    await changeMerchant(m.merchantId, () => ({ patch: { allowInsecureWebhooks: false }, result: undefined }));
    const destinations = [
      null, // the stored endpoint: http and loopback
      `https://127.0.0.1:${port}/literal`,
      `https://localhost:${port}/resolves-to-loopback`, // passes as a name; refused when its lookup answers 127.0.0.1
      `http://localhost:${port}/not-https`,
      'https://169.254.169.254/latest/meta-data',
      `https://[::1]:${port}/v6`,
    ];
    const intents = [];
    for (const callbackUrl of destinations) {
      const intent = await seedIntent(m.merchantId, 'test', { callbackUrl });
      await complete(intent.paymentIntentId);
      intents.push(intent);
    }
    for (const intent of intents) {
      const events = await eventually(
        () => call(gw.baseUrl, 'GET', `/Gateway/v1/Transaction/${intent.paymentIntentId}/events`, { key: m.test.apiKey }),
        (r) => (r.json?.items?.[0]?.delivery?.attempts ?? 0) >= 1 && r.json.items[0].delivery.lastError !== null,
      );
      const eventId = events.json.items[0].eventId;
      const log = await call(gw.baseUrl, 'GET', `/Gateway/v1/Events/${eventId}/attempts`, { key: m.test.apiKey });
      expect(log.json.items[0], String(intent.callbackUrl)).toMatchObject({
        statusCode: null,
        outcome: 'failed',
        error: 'destination_refused',
      });
    }
    expect(hook.deliveries).toHaveLength(0);
  });

  it("never moves a receiver's terminal state backwards when deliveries arrive out of order", async () => {
    // The receiver keeps one state per transaction with the exported helper. It holds the first
    // delivery (Pending → Processing) until the later event (Processing → Completed) has arrived,
    // then fails it, so its retry arrives after the terminal event.
    const states = new Map<string, ReceivedState>();
    const applied: [string, boolean][] = [];
    let completedArrived: () => void = () => undefined;
    const completedSeen = new Promise<void>((ok) => (completedArrived = ok));
    let held = false;
    const hook = await receiver(async (d) => {
      const event = constructEvent(d.body, d.headers, secretOf());
      if (event.data.CurrentStatus === 'Processing' && !held) {
        held = true;
        await completedSeen;
        return 500;
      }
      const next = nextState(states.get(event.data.TransactionId), event);
      applied.push([event.data.CurrentStatus, next !== undefined]);
      if (next) states.set(event.data.TransactionId, next);
      if (event.data.CurrentStatus === 'Completed') completedArrived();
      return 200;
    });
    const m = await merchantWithEndpoint(hook.url);
    const secretOf = () => m.test.webhookSecret!;
    const intent = await seedIntent(m.merchantId, 'test', { intentType: 'withdrawal' });
    await changeStatus(intent.paymentIntentId, () => ({ to: 'Processing' }));
    await hook.waitFor((ds) => ds.length >= 1);
    await changeStatus(intent.paymentIntentId, () => ({ to: 'Completed' }));
    await hook.waitFor((ds) => ds.length >= 3);
    expect(hook.deliveries.map((d) => d.event.data.CurrentStatus)).toEqual(['Processing', 'Completed', 'Processing']);
    expect(applied).toEqual([
      ['Completed', true],
      ['Processing', false], // older, and after a terminal status: ignored
    ]);
    expect(states.get(intent.paymentIntentId)?.status).toBe('Completed');
  });

  it('rotates the signing secret with an overlap during which deliveries carry both v1 values', async () => {
    const hook = await receiver();
    const m: TestMerchant = await merchantWithEndpoint(hook.url);
    const old = m.test.webhookSecret!;
    const rotated = await rotateWebhookSecret(m.merchantId, 'test', 3600);
    expect(rotated.webhookSecret).toMatch(/^whsec_/);
    expect(rotated.previousSecrets).toHaveLength(1);
    const first = await seedIntent(m.merchantId, 'test');
    await complete(first.paymentIntentId);
    const [during] = await hook.waitFor((ds) => ds.length >= 1);
    const header = String(during!.headers['x-svc-signature-v2']);
    expect(header.match(/v1=/g)).toHaveLength(2);
    expect(stripeStyleVerify(during!.body, header, old)).toBe(true);
    expect(stripeStyleVerify(during!.body, header, rotated.webhookSecret)).toBe(true);
    verifySignature(during!.body, header, [rotated.webhookSecret]);
    verifySignature(during!.body, header, [old]);
    expect(verifyLegacySignature(during!.body, String(during!.headers['x-svc-signature']), rotated.webhookSecret)).toBe(true);

    // Overlap 0: the old secrets stop signing at once.
    const again = await rotateWebhookSecret(m.merchantId, 'test', 0);
    const second = await seedIntent(m.merchantId, 'test');
    await complete(second.paymentIntentId);
    const [, after] = await hook.waitFor((ds) => ds.length >= 2);
    const header2 = String(after!.headers['x-svc-signature-v2']);
    expect(header2.match(/v1=/g)).toHaveLength(1);
    verifySignature(after!.body, header2, again.webhookSecret);
    expect(() => verifySignature(after!.body, header2, [old, rotated.webhookSecret])).toThrow(WebhookSignatureError);
  });

  it('records an event with no destination once, and delivers it when the merchant asks for a resend', async () => {
    const m = await newMerchant({ name: 'No Endpoint' });
    const intent = await seedIntent(m.merchantId, 'test');
    await complete(intent.paymentIntentId);
    const events = await eventually(
      () => call(gw.baseUrl, 'GET', `/Gateway/v1/Transaction/${intent.transactionReference}/events`, { key: m.test.apiKey }),
      (r) => r.json?.items?.[0]?.delivery?.state === 'no_destination',
    );
    const eventId = events.json.items[0].eventId;
    expect(events.json.items[0].delivery).toMatchObject({ attempts: 1, nextAttemptAt: null, lastError: 'no_destination' });

    const hook = await receiver();
    await setWebhook(m.merchantId, 'test', hook.url, true);
    const resend = await call(gw.baseUrl, 'POST', `/Gateway/v1/Events/${eventId}/resend`, {
      key: m.test.apiKey,
      headers: { 'Idempotency-Key': `resend-${eventId}` },
    });
    expect(resend.status).toBe(202);
    expect(resend.json).toMatchObject({ eventId, resendId: expect.stringMatching(/^rs_/), status: 'queued' });
    const replay = await call(gw.baseUrl, 'POST', `/Gateway/v1/Events/${eventId}/resend`, {
      key: m.test.apiKey,
      headers: { 'Idempotency-Key': `resend-${eventId}` },
    });
    expect(replay.headers.get('idempotent-replayed')).toBe('true');
    expect(replay.json.resendId).toBe(resend.json.resendId);

    const [d] = await hook.waitFor((ds) => ds.length >= 1);
    expect(d!.event.id).toBe(eventId);
    const log = await eventually(
      () => call(gw.baseUrl, 'GET', `/Gateway/v1/Events/${eventId}/attempts`, { key: m.test.apiKey }),
      (r) => r.json?.delivery?.state === 'delivered' && r.json.items.some((a: any) => a.outcome === 'delivered'),
    );
    expect(log.json.items.map((a: any) => [a.attempt, a.trigger, a.outcome])).toEqual([
      [1, 'automatic', 'no_destination'],
      [2, 'resend', 'delivered'],
    ]);
  });

  it('resends a delivered event with the same id; a signed resend body must match', async () => {
    const hook = await receiver();
    const m = await merchantWithEndpoint(hook.url);
    const intent = await seedIntent(m.merchantId, 'test');
    await complete(intent.paymentIntentId);
    const [original] = await hook.waitFor((ds) => ds.length >= 1);
    const eventId = original!.event.id;
    const bad = await call(gw.baseUrl, 'POST', `/Gateway/v1/Events/${eventId}/resend`, {
      key: m.test.apiKey,
      body: { signature: '0'.repeat(32) },
    });
    expect(bad.status).toBe(401);
    expect(bad.json.detail).toBe('signature mismatch');
    const malformed = await call(gw.baseUrl, 'POST', `/Gateway/v1/Events/${eventId}/resend`, {
      key: m.test.apiKey,
      body: { signature: 'nope' },
    });
    expect(malformed.status).toBe(400);
    const signed = await call(gw.baseUrl, 'POST', `/Gateway/v1/Events/${eventId}/resend`, {
      key: m.test.apiKey,
      body: {},
      secret: m.test.secretKey,
    });
    expect(signed.status).toBe(202);
    const [, again] = await hook.waitFor((ds) => ds.length >= 2);
    expect(again!.event.id).toBe(eventId);
    expect(again!.body).toBe(original!.body);
    expect(again!.headers['x-svc-delivery-id']).not.toBe(original!.headers['x-svc-delivery-id']);
    expect((await call(gw.baseUrl, 'POST', '/Gateway/v1/Events/evt_doesnotexist/resend', { key: m.test.apiKey })).status).toBe(404);
  });
});
