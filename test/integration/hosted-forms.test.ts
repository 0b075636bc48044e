import type { APIGatewayProxyEvent, APIGatewayProxyResult, Context } from 'aws-lambda';
import { describe, expect, it } from 'vitest';
import { routeList } from '#functions/routes.ts';
import { handler as cardHandler } from '#functions/pay/card.ts';
import { handler as pageHandler } from '#functions/pay/page.ts';
import { requestBase } from '#shared/http/pages.ts';
import { checkoutBody, createCheckout, getPage, pagePath, postForm } from '../support/checkout.ts';
import { completedPayment, dashboardUser } from '../support/dashboard.ts';
import { call, newMerchant, useGateway } from '../support/gateway.ts';

/**
 * Every form and link of the public pages leads to a route, from every URL the page can be shown
 * at (issue 38 §1): the page itself, and the action URL a refused submit is answered at
 * (`/pay/{id}/card`, `/wallet`, `/otp`, a link's `/l/{id}`), on the local server and under a stage
 * prefix as API Gateway serves it (`/prod/pay/{id}/card`). A relative action once resolved to
 * `/pay/{id}/{id}/card` from the refused page: the customer's corrected submit got a 404. The
 * dashboard's pages build theirs from PUBLIC_BASE_URL's path (the deployment's own URL).
 */
const routePatterns = routeList.map((r) => ({
  method: r.method,
  path: r.path,
  pattern: new RegExp(`^${r.path.replace(/\{[^}]+\}/g, '[^/]+')}$`),
}));

/** The route a form's action or a link resolves to from `shownAt`, with `prefix` (the stage) taken off. */
function routeOf(target: string, shownAt: URL, method: string, prefix = ''): string | undefined {
  const url = new URL(target, shownAt);
  if (url.origin !== shownAt.origin) return `external ${url.origin}`;
  if (!url.pathname.startsWith(`${prefix}/`)) return undefined;
  const path = url.pathname.slice(prefix.length);
  return routePatterns.find((r) => r.method === method && r.pattern.test(path))?.path;
}

/** Each form (method, action) and same-page link of a page, with the route it reaches from `shownAt`. */
function targets(html: string, shownAt: URL, prefix = '') {
  const forms = [...html.matchAll(/<form\b[^>]*\bmethod="(get|post)"[^>]*\baction="([^"]*)"/gi)].map(([, method, action]) => ({
    what: `${method!.toUpperCase()} form → ${action}`,
    route: routeOf(action!.replaceAll('&amp;', '&'), shownAt, method!.toUpperCase(), prefix),
  }));
  const links = [...html.matchAll(/<a\b[^>]*\bhref="([^"]*)"/gi)].map(([, href]) => ({
    what: `link → ${href}`,
    route: routeOf(href!.replaceAll('&amp;', '&'), shownAt, 'GET', prefix),
  }));
  return [...forms, ...links];
}

const event = (path: string, full: string, method: string, body?: string): APIGatewayProxyEvent =>
  ({
    resource: '/pay/{paymentIntentId}',
    path,
    httpMethod: method,
    headers: body ? { 'Content-Type': 'application/x-www-form-urlencoded', 'Sec-Fetch-Site': 'same-origin' } : {},
    multiValueHeaders: {},
    queryStringParameters: null,
    multiValueQueryStringParameters: null,
    pathParameters: { paymentIntentId: path.split('/')[2]! },
    stageVariables: null,
    body: body ?? null,
    isBase64Encoded: false,
    requestContext: { requestId: 'forms-test', path: full, stage: 'prod', identity: { sourceIp: '127.0.0.1' } },
  }) as unknown as APIGatewayProxyEvent;
const invoke = (fn: unknown, e: APIGatewayProxyEvent) =>
  (fn as (e: APIGatewayProxyEvent, c: Context) => Promise<APIGatewayProxyResult>)(e, { functionName: 'forms-test' } as Context);

describe('the public pages’ forms and links reach their routes from every URL they are shown at', () => {
  const gw = useGateway(routeList);

  it('the request base: the stage or base path before the route’s path, else PUBLIC_BASE_URL’s path', () => {
    expect(requestBase({ path: '/pay/a/card', requestContext: { path: '/prod/pay/a/card' } })).toBe('/prod');
    expect(requestBase({ path: '/pay/a/card', requestContext: { path: '/pay/a/card' } })).toBe('');
    expect(requestBase({ path: '/l/pl_1', requestContext: { path: '/shop/v1/l/pl_1' } })).toBe('/shop/v1');
    expect(requestBase({ path: '/pay/a', requestContext: null })).toBe(new URL(process.env.PUBLIC_BASE_URL!).pathname.replace(/\/+$/, ''));
  });

  it('the checkout: its page, and each refused submit answered in place (card, wallet, code)', async () => {
    const m = await newMerchant({ name: 'Forms Shop' });
    const created = await createCheckout(gw.baseUrl, m, checkoutBody());
    expect(created.status, created.text).toBe(200);
    const path = pagePath(created.json.checkoutUrl);
    const shown: { at: string; html: string; status: number }[] = [];
    const first = await getPage(gw.baseUrl, path);
    shown.push({ at: path, html: first.html, status: first.status });
    const csrf = first.csrf!;
    const card = await postForm(gw.baseUrl, `${path}/card`, { csrf, name: 'Ayesha Khan', number: '4242', expiry: '12/34', cvc: '123' });
    shown.push({ at: `${path}/card`, ...card });
    const wallet = await postForm(gw.baseUrl, `${path}/wallet`, { csrf, provider: '2', mobileNumber: '0300 12' });
    shown.push({ at: `${path}/wallet`, ...wallet });
    // A refused submit keeps what was valid: the wallet chosen; never the card number.
    expect(card.html).toContain('value="Ayesha Khan"');
    expect(card.html).not.toContain('value="4242"');
    expect(wallet.html).toMatch(/value="2" checked/);
    const started = await postForm(gw.baseUrl, `${path}/wallet`, { csrf, provider: '1', mobileNumber: '0300 1230000' });
    expect(started.status, started.html).toBe(303);
    const code = await postForm(gw.baseUrl, `${path}/otp`, { csrf, otp: '000000' });
    shown.push({ at: `${path}/otp`, ...code });
    expect(code.html).toContain('That code is not right.');

    for (const page of shown) {
      const found = targets(page.html, new URL(page.at, gw.baseUrl));
      expect(found.filter((t) => t.what.includes('form')).length, `forms on ${page.at}`).toBeGreaterThan(0);
      for (const t of found) expect(t.route, `${t.what} on the page shown at ${page.at} (${page.status})`).toBeDefined();
    }
  });

  it('under a stage prefix (as API Gateway serves it): the page and a refused card submit post to /prod/pay/{id}/…', async () => {
    const m = await newMerchant({ name: 'Forms Shop' });
    const created = await createCheckout(gw.baseUrl, m, checkoutBody());
    const id = created.json.paymentIntentId as string;
    const origin = 'https://abc123.execute-api.local.amazonaws.com';
    const page = await invoke(pageHandler, event(`/pay/${id}`, `/prod/pay/${id}`, 'GET'));
    expect(page.statusCode, page.body).toBe(200);
    const csrf = /name="csrf" value="([^"]+)"/.exec(page.body)![1]!;
    const refused = await invoke(
      cardHandler,
      event(
        `/pay/${id}/card`,
        `/prod/pay/${id}/card`,
        'POST',
        new URLSearchParams({ csrf, name: 'A', number: '1', expiry: '1', cvc: '1' }).toString(),
      ),
    );
    expect(refused.statusCode, refused.body).toBe(400);
    for (const [at, html] of [
      [`/prod/pay/${id}`, page.body],
      [`/prod/pay/${id}/card`, refused.body],
    ] as const) {
      const found = targets(html, new URL(at, origin), '/prod');
      expect(found.length).toBeGreaterThan(0);
      for (const t of found) expect(t.route, `${t.what} on the page shown at ${at}`).toBeDefined();
    }
    expect(refused.body).toContain(`action="/prod/pay/${id}/card"`);
    // A successful submit is redirected to the page under the same prefix (POST-redirect-GET).
    const paid = await invoke(
      cardHandler,
      event(
        `/pay/${id}/card`,
        `/prod/pay/${id}/card`,
        'POST',
        new URLSearchParams({ csrf, name: 'A K', number: '4242424242424242', expiry: '12/34', cvc: '123' }).toString(),
      ),
    );
    expect(paid.statusCode).toBe(303);
    expect(paid.headers?.Location).toBe(`/prod/pay/${id}`);
  });

  it('a payment link’s page and its refused submit', async () => {
    const m = await newMerchant({ name: 'Forms Shop' });
    const link = await call(gw.baseUrl, 'POST', '/Gateway/v1/PaymentLinks', {
      key: m.test.apiKey,
      secret: m.test.secretKey,
      body: { amount: 750, description: 'Mug', maxQuantity: 3 },
    });
    expect(link.status, link.text).toBe(201);
    const path = `/l/${link.json.id}`;
    const first = await getPage(gw.baseUrl, path);
    const refused = await postForm(gw.baseUrl, path, { csrf: first.csrf!, quantity: '9' });
    expect(refused.status).toBe(400);
    for (const html of [first.html, refused.html]) {
      const found = targets(html, new URL(path, gw.baseUrl));
      expect(found.length).toBeGreaterThan(0);
      for (const t of found) expect(t.route, `${t.what} on ${path}`).toBeDefined();
    }
  });

  it('the dashboard: every form and link of every page an admin sees, and of a refused sign-in, leads to a route', async () => {
    const m = await newMerchant({ name: 'Forms Shop' });
    const { id } = await completedPayment(gw.baseUrl, m);
    const admin = await dashboardUser(m, 'admin');
    const pages = ['', '/payments', `/payments/${id}`, '/refunds', '/links', '/payouts', '/settlements', '/balance', '/statements'];
    pages.push('/developers', '/developers/webhooks', '/team', '/settings');
    for (const page of pages) {
      const path = `/dashboard${page}`;
      const r = await fetch(`${gw.baseUrl}${path}`, { headers: { Cookie: admin.cookie }, redirect: 'manual' });
      const html = await r.text();
      expect(r.status, `${path}: ${html.slice(0, 200)}`).toBe(200);
      const found = targets(html, new URL(path, gw.baseUrl));
      expect(
        found.some((t) => t.what.includes('form')),
        `forms on ${path}`,
      ).toBe(true);
      for (const t of found) expect(t.route, `${t.what} on ${path}`).toBeDefined();
    }
    const signIn = await getPage(gw.baseUrl, '/dashboard/sign-in');
    const refused = await postForm(gw.baseUrl, '/dashboard/sign-in', {
      csrf: signIn.csrf!,
      email: admin.email,
      password: 'wrong password here',
    });
    expect(refused.status).toBeGreaterThanOrEqual(400);
    for (const t of targets(refused.html, new URL('/dashboard/sign-in', gw.baseUrl)))
      expect(t.route, `${t.what} on a refused sign-in`).toBeDefined();
  });
});
