import { createHmac } from 'node:crypto';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { describe, expect, it } from 'vitest';
import { destinationRule, guardedLookup, maxSocketsPerHost, postWebhook } from '#shared/webhooks/http.ts';
import { retryDelay, maxAttempts, retrySchedule } from '#shared/webhooks/policy.ts';
import { signedHeaders } from '#shared/webhooks/signing.ts';
import { constructEvent, nextState, verifyLegacySignature, verifySignature, WebhookSignatureError } from '../../sdk/node/src/webhooks.ts';

const secret = 'whsec_dGVzdCBzZWNyZXQgdGhhdCBpcyBsb25nIGVub3VnaA==';
const body = JSON.stringify({
  id: 'evt_1',
  type: 'TransactionStatusChanged',
  created: 1_700_000_000,
  livemode: false,
  api_version: 'v1',
  data: { CurrentStatus: 'Completed' },
});
const now = 1_700_000_100;
const sign = (secrets: string[], t = now) =>
  signedHeaders({ body, secrets, eventId: 'evt_1', eventType: 'TransactionStatusChanged', deliveryId: 'dlv_1', timestamp: t });

describe('webhook signatures', () => {
  it('signs like Stripe: t=<unix>,v1=HMAC-SHA256(secret, "<t>.<raw body>")', () => {
    const h = sign([secret]);
    const expected = createHmac('sha256', secret).update(`${now}.${body}`).digest('hex');
    expect(h['X-Svc-Signature-V2']).toBe(`t=${now},v1=${expected}`);
    expect(h['X-Svc-Signature-Timestamp']).toBe(String(now));
    expect(h['X-Svc-Signature']).toBe(createHmac('sha256', secret).update(body).digest('hex'));
    expect(h['User-Agent']).toBe('Svc-Webhook/1.0');
  });

  it('verifies the raw body within the tolerance, with any of several secrets', () => {
    const other = 'whsec_b3RoZXIgc2VjcmV0IHRoYXQgaXMgbG9uZyBlbm91Z2g=';
    const h = sign([other, secret]);
    expect(verifySignature(body, h['X-Svc-Signature-V2'], secret, { now })).toBe(now);
    expect(verifySignature(Buffer.from(body), h['X-Svc-Signature-V2'], ['whsec_unrelated', other], { now })).toBe(now);
    expect(() => verifySignature(body, h['X-Svc-Signature-V2'], 'whsec_unrelated', { now })).toThrow(/no signature matches/);
    // re-serialised bodies fail
    expect(() => verifySignature(`${body} `, h['X-Svc-Signature-V2'], secret, { now })).toThrow(WebhookSignatureError);
    expect(() => verifySignature(body, h['X-Svc-Signature-V2'], secret, { now: now + 301 })).toThrow(/tolerance/);
    expect(() => verifySignature(body, h['X-Svc-Signature-V2'], secret, { now: now - 301 })).toThrow(/tolerance/);
    expect(verifySignature(body, h['X-Svc-Signature-V2'], secret, { now: now + 300 })).toBe(now);
    expect(() => verifySignature(body, undefined, secret)).toThrow(/missing/);
    expect(() => verifySignature(body, `v1=${'0'.repeat(64)}`, secret)).toThrow(/timestamp/);
    expect(verifyLegacySignature(body, h['X-Svc-Signature'], [secret])).toBe(false); // legacy: newest secret only
    expect(verifyLegacySignature(body, h['X-Svc-Signature'], [other])).toBe(true);
    const event = constructEvent<{ id: string }>(body, new Headers({ 'x-svc-signature-v2': h['X-Svc-Signature-V2']! }), secret, { now });
    expect(event.id).toBe('evt_1');
  });

  it('keeps the newest event per transaction and never leaves a terminal status', () => {
    const ev = (id: string, created: number, status: string, ms = 0) => ({
      id,
      created,
      data: { CurrentStatus: status, Timestamp: new Date(created * 1000 + ms).toISOString() } as never,
    });
    const processing = nextState(undefined, ev('a', 10, 'Processing'))!;
    expect(nextState(processing, ev('a', 10, 'Processing'))).toBeUndefined(); // duplicate
    const completed = nextState(processing, ev('b', 11, 'Completed'))!;
    expect(completed.status).toBe('Completed');
    expect(nextState(completed, ev('a', 10, 'Processing'))).toBeUndefined(); // older
    expect(nextState(completed, ev('c', 12, 'Failed'))).toBeUndefined(); // terminal is kept
    expect(nextState(processing, ev('d', 10, 'Completed', 500))?.status).toBe('Completed'); // same second: Timestamp decides
  });
});

describe('webhook delivery policy', () => {
  it('retries on the documented schedule (merchant guide, Webhooks): 5 s, 5 min, 30 min, 2 h, 5 h, 10 h, 10 h, then dead letters', () => {
    delete process.env.WEBHOOK_RETRY_SCHEDULE;
    expect(retrySchedule()).toEqual([5, 300, 1800, 7200, 18000, 36000, 36000]);
    expect(maxAttempts()).toBe(8);
    expect(retryDelay(1)).toBe(5);
    expect(retryDelay(7)).toBe(36000);
    expect(retryDelay(8)).toBeUndefined();
  });

  it('refuses non-HTTPS and internal destinations before connecting, and internal answers at connect time', async () => {
    expect(destinationRule('http://hooks.example.com/x', false)).toEqual({ refused: 'the URL must use https' });
    for (const url of [
      'https://127.0.0.1/x',
      'https://10.0.0.8/x',
      'https://169.254.169.254/latest',
      'https://[::1]/x',
      'https://[fd00::1]/x',
    ]) {
      expect(destinationRule(url, false), url).toHaveProperty('refused');
    }
    expect(destinationRule('https://user:pw@hooks.example.com/', false)).toHaveProperty('refused');
    expect(destinationRule('https://hooks.example.com/x', false)).toMatchObject({ policy: 'public' });
    expect(destinationRule('http://127.0.0.1:4000/x', true)).toMatchObject({ policy: 'loopback' });
    expect(destinationRule('http://10.0.0.8/x', true)).toHaveProperty('refused'); // the local switch admits loopback only

    const resolver = (...addresses: string[]) =>
      ((_host: string, _o: unknown, cb: (e: null, a: { address: string; family: number }[]) => void) =>
        cb(
          null,
          addresses.map((address) => ({ address, family: address.includes(':') ? 6 : 4 })),
        )) as never;
    const lookup = (policy: 'public' | 'loopback', ...addresses: string[]) =>
      new Promise<unknown>((ok, fail) =>
        guardedLookup(policy, resolver(...addresses))('hooks.example.com', { all: true }, (e: Error | null, a: unknown) =>
          e ? fail(e) : ok(a),
        ),
      );
    await expect(lookup('public', '93.184.216.34')).resolves.toEqual([{ address: '93.184.216.34', family: 4 }]);
    await expect(lookup('public', '93.184.216.34', '10.1.2.3')).rejects.toThrow(/private, loopback/); // DNS rebinding answer
    await expect(lookup('public', '169.254.169.254')).rejects.toThrow(/private, loopback/);
    await expect(lookup('loopback', '127.0.0.1')).resolves.toBeDefined();
    await expect(lookup('loopback', '192.168.1.5')).rejects.toThrow(/non-loopback/);
  });
});

describe('webhook connections', () => {
  it('keeps every keep-alive socket of a burst open for the next burst (no reconnect per burst)', async () => {
    const server = createServer((req, res) => {
      req.resume();
      req.on('end', () => res.writeHead(200).end());
    });
    let connections = 0;
    server.on('connection', () => connections++);
    server.keepAliveTimeout = 30_000;
    await new Promise<void>((ok) => server.listen(0, '127.0.0.1', ok));
    try {
      const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/hooks`;
      const burst = () =>
        Promise.all(
          Array.from({ length: 2 * maxSocketsPerHost }, () => postWebhook(url, '{}', {}, { allowInsecure: true, timeoutMs: 5_000 })),
        );
      for (const results of [await burst(), await burst()]) expect(results.every((r) => r.statusCode === 200)).toBe(true);
      // The first burst opens the agent's sockets; the second reuses them all.
      expect(connections).toBe(maxSocketsPerHost);
    } finally {
      server.closeAllConnections();
      await new Promise((ok) => server.close(ok));
    }
  });
});
