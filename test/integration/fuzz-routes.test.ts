import fc from 'fast-check';
import { beforeAll, describe, expect, it } from 'vitest';
import { csrfSubject as linkCsrfSubject } from '#functions/links/common.ts';
import { csrfSubject } from '#functions/pay/common.ts';
import { routeList, type Route } from '#functions/routes.ts';
import { formToken } from '#shared/crypto/form-token.ts';
import { totpCode } from '#shared/crypto/totp.ts';
import { signBody } from '#shared/domain/body-signature.ts';
import { publicFormSubject, sessionCookieName, sessionCsrf } from '#shared/http/dashboard.ts';
import {
  acceptInvite,
  authenticate,
  completeEnrolment,
  enrolmentSecret,
  inviteUser,
  operatorActor,
} from '#shared/services/dashboard-auth.ts';
import { checkoutBody, createCheckout } from '../support/checkout.ts';
import { call, newMerchant, useGateway, type TestMerchant } from '../support/gateway.ts';

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
  'minAmount',
  'maxAmount',
  'maxQuantity',
  'maxPayments',
  'expiresAt',
  'collect',
  'quantity',
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

/** What every fuzzed response must be: below 500, and a JSON error is problem+json. */
async function expectClean(response: Response, what: string) {
  const contentType = response.headers.get('content-type') ?? '';
  await response.arrayBuffer();
  expect(response.status, what).toBeLessThan(500);
  if (response.status >= 400 && !contentType.startsWith('text/html'))
    expect(contentType, `${what} ${response.status}`).toBe('application/problem+json');
}

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
        await expectClean(response, `${r.route.method} ${path}`);
      }),
      { seed, numRuns, endOnFailure: true },
    );
  }, 120_000);
});

/**
 * Member names that are also Object.prototype's (`__proto__`, `constructor`, `toString`, ...), at
 * every depth of a JSON body (signed with the key's secret, so they get past the signature to
 * validation), as form fields (with a valid form or session token, so they reach the handler), as
 * query parameters, path parameters and header names: a clean 4xx or a normal answer, never a
 * 5xx, and the server's Object.prototype is left as it was. Generated as text: an object literal in
 * this file would turn a `__proto__` member into a prototype.
 */
const poisonNames = ['__proto__', 'constructor', 'prototype', 'toString', 'hasOwnProperty', 'valueOf'] as const;
const poisonRuns = Number(process.env.FUZZ_POISON_RUNS || 150);
const poison = fc.constantFrom(...poisonNames);
const member = fc.oneof(
  { weight: 4, arbitrary: poison },
  { weight: 2, arbitrary: field },
  { weight: 1, arbitrary: fc.string({ maxLength: 8 }) },
);
const scalar = fc.oneof(text, fc.integer(), fc.double(), fc.boolean(), fc.constant(null)).map((v) => JSON.stringify(v));
const { tree } = fc.letrec<{ tree: string; object: string; array: string }>((tie) => ({
  tree: fc.oneof({ depthSize: 'small', maxDepth: 5 }, scalar, tie('object'), tie('array')),
  object: fc
    .array(fc.tuple(member, tie('tree')), { maxLength: 4 })
    .map((members) => `{${members.map(([k, v]) => `${JSON.stringify(k)}:${v}`).join(',')}}`),
  array: fc.array(tie('tree'), { maxLength: 3 }).map((items) => `[${items.join(',')}]`),
}));
/** Plausible bodies (checkout, deposit, withdraw, refund members) the poisoned members join. */
const bases = [
  '{}',
  JSON.stringify(checkoutBody({ orderRef: { orderRef: 'FUZZ1' } })),
  '{"amount":150,"description":"Fuzz","mobileNumber":"03001234567","walletProvider":1,"orderRef":{"orderRef":"FUZZ2"}}',
  '{"amount":150,"currency":"PKR","description":"Fuzz","customerRef":{"accountNumber":"PK36SCBL0000001123456702"}}',
  '{"trxnRef":"x","amount":1,"reason":"fuzz"}',
];
/** A JSON object whose members (and their members, at any depth) include the prototype names. */
const poisonedJson = fc
  .tuple(fc.constantFrom(...bases), fc.array(fc.tuple(member, tree), { minLength: 1, maxLength: 4 }))
  .map(([base, members]) => {
    const added = members.map(([k, v]) => `${JSON.stringify(k)}:${v}`).join(',');
    return base === '{}' ? `{${added}}` : `${base.slice(0, -1)},${added}}`;
  });
/** Flat names (form fields, query parameters) written as nested-looking names too. */
const flatName = fc.oneof(
  member,
  fc.tuple(poison, fc.oneof(poison, field)).map(([a, b]) => `${a}[${b}]`),
  fc.tuple(fc.oneof(poison, field), poison).map(([a, b]) => `${a}.${b}`),
);
const pairs = fc.array(fc.tuple(flatName, text), { minLength: 1, maxLength: 5 });

const poisonRequest = fc.record({
  route: fc.constantFrom(...routeList),
  params: fc.array(fc.oneof(poison, text.map(encodeURIComponent)), { minLength: 4, maxLength: 4 }),
  realIds: fc.boolean(),
  json: poisonedJson,
  form: pairs,
  query: fc.array(fc.tuple(flatName, text), { maxLength: 3 }),
  headerNames: fc.array(poison, { maxLength: 2 }),
  sign: fc.nat(9).map((n) => n > 0),
  token: fc.nat(9).map((n) => n > 0),
  live: fc.boolean(),
});

describe('prototype member names, everywhere: refused cleanly, never a 5xx', () => {
  const gw = useGateway(routeList);
  let m: TestMerchant;
  let intentId = '';
  let linkId = '';
  const dashboard = { cookie: '', csrf: '', token: '' };

  /** An enrolled admin of its own merchant (key rolls in the dashboard cannot break the API merchant's keys). */
  async function signInAdmin() {
    const owner = await newMerchant({ name: 'Fuzz Dashboard' });
    const password = 'a long enough passphrase';
    const invite = await inviteUser(
      { merchantId: owner.merchantId, email: `fuzz-${owner.merchantId}@fuzz.test`, role: 'admin' },
      operatorActor,
    );
    const { sessionToken } = await acceptInvite(new URL(invite.inviteUrl).pathname.split('/').pop()!, password, password, null);
    const enrolling = (await authenticate(sessionToken, '127.0.0.1'))!;
    const { secret } = await enrolmentSecret(enrolling);
    const { sessionToken: full } = await completeEnrolment(enrolling, totpCode(secret, Date.now()));
    dashboard.token = full;
    dashboard.cookie = `${sessionCookieName()}=${full}`;
    dashboard.csrf = await sessionCsrf((await authenticate(full, '127.0.0.1'))!);
  }

  beforeAll(async () => {
    m = await newMerchant();
    const created = await createCheckout(gw.baseUrl, m, checkoutBody());
    expect(created.status, created.text).toBe(200);
    intentId = created.json.paymentIntentId as string;
    const link = await call(gw.baseUrl, 'POST', '/Gateway/v1/PaymentLinks', {
      key: m.test.apiKey,
      secret: m.test.secretKey,
      body: { minAmount: 100, maxAmount: 5000, description: 'Fuzz link', collect: ['name', 'email', 'phone', 'address'] },
    });
    expect(link.status, link.text).toBe(201);
    linkId = link.json.id as string;
    await signInAdmin();
  });

  /** The form token the route's page would have rendered for these path parameters. */
  async function formCsrf(route: Route, path: Record<string, string>): Promise<string> {
    if (route.path.startsWith('/pay/')) return formToken(csrfSubject(path));
    if (route.path.startsWith('/l/')) return formToken(linkCsrfSubject(path));
    if (route.auth === 'session') return dashboard.csrf;
    return formToken(publicFormSubject(route, path));
  }

  it(`holds for ${poisonRuns} generated requests (seed ${seed})`, async () => {
    const prototypeBefore = Object.getOwnPropertyNames(Object.prototype).sort();
    await fc.assert(
      fc.asyncProperty(poisonRequest, async (r) => {
        let i = 0;
        const path: Record<string, string> = {};
        const url = r.route.path.replace(/\{(\w+)\}/g, (_, name: string) => {
          const real =
            r.realIds &&
            ({ paymentIntentId: intentId, linkId, id: linkId, provider: r.live ? 'jazzcash' : 'easypaisa' } as Record<string, string>)[
              name
            ];
          const value = name === 'version' ? '1' : real || r.params[i++ % 4]!;
          path[name] = decodeURIComponent(value);
          return value;
        });
        const keys = r.live ? m.live : m.test;
        const headers: [string, string][] = r.headerNames.map((name) => [name, 'x']);
        let body: string | undefined;
        const page = r.route.auth !== 'apiKey';
        if (r.route.auth === 'apiKey') headers.push(['Svc-API-Key', keys.apiKey]);
        // A generated sign-out or mode switch may have ended the session: sign in again.
        if (r.route.auth === 'session' && !(await authenticate(dashboard.token, '127.0.0.1'))) await signInAdmin();
        if (r.route.auth === 'session') headers.push(['Cookie', dashboard.cookie]);
        if (r.route.method === 'POST' && page) {
          const form = new URLSearchParams(r.form);
          if (r.token) form.append('csrf', await formCsrf(r.route, path));
          headers.push(['Content-Type', 'application/x-www-form-urlencoded'], ['Sec-Fetch-Site', 'same-origin']);
          body = form.toString();
        } else if (r.route.method === 'POST') {
          const parsed = JSON.parse(r.json) as Record<string, unknown>;
          body = r.sign ? JSON.stringify({ ...parsed, signature: signBody(parsed, keys.secretKey) }) : r.json;
          headers.push(['Content-Type', 'application/json']);
        }
        const qs = new URLSearchParams(r.query).toString();
        const response = await fetch(`${gw.baseUrl}${url}${qs ? `?${qs}` : ''}`, {
          method: r.route.method,
          headers,
          body,
          redirect: 'manual',
        });
        await expectClean(response, `${r.route.method} ${url}${qs ? `?${qs}` : ''} ${body ?? ''}`);
        expect(Object.getOwnPropertyNames(Object.prototype).sort()).toEqual(prototypeBefore);
        expect(({} as Record<string, unknown>).admin).toBeUndefined();
      }),
      { seed, numRuns: poisonRuns, endOnFailure: true },
    );
  }, 180_000);

  it('a signed body whose top level is __proto__ or constructor is a 400 naming the member on checkout, deposit and withdraw', async () => {
    for (const route of ['initiate-checkout', 'deposit', 'withdraw']) {
      for (const raw of ['{"__proto__":{"admin":true}}', '{"constructor":{"prototype":{"x":1}}}', '{"toString":1,"valueOf":{"a":1}}']) {
        const parsed = JSON.parse(raw) as Record<string, unknown>;
        const response = await fetch(`${gw.baseUrl}/Gateway/v1/Payment/${route}`, {
          method: 'POST',
          headers: { 'Svc-API-Key': m.test.apiKey, 'Content-Type': 'application/json' },
          body: JSON.stringify({ ...parsed, signature: signBody(parsed, m.test.secretKey) }),
        });
        const problem = (await response.json()) as { code: string; errors: Record<string, string[]> };
        expect(response.status, `${route} ${raw}`).toBe(400);
        expect(response.headers.get('content-type')).toBe('application/problem+json');
        expect(problem.code).toBe('unknown_parameter');
        for (const name of Object.keys(parsed)) expect(Object.hasOwn(problem.errors, name), `${route} ${name}`).toBe(true);
      }
    }
    expect(({} as Record<string, unknown>).admin).toBeUndefined();
  });
});

/**
 * Payment links (docs/payment-links.md): arbitrary creates (amounts, ranges, quantities, limits,
 * expiries, fields) are a 201 or a clean 4xx; arbitrary forms on a real link's page (amounts
 * outside min/max, tampered quantities, odd details) are a 303 to the checkout or a 400/410 page,
 * never a 5xx; and every session a 303 made has an amount within the link's range.
 */
const linkRuns = Number(process.env.FUZZ_LINK_RUNS || 150);
const number = fc.oneof(fc.integer({ min: -10, max: 10_000_000 }), fc.double({ noNaN: true }), fc.constantFrom(0, 10, 10.01, 1e21));
const maybe = <T>(a: fc.Arbitrary<T>) => fc.option(fc.oneof(a as fc.Arbitrary<unknown>, text, fc.constant(null)), { nil: undefined });
const linkBody = fc.record(
  {
    amount: maybe(number),
    minAmount: maybe(number),
    maxAmount: maybe(number),
    currency: maybe(fc.constantFrom('PKR', 'USD', 'USDT', 'XYZ', 'pkr')),
    description: maybe(fc.constantFrom('Blue shirt', 'x'.repeat(201), '')),
    maxQuantity: maybe(number),
    maxPayments: maybe(number),
    expiresAt: maybe(fc.constantFrom('2099-01-01T00:00:00Z', '2020-01-01', 'tomorrow')),
    collect: maybe(fc.array(fc.constantFrom('name', 'email', 'phone', 'address', 'cnic'))),
    returnUrl: maybe(fc.constantFrom('https://shop.example.com/done', 'javascript:alert(1)', 'http://shop.example.com/plain-http')),
  },
  { requiredKeys: [] },
);
const linkForm = fc.record(
  {
    amount: fc.oneof(
      text,
      fc.double().map(String),
      fc.integer({ min: -1, max: 10_000 }).map(String),
      fc.constantFrom('99.99', '5000.01', '100'),
    ),
    quantity: fc.oneof(text, fc.integer({ min: -5, max: 1_000 }).map(String), fc.constantFrom('1', '2', '1e3', '0x2')),
    name: text,
    email: fc.oneof(text, fc.constant('a@b.co')),
    phone: fc.oneof(text, fc.constant('03001234567')),
    address: text,
  },
  { requiredKeys: [] },
);

describe('payment links, arbitrary input: a clean 4xx or a payment within the link, never a 5xx', () => {
  const gw = useGateway(routeList);
  let m: TestMerchant;
  let linkId = '';
  let quantityLinkId = '';
  beforeAll(async () => {
    m = await newMerchant();
    const link = await call(gw.baseUrl, 'POST', '/Gateway/v1/PaymentLinks', {
      key: m.test.apiKey,
      secret: m.test.secretKey,
      body: { minAmount: 100, maxAmount: 5000, description: 'Fuzz link', collect: ['name', 'email', 'phone', 'address'] },
    });
    linkId = link.json.id as string;
    const quantityLink = await call(gw.baseUrl, 'POST', '/Gateway/v1/PaymentLinks', {
      key: m.test.apiKey,
      secret: m.test.secretKey,
      body: { amount: 1500, maxQuantity: 3, description: 'Fuzz shirts' },
    });
    quantityLinkId = quantityLink.json.id as string;
  });
  const linkPayments = async (id: string): Promise<{ amount: number; metadataJson: string }[]> => {
    const page = await call(gw.baseUrl, 'GET', `/Gateway/v1/Transactions?paymentLinkId=${id}&limit=100`, { key: m.test.apiKey });
    return page.json.items;
  };

  it(`creates: ${linkRuns} generated bodies (seed ${seed})`, async () => {
    await fc.assert(
      fc.asyncProperty(linkBody, async (body) => {
        const r = await call(gw.baseUrl, 'POST', '/Gateway/v1/PaymentLinks', { key: m.test.apiKey, secret: m.test.secretKey, body });
        expect([201, 400, 422], r.text).toContain(r.status);
        if (r.status === 400) expect(Object.keys(r.json.errors ?? {}).length, r.text).toBeGreaterThan(0);
      }),
      { seed, numRuns: linkRuns, endOnFailure: true },
    );
  }, 120_000);

  it(`pays: ${linkRuns} generated forms on a real link with a range and one with a quantity (seed ${seed})`, async () => {
    await fc.assert(
      fc.asyncProperty(linkForm, async (fields) => {
        for (const id of [linkId, quantityLinkId]) {
          const response = await fetch(`${gw.baseUrl}/l/${id}`, {
            method: 'POST',
            redirect: 'manual',
            headers: { 'Content-Type': 'application/x-www-form-urlencoded', 'Sec-Fetch-Site': 'same-origin' },
            body: new URLSearchParams({ csrf: await formToken(linkCsrfSubject({ linkId: id })), ...fields }).toString(),
          });
          await expectClean(response, JSON.stringify(fields));
          expect([303, 400], JSON.stringify(fields)).toContain(response.status);
        }
      }),
      { seed, numRuns: linkRuns, endOnFailure: true },
    );
    const ranged = await linkPayments(linkId);
    expect(ranged.length).toBeGreaterThan(0); // some generated forms were complete and within the range
    for (const t of ranged) {
      expect(t.amount).toBeGreaterThanOrEqual(100);
      expect(t.amount).toBeLessThanOrEqual(5000);
      expect(JSON.parse(t.metadataJson)).toMatchObject({ paymentLinkId: linkId, quantity: 1 });
    }
    // The quantity link charges the price times a quantity from 1 to 3, whatever the form said.
    const quantities = (await linkPayments(quantityLinkId)).map((t) => {
      const { paymentLinkId, quantity } = JSON.parse(t.metadataJson) as { paymentLinkId: string; quantity: number };
      expect(paymentLinkId).toBe(quantityLinkId);
      expect(t.amount).toBe(1500 * quantity);
      return quantity;
    });
    expect(quantities.length).toBeGreaterThan(0);
    for (const q of quantities) expect([1, 2, 3]).toContain(q);
  }, 180_000);
});
