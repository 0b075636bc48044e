import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { describe, expect, it } from 'vitest';
import { signBody as gatewaySign } from '#shared/domain/body-signature.ts';
import { Gateway, GatewayError, signBody } from '../../sdk/node/src/index.ts';
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

it('the gateway events fit the SDK declarations (checked by tsc; see above)', () => {
  expect([gatewayEventFitsSdk, refundEventFitsSdk, settlementEventFitsSdk]).toEqual([true, true, true]);
});
