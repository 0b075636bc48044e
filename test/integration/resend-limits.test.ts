import { describe, expect, it } from 'vitest';
import { jobs } from '#functions/jobs.ts';
import { routeList } from '#functions/routes.ts';
import { call, newMerchant, useGateway } from '../support/gateway.ts';
import { eventually, useWebhookStack } from '../support/webhooks.ts';

useWebhookStack([jobs.webhookRelay]);

describe('hardening: resend needs the webhooks scope and is rate limited', () => {
  const gw = useGateway(routeList);

  async function eventOf(m: Awaited<ReturnType<typeof newMerchant>>) {
    const { seedIntent } = await import('../support/intents.ts');
    const { changeStatus } = await import('../support/intents.ts');
    const intent = await seedIntent(m.merchantId, 'test');
    await changeStatus(intent.paymentIntentId, () => ({ to: 'Completed' }));
    // The event pointer is written by the outbox relay.
    const events = await eventually(
      () => call(gw.baseUrl, 'GET', `/Gateway/v1/Transaction/${intent.transactionReference}/events`, { key: m.test.apiKey }),
      (r) => r.json?.items?.length > 0,
    );
    const eventId = events.json.items[0].eventId as string;
    await eventually(
      () => call(gw.baseUrl, 'GET', `/Gateway/v1/Events/${eventId}/attempts`, { key: m.test.apiKey }),
      (r) => r.status === 200,
    );
    return eventId;
  }

  it('refuses read-only keys (403); keys with every scope of before keep working', async () => {
    const readOnly = await newMerchant({ name: 'Read Only', scopes: ['read'] });
    const r = await call(gw.baseUrl, 'POST', '/Gateway/v1/Events/evt_x/resend', { key: readOnly.test.apiKey });
    expect(r.status).toBe(403);
    expect(r.json.detail).toMatch(/"webhooks" scope/);
    const legacy = await newMerchant({ name: 'Legacy', scopes: ['payments', 'payouts', 'settlements', 'refunds', 'balance', 'read'] });
    expect((await call(gw.baseUrl, 'POST', '/Gateway/v1/Events/evt_x/resend', { key: legacy.test.apiKey })).status).toBe(404);
    const hooksOnly = await newMerchant({ name: 'Hooks Only', scopes: ['webhooks'] });
    expect((await call(gw.baseUrl, 'POST', '/Gateway/v1/Events/evt_x/resend', { key: hooksOnly.test.apiKey })).status).toBe(404);
  });

  it('allows 10 resends per event per hour, then 429 with Retry-After (changing nothing, claiming no Idempotency-Key)', async () => {
    const m = await newMerchant();
    const eventId = await eventOf(m);
    for (let i = 0; i < 10; i++)
      expect((await call(gw.baseUrl, 'POST', `/Gateway/v1/Events/${eventId}/resend`, { key: m.test.apiKey })).status).toBe(202);
    const limited = await call(gw.baseUrl, 'POST', `/Gateway/v1/Events/${eventId}/resend`, {
      key: m.test.apiKey,
      headers: { 'Idempotency-Key': 'resend-11' },
    });
    expect(limited.status).toBe(429);
    expect(limited.headers.get('content-type')).toBe('application/problem+json');
    expect(Number(limited.headers.get('retry-after'))).toBeGreaterThan(0);
    expect(Number(limited.headers.get('retry-after'))).toBeLessThanOrEqual(3600);
    const { getRecord } = await import('#shared/store/idempotency.ts');
    expect(await getRecord({ mode: 'test', merchantId: m.merchantId, key: 'resend-11' })).toBeUndefined();
    // The live mode has its own quota.
    expect((await call(gw.baseUrl, 'POST', `/Gateway/v1/Events/${eventId}/resend`, { key: m.live.apiKey })).status).toBe(404);
  });

  it('allows 300 resends per merchant and mode per hour', async () => {
    const { quotaWindow } = await import('#shared/store/quotas.ts');
    const keys = await import('#shared/store/keys.ts');
    const { db, tableName, toItem } = await import('#shared/store/client.ts');
    const { PutItemCommand } = await import('@aws-sdk/client-dynamodb');
    const m = await newMerchant();
    const eventId = await eventOf(m);
    const { window } = quotaWindow({ subject: 'resend:all', limit: 300, windowSeconds: 3600 }, new Date());
    await db().send(
      new PutItemCommand({
        TableName: tableName(),
        Item: toItem({ ...keys.quota('test', m.merchantId, 'resend:all', window), count: 299 }),
      }),
    );
    expect((await call(gw.baseUrl, 'POST', `/Gateway/v1/Events/${eventId}/resend`, { key: m.test.apiKey })).status).toBe(202);
    const limited = await call(gw.baseUrl, 'POST', `/Gateway/v1/Events/${eventId}/resend`, { key: m.test.apiKey });
    expect(limited.status).toBe(429);
    expect(limited.json.detail).toMatch(/300 resends per merchant/);
  });
});
