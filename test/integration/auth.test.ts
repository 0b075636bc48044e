import { describe, expect, it } from 'vitest';
import { creditTestWallet, revokeKey, rotateKeys, setStatus } from '#shared/services/merchants.ts';
import { createMerchant } from '#shared/services/merchants.ts';
import { call, newMerchant, useGateway } from '../support/gateway.ts';

const balance = '/Gateway/v1/Account/query-balance';
const schedule = '/Gateway/v1/Settlements/schedule';

describe('Svc-API-Key authentication', () => {
  const gw = useGateway();

  it('refuses missing, malformed, unknown and revoked keys with one 401 body', async () => {
    const m = await newMerchant();
    const bodies = [];
    for (const key of [null, 'not-a-key', 'pk_test_short', `pk_test_${'A'.repeat(40)}`]) {
      const r = await call(gw.baseUrl, 'POST', balance, { key });
      expect(r.status).toBe(401);
      expect(r.headers.get('content-type')).toBe('application/problem+json');
      expect(r.headers.get('svc-trace-id')).toBe(r.json.traceId);
      const { traceId: _t, ...rest } = r.json;
      bodies.push(rest);
    }
    expect((await call(gw.baseUrl, 'POST', balance, { key: m.test.apiKey })).status).toBe(200);
    await revokeKey(m.test.apiKey);
    const revoked = await call(gw.baseUrl, 'POST', balance, { key: m.test.apiKey });
    expect(revoked.status).toBe(401);
    const { traceId: _t, ...rest } = revoked.json;
    bodies.push(rest);
    expect(new Set(bodies.map((b) => JSON.stringify(b))).size).toBe(1);
    expect(bodies[0]).toMatchObject({ status: 401, title: 'Unauthorized', type: 'https://www.rfc-editor.org/rfc/rfc9110#section-15.5.2' });
    // The live key of the same merchant is untouched.
    expect((await call(gw.baseUrl, 'POST', balance, { key: m.live.apiKey })).status).toBe(200);
  });

  it('revokes by key id on the very next request', async () => {
    const m = await newMerchant();
    expect((await call(gw.baseUrl, 'GET', schedule, { key: m.test.apiKey })).status).toBe(200);
    await revokeKey(m.test.keyId);
    expect((await call(gw.baseUrl, 'GET', schedule, { key: m.test.apiKey })).status).toBe(401);
  });

  it('rotates with a grace period, or immediately with grace 0', async () => {
    const m = await newMerchant();
    const graceful = await rotateKeys(m.merchantId, 'test', 3600);
    expect((await call(gw.baseUrl, 'POST', balance, { key: m.test.apiKey })).status).toBe(200);
    expect((await call(gw.baseUrl, 'POST', balance, { key: graceful.apiKey })).status).toBe(200);
    const immediate = await rotateKeys(m.merchantId, 'test', 0);
    expect((await call(gw.baseUrl, 'POST', balance, { key: m.test.apiKey })).status).toBe(401);
    expect((await call(gw.baseUrl, 'POST', balance, { key: graceful.apiKey })).status).toBe(401);
    expect((await call(gw.baseUrl, 'POST', balance, { key: immediate.apiKey })).status).toBe(200);
  });

  it('expires a rotated key when its grace period ends', async () => {
    const m = await newMerchant();
    await rotateKeys(m.merchantId, 'test', 1);
    expect((await call(gw.baseUrl, 'POST', balance, { key: m.test.apiKey })).status).toBe(200);
    await new Promise((r) => setTimeout(r, 1100));
    expect((await call(gw.baseUrl, 'POST', balance, { key: m.test.apiKey })).status).toBe(401);
  });

  it('answers 403 for a missing scope and for a suspended merchant', async () => {
    const narrow = await createMerchant({ name: 'Read only', scopes: ['read'] });
    const r = await call(gw.baseUrl, 'POST', balance, { key: narrow.test.apiKey });
    expect(r.status).toBe(403);
    expect(r.json.detail).toContain('balance');
    expect((await call(gw.baseUrl, 'GET', schedule, { key: narrow.test.apiKey })).status).toBe(200);

    const m = await newMerchant();
    await setStatus(m.merchantId, 'suspended');
    const suspended = await call(gw.baseUrl, 'GET', schedule, { key: m.live.apiKey });
    expect(suspended.status).toBe(403);
    expect(suspended.json.detail).toMatch(/suspended/);
    await setStatus(m.merchantId, 'active');
    expect((await call(gw.baseUrl, 'GET', schedule, { key: m.live.apiKey })).status).toBe(200);
  });

  it('keeps test and live data apart: the mode comes from the key', async () => {
    const m = await newMerchant();
    await creditTestWallet(m.merchantId, 'test', 123_45, 'PKR');
    const test = await call(gw.baseUrl, 'POST', balance, { key: m.test.apiKey });
    const live = await call(gw.baseUrl, 'POST', balance, { key: m.live.apiKey, headers: { 'X-Mode': 'test' } });
    expect(test.json.availableBalance).toBe(123.45);
    expect(live.json.availableBalance).toBe(0);
    expect(live.json.walletId).not.toBe(test.json.walletId);
    await expect(creditTestWallet(m.merchantId, 'live', 100, 'PKR')).rejects.toThrow(/live/);
  });
});
