import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { routeList } from '#functions/routes.ts';
import { defaultRateLimits, rateLimitSubject, rateLimitsFromEnv, windowCounter } from '#shared/http/rate-limits.ts';
import { localConfig } from '../../scripts/local/config.ts';
import { createLocalServer } from '../../scripts/local/server.ts';
import { benchRateLimits } from '../../bench/local-stack.ts';
import { call, newMerchant } from '../support/gateway.ts';

/** The local API Gateway applies the per-key and per-IP limits WAF applies when deployed. */
describe('local per-key and per-IP limits', () => {
  const server = createLocalServer(routeList, { rateLimits: { perKey: 3, perIp: 2, windowSeconds: 3600 } });
  let base = '';
  beforeAll(async () => {
    await new Promise<void>((ok) => server.listen(0, '127.0.0.1', ok));
    base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  afterAll(async () => {
    server.closeAllConnections();
    await new Promise((ok) => server.close(ok));
  });

  it('answers 429 problem+json with Retry-After once one API key exceeds its limit; other keys are unaffected', async () => {
    const a = await newMerchant();
    const b = await newMerchant();
    for (let i = 0; i < 3; i++)
      expect((await call(base, 'POST', '/Gateway/v1/Account/query-balance', { key: a.test.apiKey })).status).toBe(200);
    const limited = await call(base, 'POST', '/Gateway/v1/Account/query-balance', { key: a.test.apiKey });
    expect(limited.status).toBe(429);
    expect(limited.headers.get('content-type')).toBe('application/problem+json');
    expect(Number(limited.headers.get('retry-after'))).toBeGreaterThan(0);
    expect(limited.json).toMatchObject({ status: 429, detail: expect.stringMatching(/this API key/) });
    expect((await call(base, 'POST', '/Gateway/v1/Account/query-balance', { key: b.test.apiKey })).status).toBe(200);
  });

  it('limits the public pages and provider callbacks per client IP', async () => {
    const statuses: number[] = [];
    for (let i = 0; i < 3; i++) statuses.push((await call(base, 'GET', `/pay/${'0'.repeat(8)}-0000-4000-8000-00000000000${i}`)).status);
    expect(statuses.slice(0, 2).every((s) => s !== 429)).toBe(true);
    expect(statuses[2]).toBe(429);
    expect((await call(base, 'POST', '/providers/wallet/1/callback', { body: {} })).status).toBe(429);
    // A payment link's page and its form post (each "Continue" opens a checkout session) and its QR code.
    for (const [method, path] of [
      ['GET', `/l/pl_${'0'.repeat(24)}`],
      ['POST', `/l/pl_${'0'.repeat(24)}`],
      ['GET', `/l/pl_${'0'.repeat(24)}/qr`],
    ] as const)
      expect((await call(base, method, path, method === 'POST' ? { body: {} } : {})).status, `${method} ${path}`).toBe(429);
  });

  it('counts a payment link page under the per-IP limit like the hosted checkout', () => {
    expect(rateLimitSubject(`/l/pl_${'0'.repeat(24)}`, undefined, '127.0.0.9')).toEqual({ kind: 'perIp', id: '127.0.0.9' });
    expect(rateLimitSubject(`/l/pl_${'0'.repeat(24)}/qr`, undefined, '127.0.0.9')).toEqual({ kind: 'perIp', id: '127.0.0.9' });
    expect(rateLimitSubject('/Gateway/v1/PaymentLinks', undefined, '127.0.0.9')).toBeUndefined();
  });

  it('counts in fixed windows and opens again in the next one', () => {
    let now = 0;
    const count = windowCounter({ ...defaultRateLimits, perIp: 1, windowSeconds: 60 }, () => now);
    expect(count({ kind: 'perIp', id: 'x' })).toEqual({ allowed: true });
    expect(count({ kind: 'perIp', id: 'x' })).toEqual({ allowed: false, retryAfterSeconds: 60 });
    now = 60_000;
    expect(count({ kind: 'perIp', id: 'x' })).toEqual({ allowed: true });
  });
});

/** `npm start` takes its limits from RATE_LIMIT_* (docs/security-and-limits.md); benchmarks raise them. */
describe('local limits as settings of npm start', () => {
  it('defaults to the deployed WAF numbers and takes each variable over its default', () => {
    expect(localConfig({}).rateLimits).toEqual(defaultRateLimits);
    expect(localConfig({ RATE_LIMIT_PER_KEY: '50000', RATE_LIMIT_WINDOW_SECONDS: '120' }).rateLimits).toEqual({
      ...defaultRateLimits,
      perKey: 50_000,
      windowSeconds: 120,
    });
    expect(rateLimitsFromEnv({ RATE_LIMIT_PER_IP: '7', RATE_LIMIT_PER_KEY: '' })).toEqual({ ...defaultRateLimits, perIp: 7 });
  });

  it('refuses a value that is not a positive whole number, naming the variable', () => {
    for (const bad of ['0', '-5', '1.5', 'lots', '1e400'])
      expect(() => rateLimitsFromEnv({ RATE_LIMIT_PER_IP: bad })).toThrow(`RATE_LIMIT_PER_IP=${bad}: expected a positive whole number`);
  });

  it('the benchmarks raise both limits far above what one run sends', () => {
    expect(benchRateLimits.perKey).toBeGreaterThanOrEqual(1_000_000);
    expect(benchRateLimits.perIp).toBeGreaterThanOrEqual(1_000_000);
  });
});
