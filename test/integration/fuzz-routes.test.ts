import fc from 'fast-check';
import { beforeAll, describe, expect, it } from 'vitest';
import { routeList } from '#functions/routes.ts';
import { signBody } from '#shared/domain/body-signature.ts';
import { newMerchant, useGateway, type TestMerchant } from '../support/gateway.ts';

/**
 * Property: whatever arrives (arbitrary JSON, arbitrary strings in every field, arbitrary path
 * parameters, query strings and headers) on any route of the route table, the gateway answers
 * below 500, and every JSON error is application/problem+json. Bounded runs, fixed seed: a
 * failure prints the seed and the shrunk counterexample.
 */
const seed = Number(process.env.FUZZ_SEED || 20261123);
const numRuns = Number(process.env.FUZZ_RUNS || 250);

const text = fc.oneof(
  fc.string(),
  fc.string({ unit: 'grapheme' }),
  fc.constantFrom('', ' ', '%', '%E0%A4%A', '../..', '\u0000', 'x'.repeat(300), '１２３', '-1', '1e309', 'NaN', '{}', 'null'),
);
const field = fc.constantFrom(
  'amount',
  'currency',
  'description',
  'orderRef',
  'customerRef',
  'callbackUrl',
  'metadata',
  'paymentMethod',
  'walletProvider',
  'accountNumber',
  'bankCode',
  'reference',
  'paymentIntentId',
  'reason',
  'signature',
  'mobileNumber',
  'email',
  'cardNumber',
  'otp',
  'status',
);
const json = fc.oneof(
  fc.jsonValue({ maxDepth: 4 }),
  fc.dictionary(
    fc.oneof(field, fc.string()),
    fc.oneof(text, fc.integer(), fc.double(), fc.boolean(), fc.constant(null), fc.jsonValue({ maxDepth: 3 })),
  ),
);
const header = fc.tuple(
  fc.constantFrom('Idempotency-Key', 'Content-Type', 'X-Forwarded-For', 'Svc-Trace-Id', 'Accept', 'Cookie', 'X-Wallet-Signature'),
  fc.string({ minLength: 0, maxLength: 40 }).filter((v) => /^[\t\x20-\x7e]*$/.test(v)),
);

const request = fc.record({
  route: fc.constantFrom(...routeList),
  params: fc.array(fc.oneof(text.map(encodeURIComponent), fc.constantFrom('%', '%FF%FE', '%E0%A4%A', '%C0%AF', '%zz')), {
    minLength: 4,
    maxLength: 4,
  }),
  version: fc.constantFrom('1', '2', '0', 'x'),
  body: fc.oneof(
    json.map((v) => JSON.stringify(v)),
    fc.string(),
    fc.constant(''),
    fc.nat({ max: 6000 }).map((d) => `{"amount":1,"a":${'['.repeat(d)}${']'.repeat(d)}}`),
  ),
  sign: fc.boolean(),
  contentType: fc.constantFrom(
    'application/json',
    'application/json; charset=utf-8',
    'application/x-www-form-urlencoded',
    'text/plain',
    undefined,
  ),
  query: fc.array(fc.tuple(fc.oneof(field, fc.string()), text), { maxLength: 3 }),
  headers: fc.array(header, { maxLength: 3 }),
  key: fc.constantFrom('test', 'live', 'none', 'garbage'),
});

describe('every route, arbitrary input: never a 5xx', () => {
  const gw = useGateway(routeList);
  let m: TestMerchant;
  beforeAll(async () => {
    m = await newMerchant();
  });

  it(`holds for ${numRuns} generated requests (seed ${seed})`, async () => {
    await fc.assert(
      fc.asyncProperty(request, async (r) => {
        let i = 0;
        const path = r.route.path.replace(/\{(\w+)\}/g, (_, name: string) => (name === 'version' ? r.version : r.params[i++ % 4]!));
        const headers: Record<string, string> = {};
        for (const [k, v] of r.headers) headers[k] = v;
        if (r.contentType) headers['Content-Type'] = r.contentType;
        if (r.key === 'test') headers['Svc-API-Key'] = m.test.apiKey;
        if (r.key === 'live') headers['Svc-API-Key'] = m.live.apiKey;
        if (r.key === 'garbage') headers['Svc-API-Key'] = 'pk_test_garbage';
        let body = r.body;
        if (r.sign && r.key !== 'none') {
          try {
            const parsed = JSON.parse(body);
            if (parsed && typeof parsed === 'object' && !Array.isArray(parsed))
              body = JSON.stringify({ ...parsed, signature: signBody(parsed, r.key === 'live' ? m.live.secretKey : m.test.secretKey) });
          } catch {
            // not an object: sent as it is
          }
        }
        const qs = new URLSearchParams(r.query).toString();
        const response = await fetch(`${gw.baseUrl}${path}${qs ? `?${qs}` : ''}`, {
          method: r.route.method,
          headers,
          ...(r.route.method === 'GET' ? {} : { body }),
        });
        const contentType = response.headers.get('content-type') ?? '';
        await response.arrayBuffer();
        expect(response.status, `${r.route.method} ${path}`).toBeLessThan(500);
        if (response.status >= 400 && !contentType.startsWith('text/html'))
          expect(contentType, `${r.route.method} ${path} ${response.status}`).toBe('application/problem+json');
      }),
      { seed, numRuns, endOnFailure: true },
    );
  }, 120_000);
});
