import { describe, expect, it } from 'vitest';
import { routeList } from '#functions/routes.ts';
import { claimWrite } from '#shared/store/idempotency.ts';
import { transact } from '#shared/store/client.ts';
import { listJournals } from '#shared/store/wallets.ts';
import { signedCreditRoute } from '../fixtures/signed-credit.ts';
import { call, newMerchant, useGateway } from '../support/gateway.ts';

const credit = '/Gateway/v1/Test/signed-credit';
const body = { amount: 25, description: 'Order 2', orderRef: { orderRef: 'ORD2' } };

describe('Idempotency-Key (docs/merchant-guide.md, Idempotency)', () => {
  const gw = useGateway([...routeList, signedCreditRoute]);

  it('replays the first response exactly, with Idempotent-Replayed, and commits once', async () => {
    const m = await newMerchant();
    const headers = { 'Idempotency-Key': 'order-2-attempt' };
    const first = await call(gw.baseUrl, 'POST', credit, { key: m.test.apiKey, body, secret: m.test.secretKey, headers });
    const again = await call(gw.baseUrl, 'POST', credit, { key: m.test.apiKey, body, secret: m.test.secretKey, headers });
    expect(first.status).toBe(200);
    expect(first.headers.get('idempotent-replayed')).toBeNull();
    expect(again.status).toBe(200);
    expect(again.text).toBe(first.text);
    expect(again.headers.get('idempotent-replayed')).toBe('true');
    expect(again.headers.get('svc-trace-id')).toBe(first.headers.get('svc-trace-id'));
    expect((await listJournals(m.merchantId, 'test')).length).toBe(1);
  });

  it('commits once when the same request races itself', async () => {
    const m = await newMerchant();
    const headers = { 'Idempotency-Key': 'race-1' };
    const results = await Promise.all(
      Array.from({ length: 8 }, () => call(gw.baseUrl, 'POST', credit, { key: m.test.apiKey, body, secret: m.test.secretKey, headers })),
    );
    const journals = await listJournals(m.merchantId, 'test');
    expect(journals.length).toBe(1);
    for (const r of results) {
      expect([200, 409]).toContain(r.status);
      if (r.status === 200) expect(r.json.journalId).toBe(journals[0]!.journalId);
    }
  });

  it('refuses the same key with a different body (422) and scopes keys per merchant and mode', async () => {
    const m = await newMerchant();
    const headers = { 'Idempotency-Key': 'shared-key' };
    expect((await call(gw.baseUrl, 'POST', credit, { key: m.test.apiKey, body, secret: m.test.secretKey, headers })).status).toBe(200);
    const different = await call(gw.baseUrl, 'POST', credit, {
      key: m.test.apiKey,
      body: { ...body, amount: 26 },
      secret: m.test.secretKey,
      headers,
    });
    expect(different.status).toBe(422);
    expect(different.json.detail).toMatch(/different request/);
    // Same key in live mode and for another merchant: independent.
    expect(
      (await call(gw.baseUrl, 'POST', credit, { key: m.live.apiKey, body, secret: m.live.secretKey, headers })).headers.get(
        'idempotent-replayed',
      ),
    ).toBeNull();
    const other = await newMerchant();
    expect(
      (await call(gw.baseUrl, 'POST', credit, { key: other.test.apiKey, body, secret: other.test.secretKey, headers })).headers.get(
        'idempotent-replayed',
      ),
    ).toBeNull();
    expect((await listJournals(m.merchantId, 'test')).length).toBe(1);
  });

  it('replays 4xx errors but never records 5xx; answers 409 while the twin is in flight', async () => {
    const m = await newMerchant();
    const headers = { 'Idempotency-Key': 'bad-body' };
    const bad = { ...body, description: 'nope!' };
    const first = await call(gw.baseUrl, 'POST', credit, { key: m.test.apiKey, body: bad, secret: m.test.secretKey, headers });
    const second = await call(gw.baseUrl, 'POST', credit, { key: m.test.apiKey, body: bad, secret: m.test.secretKey, headers });
    expect(first.status).toBe(400);
    expect(second.status).toBe(400);
    expect(second.text).toBe(first.text);
    expect(second.headers.get('idempotent-replayed')).toBe('true');

    // A twin that claimed the key and has not finished: 409, and nothing is committed.
    const raw = JSON.stringify({ ...body, signature: (await import('#shared/domain/body-signature.ts')).signBody(body, m.test.secretKey) });
    const { requestFingerprint } = await import('#shared/http/idempotency.ts');
    const requestHash = requestFingerprint(
      { httpMethod: 'POST', path: credit, queryStringParameters: null, multiValueQueryStringParameters: null },
      raw,
    );
    await transact([
      claimWrite({ mode: 'test', merchantId: m.merchantId, key: 'in-flight', requestHash }, { requestHash, state: 'in_flight' }),
    ]);
    const inFlight = await call(gw.baseUrl, 'POST', credit, {
      key: m.test.apiKey,
      raw,
      headers: { 'Content-Type': 'application/json', 'Idempotency-Key': 'in-flight' },
    });
    expect(inFlight.status).toBe(409);
    expect((await listJournals(m.merchantId, 'test')).length).toBe(0);
  });

  it('answers a reused key with 422, never a 5xx, when the new request would itself fail or is a read', async () => {
    const m = await newMerchant();
    const headers = { 'Idempotency-Key': 'reused-elsewhere' };
    expect((await call(gw.baseUrl, 'POST', credit, { key: m.test.apiKey, body, secret: m.test.secretKey, headers })).status).toBe(200);
    const invalid = await call(gw.baseUrl, 'POST', credit, {
      key: m.test.apiKey,
      body: { ...body, description: 'bad!' },
      secret: m.test.secretKey,
      headers,
    });
    expect(invalid.status).toBe(422);
    expect(invalid.headers.get('svc-trace-id')).toBe(invalid.json.traceId);
    const read = await call(gw.baseUrl, 'POST', '/Gateway/v1/Account/query-balance', { key: m.test.apiKey, headers });
    expect(read.status).toBe(422);
    expect((await listJournals(m.merchantId, 'test')).length).toBe(1);
  });

  it('validates the key itself', async () => {
    const m = await newMerchant();
    const r = await call(gw.baseUrl, 'POST', credit, {
      key: m.test.apiKey,
      body,
      secret: m.test.secretKey,
      headers: { 'Idempotency-Key': 'x'.repeat(256) },
    });
    expect(r.status).toBe(400);
    expect(r.json.errors['Idempotency-Key']).toBeDefined();
  });
});
