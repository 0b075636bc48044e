import { randomBytes } from 'node:crypto';
import { afterAll, describe, expect, it } from 'vitest';
import { jobs } from '#functions/jobs.ts';
import { routeList } from '#functions/routes.ts';
import { SettlementStatus } from '#shared/domain/settlement.ts';
import { Gateway } from '../../sdk/node/src/client.ts';
import { forward } from '../../sdk/node/src/listen.ts';
import { constructEvent } from '../../sdk/node/src/webhooks.ts';
import { freePort } from '../support/global-setup.ts';
import { listen, localOperator, opsOperator, trigger, type Operator } from '../../scripts/listen.ts';
import { newMerchant, useGateway } from '../support/gateway.ts';
import { scriptBundle, useOps } from '../support/ops.ts';
import { eventually, startReceiver, useWebhookStack, type Delivery } from '../support/webhooks.ts';

// The full local pipeline: the relay fills the events feed, the due sweeper settles sandbox outcomes.
const stack = useWebhookStack([jobs.webhookRelay, jobs.dueSweeper]);
const gw = useGateway(routeList);
const ops = useOps(() => stack.tableName);

/** The operator through this run's ops tool (the trigger's own `localOperator` finds a stack by its PORT). */
const operator = opsOperator(async (...args) => {
  const r = await ops(...args, '--json');
  if ('failed' in r) throw new Error(r.json?.error ?? `${r.stdout}${r.stderr}`);
  return r.json;
});

const status = (d: Delivery) => String(d.event.data.CurrentStatusName ?? d.event.data.CurrentStatus);

describe('npm run listen: trigger and forward', () => {
  const stops: (() => Promise<unknown>)[] = [];
  afterAll(async () => {
    for (const stop of stops) await stop();
  });

  it('every trigger scenario ends as it says, and listen forwards each event signed like a real delivery', async () => {
    const m = await newMerchant({ name: 'Listening Merchant' });
    const secret = `whsec_${randomBytes(32).toString('base64')}`;
    const receiver = await startReceiver();
    stops.push(() => receiver.stop());
    const lines: string[] = [];
    const controller = new AbortController();
    const listening = listen(
      {
        apiKey: m.test.apiKey,
        secret,
        forwardTo: receiver.url,
        baseUrl: gw.baseUrl,
        since: new Date(Date.now() - 5_000).toISOString(),
        pollMs: 300,
        print: (l) => lines.push(l),
      },
      controller.signal,
    );
    stops.push(async () => {
      controller.abort();
      await listening;
    });
    const keys = { apiKey: m.test.apiKey, secretKey: m.test.secretKey, baseUrl: gw.baseUrl, operator, print: (l: string) => lines.push(l) };
    const results: Record<string, Record<string, unknown>> = {};
    for (const scenario of [
      'checkout.completed',
      'checkout.failed',
      'deposit.completed',
      'withdrawal.completed',
      'withdrawal.failed',
      'refund.completed',
      'settlement.completed',
    ] as const) {
      try {
        results[scenario] = await trigger(scenario, keys);
      } catch (e: any) {
        throw new Error(`${scenario}: ${JSON.stringify(e.problem)}`);
      }
    }

    const final = (d: Delivery[], type: string, id: string, name: string) =>
      d.some(
        (x) =>
          x.event.type === type &&
          [x.event.data.TransactionId, x.event.data.RefundId, x.event.data.SettlementId].includes(id) &&
          status(x) === name,
      );
    const intent = (s: string) => String(results[s]!.paymentIntentId);
    await receiver.waitFor(
      (d) =>
        final(d, 'TransactionStatusChanged', intent('checkout.completed'), 'Completed') &&
        final(d, 'TransactionStatusChanged', intent('checkout.failed'), 'Failed') &&
        final(d, 'TransactionStatusChanged', intent('deposit.completed'), 'Completed') &&
        final(d, 'TransactionStatusChanged', intent('withdrawal.completed'), 'Completed') &&
        final(d, 'TransactionStatusChanged', intent('withdrawal.failed'), 'Failed') &&
        final(d, 'RefundStatusChanged', String(results['refund.completed']!.id), 'Completed') &&
        final(d, 'SettlementStatusChanged', String(results['settlement.completed']!.id), 'Completed'),
      90_000,
    );

    // Each forwarded request verifies with the SDK as a real delivery does, once per event.
    for (const d of receiver.deliveries) {
      const event = constructEvent(d.body, d.headers as Record<string, string>, [secret]);
      expect(event.id).toBe(d.headers['webhook-id']);
      expect(d.headers['x-svc-event-type']).toBe(event.type);
    }
    const ids = receiver.deliveries.map((d) => d.event.id);
    expect(new Set(ids).size).toBe(ids.length);
    // listen prints its line once the receiver's answer is back, a moment after the receiver saw the request.
    const printed = await eventually(
      async () => lines.filter((l) => / → 200 /.test(l)).length,
      (n) => n >= ids.length,
      10_000,
    );
    expect(printed).toBe(ids.length);
  }, 180_000);

  it('refuses live keys, unknown events and a key the gateway does not know before forwarding anything', async () => {
    const m = await newMerchant({ name: 'Live Keys' });
    const { execFile } = await import('node:child_process');
    const script = await scriptBundle('scripts/listen.ts'); // `npm run listen`'s script, bundled once (test/support/script-bundles.ts)
    const run = (...args: string[]) =>
      new Promise<{ code: number | null; out: string }>((done) => {
        execFile(process.execPath, [script, ...args], (error, stdout, stderr) =>
          done({ code: error ? (error.code as number) : 0, out: stdout + stderr }),
        );
      });
    /** listen with this key, forwarding to a port nothing listens on (nothing may get that far). */
    const listenWith = (apiKey: string) =>
      run('--api-key', apiKey, '--secret', 'whsec_x', '--forward-to', 'http://127.0.0.1:9/x', '--base-url', gw.baseUrl);
    const live = await listenWith(m.live.apiKey);
    expect(live.code).not.toBe(0);
    expect(live.out).toMatch(/test-mode API keys/);
    const unknown = await run(
      'trigger',
      'payment.teleported',
      '--api-key',
      m.test.apiKey,
      '--secret-key',
      m.test.secretKey,
      '--base-url',
      gw.baseUrl,
    );
    expect(unknown.code).not.toBe(0);
    expect(unknown.out).toMatch(/unknown event or scenario payment\.teleported; one of TransactionStatusChanged/);
    // A test key the gateway does not know: refused at once with the reason, never "Ready".
    const unknownKey = await listenWith(`pk_test_${'0'.repeat(40)}`);
    expect(unknownKey.code).not.toBe(0);
    expect(unknownKey.out).toMatch(/refused the API key \(401/);
    expect(unknownKey.out).not.toMatch(/Ready/);
    // A gateway that does not answer: the cause, not `TypeError: fetch failed`.
    const closed = `http://127.0.0.1:${await freePort()}`;
    const down = await run(
      'trigger',
      'checkout.completed',
      '--api-key',
      m.test.apiKey,
      '--secret-key',
      m.test.secretKey,
      '--base-url',
      closed,
    );
    expect(down.code).not.toBe(0);
    expect(down.out.trim()).toBe(
      `listen trigger checkout.completed: cannot reach the gateway at ${closed} (connect ECONNREFUSED ${closed.slice(7)}): ` +
        'is it running?',
    );
  }, 150_000); // four CLI processes, each loading tsx

  it('a settlement trigger the operator cannot approve holds nothing: refused before any money moves, or cancelled', async () => {
    const m = await newMerchant({ name: 'Unapproved Settlements' });
    const gateway = new Gateway({ apiKey: m.test.apiKey, secretKey: m.test.secretKey, baseUrl: gw.baseUrl });
    const keys = { apiKey: m.test.apiKey, secretKey: m.test.secretKey, baseUrl: gw.baseUrl, print: () => undefined };

    // The ops tool reads another stack (nothing on this PORT's DynamoDB port): refused with the tool's reason, nothing created.
    const elsewhere = `http://127.0.0.1:${(await freePort()) - 5000}`;
    await expect(trigger('settlement.completed', { ...keys, operator: localOperator(elsewhere) })).rejects.toThrow(
      /the ops tool cannot approve the settlement \(The local stack is not running on port \d+ .*\); nothing was created/,
    );
    expect((await gateway.settlements.list()).items).toEqual([]);
    expect(await gateway.account.balance()).toMatchObject({ availableBalance: 0, pendingBalance: 0 });

    // The approval fails after the settlement was created: the operator cancels it, and its PKR 500 is released.
    const failing: Operator = {
      ...operator,
      approve: async () => {
        throw new Error('the approval timed out');
      },
    };
    const error: Error = await trigger('settlement.completed', { ...keys, operator: failing }).then(
      () => new Error('the trigger succeeded'),
      (e: Error) => e,
    );
    const id = /could not approve settlement (\S+) \(the approval timed out\); it was cancelled and its PKR 500 released/.exec(
      error.message,
    )?.[1];
    expect(id, error.message).toBeDefined();
    expect((await gateway.settlements.retrieve(id!)).status).toBe(SettlementStatus.Cancelled);
    expect((await gateway.account.balance()).pendingBalance).toBe(0);
  }, 120_000);

  it('a receiver that is not running shows as its cause, not as the TypeError fetch threw', async () => {
    const item = { eventId: 'evt_down', type: 'TransactionStatusChanged', created: 0, deliveryState: 'delivered', event: {} };
    expect((await forward(`http://127.0.0.1:${await freePort()}/webhooks`, 'whsec_x', item)).status).toBe('ECONNREFUSED');
  });
});
