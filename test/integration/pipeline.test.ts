import { describe, expect, it } from 'vitest';
import { routeList } from '#functions/routes.ts';
import { signBody } from '#shared/domain/body-signature.ts';
import { listJournals } from '#shared/store/wallets.ts';
import { signedCreditRoute } from '../fixtures/signed-credit.ts';
import { call, newMerchant, useGateway } from '../support/gateway.ts';

const credit = '/Gateway/v1/Test/signed-credit';
const body = { amount: 10.5, description: 'Order 1', orderRef: { orderRef: 'ORD1' } };

describe('request pipeline', () => {
  const gw = useGateway([...routeList, signedCreditRoute]);

  it('accepts a correctly signed body and refuses a wrongly signed one (changing nothing)', async () => {
    const m = await newMerchant();
    const ok = await call(gw.baseUrl, 'POST', credit, { key: m.test.apiKey, body, secret: m.test.secretKey });
    expect(ok.status).toBe(200);
    expect(ok.json).toMatchObject({ mode: 'test', amount: 10.5 });

    const wrongSecret = await call(gw.baseUrl, 'POST', credit, { key: m.test.apiKey, body, secret: m.live.secretKey });
    expect(wrongSecret.status).toBe(401);
    expect(wrongSecret.json.detail).toBe('signature mismatch');
    expect(wrongSecret.json.hint).toMatch(/MD5 over the body members.*&key=<secret key>.*sk_test_ or sk_live_.*\/docs\/signing/);

    const tampered = await call(gw.baseUrl, 'POST', credit, {
      key: m.test.apiKey,
      raw: JSON.stringify({ ...body, amount: 1000, signature: signBody(body, m.test.secretKey) }),
      headers: { 'Content-Type': 'application/json' },
    });
    expect(tampered.status).toBe(401);

    const malformed = await call(gw.baseUrl, 'POST', credit, { key: m.test.apiKey, body: { ...body, signature: 'ABC' } });
    expect(malformed.status).toBe(400);
    expect(malformed.json.errors.signature).toEqual(['must be 32 lowercase hexadecimal characters (MD5, see the signature recipe)']);

    // No signature at all: "required", with the recipe, not a complaint about its format.
    const unsigned = await call(gw.baseUrl, 'POST', credit, { key: m.test.apiKey, body });
    expect(unsigned.status).toBe(400);
    expect(unsigned.json).toMatchObject({ code: 'invalid_signature', errors: { signature: ['required'] } });
    expect(unsigned.json.detail).toBe('The signature field is required: this endpoint takes a signed body.');
    expect(unsigned.json.hint).toMatch(/MD5 over the body members.*\/docs\/signing/);
    expect((await listJournals(m.merchantId, 'test')).length).toBe(1);
  });

  it('validates with zod after the signature: 400 with errors per field', async () => {
    const m = await newMerchant();
    const bad = { amount: 'ten', description: 'bad!', orderRef: { orderRef: 'has space' } };
    const r = await call(gw.baseUrl, 'POST', credit, { key: m.test.apiKey, body: bad, secret: m.test.secretKey });
    expect(r.status).toBe(400);
    expect(Object.keys(r.json.errors).sort()).toEqual(['amount', 'description', 'orderRef.orderRef']);
    expect(r.json.type).toBe('https://www.rfc-editor.org/rfc/rfc9110#section-15.5.1');
    expect(r.json.errors.amount).toEqual(['must be a number, not a string']);
    expect(r.json.detail).toMatch(/^The request has invalid or missing fields: amount \(must be a number, not a string\), /);
  });

  it('names every missing field as required, at any depth, in errors and in the detail', async () => {
    const m = await newMerchant();
    const r = await call(gw.baseUrl, 'POST', credit, { key: m.test.apiKey, body: { description: 'Order 1' }, secret: m.test.secretKey });
    expect(r.status).toBe(400);
    expect(r.json.errors).toEqual({ amount: ['required'], orderRef: ['required'] });
    expect(r.json.detail).toBe('The request has invalid or missing fields: amount (required), orderRef (required).');
    const nested = await call(gw.baseUrl, 'POST', credit, {
      key: m.test.apiKey,
      body: { amount: 10, description: 'Order 1', orderRef: { discount: '5' } },
      secret: m.test.secretKey,
    });
    expect(nested.json.errors).toEqual({ 'orderRef.orderRef': ['required'] });
    expect(nested.json.errors['orderRef.orderRef']).not.toContain('Invalid input');
  });

  it('limits bodies: 413 over 64 KiB, 415 without JSON content type, 400 unparseable', async () => {
    const m = await newMerchant();
    const big = await call(gw.baseUrl, 'POST', credit, {
      key: m.test.apiKey,
      body: { ...body, description: 'a'.repeat(70 * 1024) },
      secret: m.test.secretKey,
    });
    expect(big.status).toBe(413);
    const text = await call(gw.baseUrl, 'POST', credit, {
      key: m.test.apiKey,
      raw: JSON.stringify(body),
      headers: { 'Content-Type': 'text/plain' },
    });
    expect(text.status).toBe(415);
    const broken = await call(gw.baseUrl, 'POST', credit, {
      key: m.test.apiKey,
      raw: '{"amount": ',
      headers: { 'Content-Type': 'application/json; charset=utf-8' },
    });
    expect(broken.status).toBe(400);
    expect(broken.json.detail).toMatch(/not valid JSON/);
    expect((await listJournals(m.merchantId, 'test')).length).toBe(0);
  });

  it('answers unknown versions and routes with a 404 problem, and every response has Svc-Trace-Id', async () => {
    const m = await newMerchant();
    for (const [method, path] of [
      ['GET', '/Gateway/v2/Settlements/schedule'],
      ['GET', '/Gateway/v1/Nope'],
      ['DELETE', '/Gateway/v1/Settlements/schedule'],
    ] as const) {
      const r = await call(gw.baseUrl, method, path, { key: m.test.apiKey });
      expect(r.status, path).toBe(404);
      expect(r.json.status).toBe(404);
      expect(r.headers.get('svc-trace-id')).toBe(r.json.traceId);
    }
    expect((await call(gw.baseUrl, 'GET', '/Gateway/v1/Nope', { key: m.test.apiKey })).json.detail).toBe('No such endpoint.');
    const okResponse = await call(gw.baseUrl, 'GET', '/Gateway/v1/Settlements/schedule', { key: m.test.apiKey });
    expect(okResponse.headers.get('svc-trace-id')).toMatch(/^[0-9a-f-]{36}$/);
  });

  it('says what is wrong with a path that repeats /Gateway/v1 (a base URL ending in it), changing nothing', async () => {
    const m = await newMerchant();
    for (const [method, path] of [
      ['GET', '/Gateway/v1/Gateway/v1/Settlements/schedule'],
      ['POST', '/Gateway/v1/Gateway/v1/Test/signed-credit'],
      ['GET', '/Gateway/v1/Gateway/v1'],
    ] as const) {
      const r = await call(gw.baseUrl, method, path, {
        key: m.test.apiKey,
        ...(method === 'POST' ? { body, secret: m.test.secretKey } : {}),
      });
      expect(r.status, path).toBe(404);
      expect(r.headers.get('content-type')).toBe('application/problem+json');
      expect(r.json).toMatchObject({ status: 404, code: 'not_found', traceId: r.headers.get('svc-trace-id') });
      expect(r.json.detail).toMatch(
        /^No such endpoint: the path repeats \/Gateway\/v1 .*already ends in \/Gateway\/v1: set it to the part before/,
      );
    }
    expect((await listJournals(m.merchantId, 'test')).length).toBe(0);
  });

  it('answers an unsupported currency with 422 and a malformed one with 400', async () => {
    const m = await newMerchant();
    expect((await call(gw.baseUrl, 'POST', '/Gateway/v1/Account/query-balance?currency=JPY', { key: m.test.apiKey })).status).toBe(422);
    const malformed = await call(gw.baseUrl, 'POST', '/Gateway/v1/Account/query-balance?currency=rupees', { key: m.test.apiKey });
    expect(malformed.status).toBe(400);
    expect(malformed.json.errors['query.currency']).toBeDefined();
    const usd = await call(gw.baseUrl, 'POST', '/Gateway/v1/Account/query-balance?currency=USD', { key: m.test.apiKey });
    expect(usd.json).toMatchObject({ currency: 'USD', availableBalance: 0 });
  });
});
