import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { jobs } from '#functions/jobs.ts';
import { getDelivery, sweepGraceSeconds } from '#shared/store/webhooks.ts';
import { dispatch } from '#shared/webhooks/dispatcher.ts';
import { initialRound, type DeliveryMessage } from '#shared/webhooks/messages.ts';
import { queueDepths } from '#shared/webhooks/queue.ts';
import { sweepWebhooks } from '#shared/webhooks/sweep.ts';
import { newMerchant } from '../support/gateway.ts';
import { changeStatus, seedIntent } from '../support/intents.ts';
import { useQueueOps } from '../support/ops.ts';
import { eventually, startReceiver, useWebhookStack, type Reply, type Receiver } from '../support/webhooks.ts';

/**
 * The webhook safety sweep (shared/webhooks/sweep.ts) heals what the pipeline lost: no relay runs
 * in this file (every stream batch is "lost"), and the queue messages of retries are dropped on
 * purpose. The dispatcher job runs and delivers to real receivers; the sweep runs with a clock
 * moved ahead instead of waiting.
 */
const stack = useWebhookStack([jobs.webhookDispatcher]);
const receivers: Receiver[] = [];
afterAll(async () => Promise.all(receivers.map((r) => r.stop())));
afterEach(() => {
  delete process.env.WEBHOOK_RETRY_SCHEDULE;
});

async function committedEvent(reply: () => Reply) {
  const hook = await startReceiver(reply);
  receivers.push(hook);
  const m = await newMerchant({ name: 'Sweep', webhookUrl: hook.url, allowInsecureWebhooks: true });
  const intent = await seedIntent(m.merchantId, 'test');
  const change = await changeStatus(intent.paymentIntentId, () => ({ to: 'Completed' }));
  if (!change.changed) throw new Error('no change');
  const event = change.transition.event;
  const message: DeliveryMessage = {
    v: 1,
    eventId: event.id,
    paymentIntentId: intent.paymentIntentId,
    merchantId: m.merchantId,
    mode: 'test',
    callbackUrl: null,
    event,
    eventCreatedAt: event.data.Timestamp,
    roundId: initialRound,
  };
  return { hook, message };
}
const later = (seconds: number) => new Date(Date.now() + seconds * 1000);
const queueIsEmpty = async () => {
  const d = (await queueDepths()).queue;
  return d.visible + d.inFlight + d.delayed === 0;
};
const dropped = { deadLetter: async () => undefined, requeue: async () => undefined }; // the retry's message is lost

describe('webhook safety sweep', () => {
  it('delivers an event the relay never saw, with its own id, then lets go of it', async () => {
    const { hook, message } = await committedEvent(() => 200);
    expect(await sweepWebhooks(new Date())).toMatchObject({ resent: 0 }); // not overdue yet: the pipeline has its chance
    expect(await queueIsEmpty()).toBe(true);
    const swept = await sweepWebhooks(later(sweepGraceSeconds() + 1));
    expect(swept.resent).toBeGreaterThanOrEqual(1);
    const [d] = await hook.waitFor((ds) => ds.length >= 1);
    expect(d!.event.id).toBe(message.eventId);
    await eventually(
      () => getDelivery(message.paymentIntentId!, message.eventId),
      (r) => r?.state === 'delivered',
    );
    const again = await sweepWebhooks(later(3 * sweepGraceSeconds() + 2));
    expect(again).toMatchObject({ resent: 0, retries: 0 });
    expect(again.settled).toBeGreaterThanOrEqual(1);
    expect(hook.deliveries).toHaveLength(1);
  });

  it('sends a retry whose queue message was lost once it is overdue', async () => {
    let status = 500;
    const { hook, message } = await committedEvent(() => status);
    expect(await dispatch(message, dropped)).toMatchObject({ kind: 'retry', delaySeconds: 5, parked: false });
    const waiting = await getDelivery(message.paymentIntentId!, message.eventId);
    expect(waiting).toMatchObject({ state: 'retrying' });
    // Not the message (the envelope): the outbox item's createdAt, from which the sweep rebuilds it.
    expect(waiting!.waiting).toEqual({ sweepAt: expect.any(String), eventCreatedAt: message.eventCreatedAt });
    status = 200;
    expect((await sweepWebhooks(later(5))).retries).toBe(0); // its delayed message may still come
    expect((await sweepWebhooks(later(5 + sweepGraceSeconds() + 1))).retries).toBe(1);
    await hook.waitFor((ds) => ds.length >= 2);
    expect(hook.deliveries.map((d) => d.event.id)).toEqual([message.eventId, message.eventId]);
    const done = await eventually(
      () => getDelivery(message.paymentIntentId!, message.eventId),
      (r) => r?.state === 'delivered',
    );
    expect(done!.waiting).toBeNull();
  });

  it('parks a retry longer than 15 minutes in the table (nothing on the queue) and sends it when due', async () => {
    process.env.WEBHOOK_RETRY_SCHEDULE = '3600';
    let status = 503;
    const { hook, message } = await committedEvent(() => status);
    const result = await dispatch(message, {
      deadLetter: async () => undefined,
      requeue: async () => {
        throw new Error('a parked retry must not be queued');
      },
    });
    expect(result).toMatchObject({ kind: 'retry', delaySeconds: 3600, parked: true });
    expect(await queueIsEmpty()).toBe(true);
    status = 200;
    expect((await sweepWebhooks(later(1800))).retries).toBe(0);
    expect(await queueIsEmpty()).toBe(true);
    expect((await sweepWebhooks(later(3601))).retries).toBe(1);
    await hook.waitFor((ds) => ds.length >= 2);
    await eventually(
      () => getDelivery(message.paymentIntentId!, message.eventId),
      (r) => r?.state === 'delivered',
    );
  });
});

/** The operator CLI in its own process, pointed at this file's table and queues. */
const ops = useQueueOps(stack);

describe('ops webhooks replay', () => {
  it('re-relays a window of outbox events, idempotent by event id; a re-enabled endpoint gets its disabled events', async () => {
    const since = new Date(Date.now() - 1000).toISOString();
    let status = 410;
    const { hook, message } = await committedEvent(() => status);
    expect(await dispatch(message, dropped)).toMatchObject({ kind: 'endpoint_disabled' }); // 410: disabled at once
    const args = ['--since', since, '--merchant', message.merchantId, '--mode', 'test'];
    status = 200;
    expect(await ops('merchant', 'webhook', '--merchant', message.merchantId, '--mode', 'test', '--enable')).toMatchObject({
      enabled: true,
      url: hook.url,
    });
    expect(await ops('webhooks', 'replay', ...args)).toMatchObject({ scanned: 1, sent: 1, alreadyDelivered: 0, failed: 0 });
    await hook.waitFor((ds) => ds.length >= 2);
    expect(hook.deliveries.map((d) => d.event.id)).toEqual([message.eventId, message.eventId]);
    await eventually(
      () => getDelivery(message.paymentIntentId!, message.eventId),
      (r) => r?.state === 'delivered',
    );
    expect(await ops('webhooks', 'replay', ...args)).toMatchObject({ scanned: 1, sent: 0, alreadyDelivered: 1 });
    expect(await ops('webhooks', 'replay', '--since', since, '--until', since, '--merchant', message.merchantId)).toMatchObject({
      scanned: 0,
    });
  }, 60_000);
});
