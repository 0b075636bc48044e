import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { routeList } from '#functions/routes.ts';
import { openApiPath } from '../../scripts/docs.ts';
import { call, newMerchant, useGateway } from '../support/gateway.ts';

/**
 * The contract over HTTP: the document is served without a key, and request bodies are strict
 * (Stripe's rule): an unknown member anywhere in a body is a 400 `unknown_parameter` naming each
 * one, and nothing is created. Every response here is also checked against the document by call().
 */
describe('OpenAPI document and strict bodies', () => {
  const gw = useGateway(routeList);

  it('serves docs/openapi.json at GET /Gateway/v1/openapi.json without a key', async () => {
    const r = await call(gw.baseUrl, 'GET', '/Gateway/v1/openapi.json');
    expect(r.status).toBe(200);
    expect(r.headers.get('content-type')).toContain('application/json');
    expect(r.json).toEqual(JSON.parse(readFileSync(openApiPath, 'utf8')));
    expect((await call(gw.baseUrl, 'GET', '/Gateway/v2/openapi.json')).status).toBe(404);
  });

  const checkout = {
    amount: 1500,
    currency: 'PKR',
    description: 'Order 1',
    orderRef: { orderRef: 'STRICT1' },
    customerRef: { name: 'Ayesha Khan' },
  };

  it('refuses unknown members at any depth with 400 unknown_parameter naming each, and creates nothing', async () => {
    const m = await newMerchant();
    const r = await call(gw.baseUrl, 'POST', '/Gateway/v1/Payment/initiate-checkout', {
      key: m.test.apiKey,
      secret: m.test.secretKey,
      body: {
        ...checkout,
        amout: 1500,
        orderRef: { orderRef: 'STRICT1', orderReff: 'x' },
        customerRef: { name: 'A', emial: 'a@example.com' },
      },
    });
    expect(r.status).toBe(400);
    expect(r.json.code).toBe('unknown_parameter');
    expect(Object.keys(r.json.errors).sort()).toEqual(['amout', 'customerRef.emial', 'orderRef.orderReff']);
    expect(r.json.errors.amout).toEqual(['unknown parameter']);
    expect(r.json.detail).toContain('amout');
    const lookup = await call(gw.baseUrl, 'GET', '/Gateway/v1/Transaction/by-ref/STRICT1', { key: m.test.apiKey });
    expect(lookup.status).toBe(404);
    expect(lookup.json.code).toBe('not_found');
    // The same body without the typos is accepted.
    const ok = await call(gw.baseUrl, 'POST', '/Gateway/v1/Payment/initiate-checkout', {
      key: m.test.apiKey,
      secret: m.test.secretKey,
      body: checkout,
    });
    expect(ok.status).toBe(200);
  });

  it('refuses unknown members on every signed create endpoint', async () => {
    const m = await newMerchant();
    const posts: [string, Record<string, unknown>][] = [
      [
        '/Gateway/v1/Payment/deposit',
        { mobileNumber: '03001234567', amount: 500, description: 'x', orderRef: { orderRef: 'D1' }, walet: 1 },
      ],
      [
        '/Gateway/v1/Payment/withdraw',
        {
          amount: 500,
          currency: 'PKR',
          description: 'x',
          orderRef: { orderRef: 'W1' },
          customerRef: { bankAccountNumber: '12345678901', bankCode: 'HBL', accountTitle: 'A B', iban: 'x' },
        },
      ],
      ['/Gateway/v1/Refunds', { trxnRef: 'nothing', amount: 10, reasn: 'x' }],
      [
        '/Gateway/v1/Settlements',
        { amount: 100, bankName: 'Meezan Bank', iban: 'PK36SCBL0000001123456702', accountTitle: 'Acme', swift: 'x' },
      ],
    ];
    for (const [path, body] of posts) {
      const r = await call(gw.baseUrl, 'POST', path, { key: m.test.apiKey, secret: m.test.secretKey, body });
      expect(r.status, path).toBe(400);
      expect(r.json.code, path).toBe('unknown_parameter');
    }
  });

  it('names the allowed characters, and the ones at fault, of a description with a comma and an orderRef with a dash', async () => {
    const m = await newMerchant();
    const r = await call(gw.baseUrl, 'POST', '/Gateway/v1/Payment/initiate-checkout', {
      key: m.test.apiKey,
      secret: m.test.secretKey,
      body: { ...checkout, description: 'Blue shirt, size M.', orderRef: { orderRef: 'ORDER-1001' } },
    });
    expect(r.status).toBe(400);
    expect(r.json.errors).toEqual({
      description: [
        'letters, digits and spaces only (A-Z, a-z, 0-9 and space: no commas, dots or other signs), 1-200 characters: ' +
          "',' and '.' are not allowed",
      ],
      'orderRef.orderRef': [
        "letters and digits only (A-Z, a-z, 0-9: no dashes, spaces or other signs), at most 100 characters: '-' is not allowed",
      ],
    });
    expect(r.json.detail).toContain('orderRef.orderRef (letters and digits only (A-Z, a-z, 0-9: no dashes, spaces or other signs)');
    // Too long, every character allowed: the rule alone.
    const long = await call(gw.baseUrl, 'POST', '/Gateway/v1/Payment/initiate-checkout', {
      key: m.test.apiKey,
      secret: m.test.secretKey,
      body: { ...checkout, description: 'a'.repeat(201) },
    });
    expect(long.json.errors.description).toEqual([
      'letters, digits and spaces only (A-Z, a-z, 0-9 and space: no commas, dots or other signs), 1-200 characters',
    ]);
  });

  it('gives every 4xx a stable code', async () => {
    const m = await newMerchant();
    const cases: [number, string, Promise<{ status: number; json: { code: string } }>][] = [
      [401, 'unauthorized', call(gw.baseUrl, 'GET', '/Gateway/v1/Transactions', { key: 'pk_test_nope' })],
      [
        400,
        'invalid_json',
        call(gw.baseUrl, 'POST', '/Gateway/v1/Payment/initiate-checkout', {
          key: m.test.apiKey,
          raw: '{',
          headers: { 'Content-Type': 'application/json' },
        }),
      ],
      [
        400,
        'invalid_signature',
        call(gw.baseUrl, 'POST', '/Gateway/v1/Payment/initiate-checkout', { key: m.test.apiKey, body: { ...checkout, signature: 'x' } }),
      ],
      [
        401,
        'signature_mismatch',
        call(gw.baseUrl, 'POST', '/Gateway/v1/Payment/initiate-checkout', {
          key: m.test.apiKey,
          body: { ...checkout, signature: '0'.repeat(32) },
        }),
      ],
      [
        415,
        'unsupported_media_type',
        call(gw.baseUrl, 'POST', '/Gateway/v1/Payment/initiate-checkout', {
          key: m.test.apiKey,
          raw: '{}',
          headers: { 'Content-Type': 'text/plain' },
        }),
      ],
      [404, 'not_found', call(gw.baseUrl, 'GET', '/Gateway/v1/Refunds/3f2b8c1e-9a4d-4f6b-8c2a-1d5e7f9a0b3c', { key: m.test.apiKey })],
      [400, 'invalid_request', call(gw.baseUrl, 'GET', '/Gateway/v1/Transactions?limit=0', { key: m.test.apiKey })],
    ];
    for (const [status, code, pending] of cases) {
      const r = await pending;
      expect([r.status, r.json.code]).toEqual([status, code]);
    }
  });
});
