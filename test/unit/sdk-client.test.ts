import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { describe, expect, it } from 'vitest';
import { signBody as gatewaySign } from '#shared/domain/body-signature.ts';
import { Gateway, GatewayConnectionError, GatewayError, GatewayRedirectError, signBody } from '../../sdk/node/src/index.ts';
import type { RefundStatusChanged, SettlementStatusChanged, TransactionStatusChanged } from '#shared/domain/events.ts';
import type { RefundStatusChangedEvent, SettlementStatusChangedEvent, WebhookEvent } from '../../sdk/node/src/webhooks.ts';

/**
 * The SDK's event types are generated from docs/openapi.json (it ships without gateway internals). `npm test`
 * type-checks that every event the gateway builds fits them, so the two cannot drift apart silently.
 */
const gatewayEventFitsSdk: TransactionStatusChanged extends WebhookEvent ? true : never = true;
const refundEventFitsSdk: RefundStatusChanged extends RefundStatusChangedEvent ? true : never = true;
const settlementEventFitsSdk: SettlementStatusChanged extends SettlementStatusChangedEvent ? true : never = true;

describe('SDK client', () => {
  it('signs exactly as the gateway verifies', () => {
    const body = { amount: 1500, orderRef: { orderRef: 'A1', tax: null }, items: [{ sku: 'x', qty: 2 }], note: '' };
    expect(signBody(body, 'sk_test_x')).toBe(gatewaySign(body, 'sk_test_x'));
  });

  it('retries 429 (Retry-After) and 5xx with the same Idempotency-Key, then throws a typed problem', async () => {
    const seen: { key: string | undefined; signature: unknown }[] = [];
    const replies = [429, 503, 422];
    const server = createServer((req, res) => {
      let raw = '';
      req.on('data', (c) => (raw += c));
      req.on('end', () => {
        seen.push({ key: req.headers['idempotency-key'] as string | undefined, signature: JSON.parse(raw).signature });
        const status = replies.shift()!;
        res.writeHead(status, { 'Content-Type': 'application/problem+json', ...(status === 429 ? { 'Retry-After': '0' } : {}) });
        res.end(JSON.stringify({ status, title: 't', detail: 'amount too large', code: 'amount_limit', traceId: 'tr_1' }));
      });
    });
    await new Promise<void>((ok) => server.listen(0, '127.0.0.1', ok));
    try {
      const gateway = new Gateway({
        apiKey: 'pk_test_x',
        secretKey: 'sk_test_x',
        baseUrl: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
        retryBaseMs: 1,
      });
      const error = await gateway.checkouts
        .create({ amount: 1, currency: 'PKR', description: 'x', orderRef: { orderRef: 'A' } })
        .catch((e: unknown) => e);
      expect(error).toBeInstanceOf(GatewayError);
      expect(error).toMatchObject({ status: 422, code: 'amount_limit', traceId: 'tr_1', message: 'amount too large' });
      expect(seen).toHaveLength(3);
      expect(new Set(seen.map((s) => s.key)).size).toBe(1);
      expect(seen[0]!.key).toMatch(/^[0-9a-f-]{36}$/);
      expect(seen[0]!.signature).toMatch(/^[0-9a-f]{32}$/);
    } finally {
      server.close();
    }
  });
});

describe('SDK client messages for the common mistakes', () => {
  it('carries the hint of a problem (signature_mismatch) in `hint`, `problem.hint` and the message', async () => {
    const hint = 'The body signature is MD5 over the body members … Guide: /docs/signing';
    const s = createServer((_req, res) => {
      res.writeHead(401, { 'Content-Type': 'application/problem+json' });
      res.end(JSON.stringify({ status: 401, title: 'Unauthorized', detail: 'signature mismatch', code: 'signature_mismatch', hint }));
    });
    await new Promise<void>((ok) => s.listen(0, '127.0.0.1', ok));
    try {
      const baseUrl = `http://127.0.0.1:${(s.address() as AddressInfo).port}`;
      const gateway = new Gateway({ apiKey: 'pk_test_x', secretKey: 'sk_test_x', baseUrl });
      const error = await gateway.refunds.create({ trxnRef: 'pi_1', amount: 1 }).catch((e: unknown) => e);
      expect(error).toMatchObject({ status: 401, code: 'signature_mismatch', hint, problem: { detail: 'signature mismatch', hint } });
      expect((error as Error).message).toBe(`signature mismatch (${hint})`);
    } finally {
      s.close();
    }
  });

  it('refuses a baseUrl that already ends in /Gateway/v1, naming the value to use', () => {
    for (const baseUrl of ['http://127.0.0.1:3000/Gateway/v1', 'https://gw.example/prod/Gateway/v1/']) {
      const root = baseUrl.replace(/\/Gateway\/v1\/?$/, '');
      expect(() => new Gateway({ apiKey: 'pk_test_x', baseUrl })).toThrow(`use baseUrl ${root}`);
      expect(() => new Gateway({ apiKey: 'pk_test_x', baseUrl })).toThrow(/requests would go to …\/Gateway\/v1\/Gateway\/v1\//);
    }
    expect(() => new Gateway({ apiKey: 'pk_test_x', baseUrl: 'localhost:3000' })).toThrow(/must be an http or https URL/);
    expect(() => new Gateway({ apiKey: 'pk_test_x', baseUrl: 'nowhere' })).toThrow(/is not an absolute URL/);
    expect(new Gateway({ apiKey: 'pk_test_x', baseUrl: 'https://gw.example/prod/' }).baseUrl).toBe('https://gw.example/prod');
  });

  it('names the URL it could not reach and the cause, after its retries (not `TypeError: fetch failed`)', async () => {
    // A port that was just free: nothing listens on it.
    const s = createServer();
    await new Promise<void>((ok) => s.listen(0, '127.0.0.1', ok));
    const port = (s.address() as AddressInfo).port;
    await new Promise((ok) => s.close(ok));
    const gateway = new Gateway({ apiKey: 'pk_test_x', baseUrl: `http://127.0.0.1:${port}`, maxRetries: 1, retryBaseMs: 1 });
    const error = await gateway.settlements.schedule().catch((e: unknown) => e);
    expect(error).toBeInstanceOf(GatewayConnectionError);
    const url = `http://127.0.0.1:${port}/Gateway/v1/Settlements/schedule`;
    expect(error).toMatchObject({ code: 'connection_failed', url, attempts: 2 });
    expect((error as GatewayConnectionError).reason).toMatch(/ECONNREFUSED/);
    expect((error as Error).message).toContain(`Could not reach the gateway at http://127.0.0.1:${port} (${url}): connect ECONNREFUSED`);
    expect((error as Error).message).toContain('Check baseUrl and that the gateway is running.');
  });
});

describe('SDK client and redirects', () => {
  /** A real HTTP server on 127.0.0.1 recording what reaches it; `reply` answers each request. */
  async function server(reply: (req: IncomingMessage, res: ServerResponse) => void) {
    const seen: { path: string; apiKey: string | undefined; body: string }[] = [];
    const s = createServer((req, res) => {
      let body = '';
      req.on('data', (c) => (body += c));
      req.on('end', () => {
        seen.push({ path: req.url ?? '', apiKey: req.headers['svc-api-key'] as string | undefined, body });
        reply(req, res);
      });
    });
    await new Promise<void>((ok) => s.listen(0, '127.0.0.1', ok));
    return { seen, origin: `http://127.0.0.1:${(s.address() as AddressInfo).port}`, close: () => s.close() };
  }

  it('refuses a 307 to another origin with GatewayRedirectError; the other origin never gets the key or the body', async () => {
    const other = await server((_req, res) => res.writeHead(200, { 'Content-Type': 'application/json' }).end('{}'));
    const gateway = await server((req, res) => res.writeHead(307, { Location: `${other.origin}${req.url}` }).end());
    try {
      const client = new Gateway({ apiKey: 'pk_test_redirect', secretKey: 'sk_test_x', baseUrl: gateway.origin, retryBaseMs: 1 });
      for (const attempt of [
        () => client.checkouts.create({ amount: 1, description: 'x', orderRef: { orderRef: 'A' } }),
        () => client.transactions.list({ limit: 1 }),
      ]) {
        const error = await attempt().catch((e: unknown) => e);
        expect(error).toBeInstanceOf(GatewayRedirectError);
        expect(error).toBeInstanceOf(GatewayError);
        expect(error).toMatchObject({ status: 307, code: 'redirect_refused', targetOrigin: other.origin, crossOrigin: true });
        expect((error as Error).message).toContain(`307 with a redirect to another origin, ${other.origin}`);
      }
      expect(other.seen).toEqual([]);
      expect(gateway.seen.map((s) => s.apiKey)).toEqual(['pk_test_redirect', 'pk_test_redirect']); // one attempt each, no retry
    } finally {
      other.close();
      gateway.close();
    }
  });

  it('does not follow a redirect on the same origin either (308 with a signed body, 302 on a GET)', async () => {
    const gateway = await server((req, res) => {
      if (req.url?.startsWith('/moved')) return res.writeHead(200, { 'Content-Type': 'application/json' }).end('{}');
      res.writeHead(req.method === 'POST' ? 308 : 302, { Location: `/moved${req.url}` }).end();
    });
    try {
      const client = new Gateway({ apiKey: 'pk_test_same', secretKey: 'sk_test_x', baseUrl: gateway.origin, retryBaseMs: 1 });
      const post = await client.deposits
        .create({ amount: 1, description: 'x', mobileNumber: '03001234567', orderRef: { orderRef: 'B' } })
        .catch((e: unknown) => e);
      expect(post).toMatchObject({ name: 'GatewayRedirectError', status: 308, crossOrigin: false, targetOrigin: gateway.origin });
      const get = await client.settlements.schedule().catch((e: unknown) => e);
      expect(get).toMatchObject({ name: 'GatewayRedirectError', status: 302, crossOrigin: false });
      expect(gateway.seen.map((s) => s.path.startsWith('/moved'))).toEqual([false, false]);
    } finally {
      gateway.close();
    }
  });
});

it('the gateway events fit the SDK declarations (checked by tsc; see above)', () => {
  expect([gatewayEventFitsSdk, refundEventFitsSdk, settlementEventFitsSdk]).toEqual([true, true, true]);
});
