import { afterAll, describe, expect, it } from 'vitest';
import { jobs } from '#functions/jobs.ts';
import { sweepGraceSeconds } from '#shared/store/webhooks.ts';
import { sweepWebhooks } from '#shared/webhooks/sweep.ts';
import { newMerchant } from '../support/gateway.ts';
import { changeStatus, seedIntent } from '../support/intents.ts';
import { startReceiver, useWebhookStack, type Receiver } from '../support/webhooks.ts';

/**
 * A poison stream record (its relay fails on every try; test/fixtures/webhooks/poison-relay.ts)
 * is given up after the job's retryAttempts, so the events behind it in the shard flow; its own
 * event still reaches the endpoint through the webhook sweep, from the table.
 */
// Batches of one record: everything behind the poison record waits for it to be given up (with larger
// batches the same holds once more than a batch of records is behind it).
useWebhookStack([
  { ...jobs.webhookRelay, handler: 'test/fixtures/webhooks/poison-relay.ts', trigger: { ...jobs.webhookRelay.trigger, batchSize: 1 } },
  jobs.webhookDispatcher,
]);
const receivers: Receiver[] = [];
afterAll(async () => {
  delete process.env.POISON_INTENT;
  await Promise.all(receivers.map((r) => r.stop()));
});

describe('poison stream record', () => {
  it('does not block the events behind it, and its own event is delivered by the sweep', async () => {
    const hook = await startReceiver(() => 200);
    receivers.push(hook);
    const m = await newMerchant({ name: 'Poison', webhookUrl: hook.url, allowInsecureWebhooks: true });
    const poisoned = await seedIntent(m.merchantId, 'test');
    const healthy = await seedIntent(m.merchantId, 'test');
    process.env.POISON_INTENT = poisoned.paymentIntentId;
    const first = await changeStatus(poisoned.paymentIntentId, () => ({ to: 'Completed' }));
    const second = await changeStatus(healthy.paymentIntentId, () => ({ to: 'Completed' }));
    if (!first.changed || !second.changed) throw new Error('no change');

    const [d] = await hook.waitFor((ds) => ds.length >= 1, 40_000); // behind the poison record in the stream
    expect(d!.event.id).toBe(second.transition.event.id);
    expect(hook.deliveries.map((x) => x.event.id)).not.toContain(first.transition.event.id);

    await sweepWebhooks(new Date(Date.now() + (sweepGraceSeconds() + 1) * 1000));
    await hook.waitFor((ds) => ds.some((x) => x.event.id === first.transition.event.id));
  }, 60_000);
});
