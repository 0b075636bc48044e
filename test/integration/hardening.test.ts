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
      const r = await call(gw.baseUrl, 'POST', path, { key: m.test.apiKey, raw: nested(5000), headers: { 'Content-Type': 'application/json' } });
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
