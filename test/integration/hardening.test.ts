import { describe, expect, it } from 'vitest';
import { routeList } from '#functions/routes.ts';
import { canonicalString } from '#shared/domain/body-signature.ts';
import { jsonNestingDepth, maxJsonDepth } from '#shared/domain/json-depth.ts';
import { listJournals } from '#shared/store/wallets.ts';
import { signedCreditRoute } from '../fixtures/signed-credit.ts';
import { call, newMerchant, useGateway } from '../support/gateway.ts';

const credit = '/Gateway/v1/Test/signed-credit';
const nested = (depth: number) => `{"amount":1,"x":${'['.repeat(depth)}${']'.repeat(depth)}}`;

describe('hardening: bad input is a 4xx, never a 5xx', () => {
  const gw = useGateway([...routeList, signedCreditRoute]);

  it('refuses JSON nested thousands of levels deep with a 400 on signed routes and on resend', async () => {
    const m = await newMerchant();
    for (const path of [credit, '/Gateway/v1/Events/evt_x/resend', '/Gateway/v1/Payment/initiate-checkout']) {
      const r = await call(gw.baseUrl, 'POST', path, {
        key: m.test.apiKey,
        raw: nested(5000),
        headers: { 'Content-Type': 'application/json' },
      });
      expect(r.status, path).toBe(400);
      expect(r.headers.get('content-type')).toBe('application/problem+json');
      expect(r.json.detail).toMatch(/nested deeper than 32 levels/);
    }
    expect(await listJournals(m.merchantId, 'test')).toHaveLength(0);
  });

  it('counts nesting without recursion, ignoring brackets inside strings; the signature walk is bounded too', () => {
    expect(jsonNestingDepth(nested(40))).toBe(41);
    expect(jsonNestingDepth('{"a":"[[[[\\"[[[["}')).toBe(1);
    const deep: Record<string, unknown> = {};
    let cursor = deep;
    for (let i = 0; i < maxJsonDepth + 5; i++) cursor = (cursor.a = {}) as Record<string, unknown>;
    cursor.leaf = 1;
    expect(() => canonicalString(deep)).toThrow(/nested deeper/);
  });

  it('answers 400 (not 500) to malformed percent-escapes in the path', async () => {
    for (const path of ['/pay/%E0%A4%A', '/providers/wallet/%FF%FE/callback', '/Gateway/v1/Transaction/by-ref/%']) {
      const method = path.startsWith('/providers') ? 'POST' : 'GET';
      const r = await call(gw.baseUrl, method, path);
      expect(r.status, path).toBe(400);
      expect(r.headers.get('content-type')).toBe('application/problem+json');
    }
  });

  it('sends nosniff and no-store on JSON answers, problems and gateway errors', async () => {
    const m = await newMerchant();
    const okAnswer = await call(gw.baseUrl, 'POST', '/Gateway/v1/Account/query-balance', { key: m.test.apiKey });
    const problem = await call(gw.baseUrl, 'POST', '/Gateway/v1/Account/query-balance');
    const missing = await call(gw.baseUrl, 'GET', '/nowhere');
    for (const r of [okAnswer, problem, missing]) {
      expect(r.headers.get('x-content-type-options')).toBe('nosniff');
      expect(r.headers.get('cache-control')).toBe('no-store');
    }
    expect([okAnswer.status, problem.status, missing.status]).toEqual([200, 401, 404]);
  });
});

describe('hardening: Idempotency-Key cannot be burned or confused', () => {
  const gw = useGateway([...routeList, signedCreditRoute]);
  const body = { amount: 25, description: 'Order 9', orderRef: { orderRef: 'ORD9' } };

  it('does not claim the key on a 401 (bad API key or signature mismatch): the genuine request still succeeds', async () => {
    const m = await newMerchant();
    const headers = { 'Idempotency-Key': 'order-9' };
    const forged = await call(gw.baseUrl, 'POST', credit, { key: m.test.apiKey, body, secret: 'not-the-secret', headers });
    expect(forged.status).toBe(401);
    expect(forged.json.detail).toBe('signature mismatch');
    const again = await call(gw.baseUrl, 'POST', credit, { key: m.test.apiKey, body, secret: 'not-the-secret', headers });
    expect(again.headers.get('idempotent-replayed')).toBeNull();
    const genuine = await call(gw.baseUrl, 'POST', credit, { key: m.test.apiKey, body, secret: m.test.secretKey, headers });
    expect(genuine.status).toBe(200);
    expect(genuine.headers.get('idempotent-replayed')).toBeNull();
    expect(await listJournals(m.merchantId, 'test')).toHaveLength(1);
  });

  it('binds the key to the full path and the query: another resource or query is a 422, never a replay', async () => {
    const m = await newMerchant();
    const headers = { 'Idempotency-Key': 'resend-1' };
    const a = await call(gw.baseUrl, 'POST', '/Gateway/v1/Events/evt_A/resend', { key: m.test.apiKey, headers });
    expect(a.status).toBe(404);
    const b = await call(gw.baseUrl, 'POST', '/Gateway/v1/Events/evt_B/resend', { key: m.test.apiKey, headers });
    expect(b.status).toBe(422);
    expect(b.headers.get('idempotent-replayed')).toBeNull();

    const q = { 'Idempotency-Key': 'balance-1' };
    const usd = await call(gw.baseUrl, 'POST', '/Gateway/v1/Account/query-balance?currency=USD', { key: m.test.apiKey, headers: q });
    const replay = await call(gw.baseUrl, 'POST', '/Gateway/v1/Account/query-balance?currency=USD', { key: m.test.apiKey, headers: q });
    expect(replay.headers.get('idempotent-replayed')).toBe('true');
    expect(replay.text).toBe(usd.text);
    const other = await call(gw.baseUrl, 'POST', '/Gateway/v1/Account/query-balance?currency=PKR', { key: m.test.apiKey, headers: q });
    expect(other.status).toBe(422);
    expect(other.json.detail).toMatch(/different request/);
  });
});
