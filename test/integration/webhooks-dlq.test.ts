import { ChangeMessageVisibilityCommand, ReceiveMessageCommand, SendMessageCommand, SQSClient } from '@aws-sdk/client-sqs';
import { describe, expect, it } from 'vitest';
import { jobs } from '#functions/jobs.ts';
import { routeList } from '#functions/routes.ts';
import { queueDepths } from '#shared/webhooks/queue.ts';
import { verifySignature } from '../../sdk/node/src/webhooks.ts';
import { startLocalQueues } from '../../scripts/local/queues.ts';
import { freePort } from '../support/global-setup.ts';
import { call, newMerchant, useGateway } from '../support/gateway.ts';
import { changeStatus, seedIntent } from '../support/intents.ts';
import { useQueueOps } from '../support/ops.ts';
import { eventually, startReceiver, useWebhookStack } from '../support/webhooks.ts';

/**
 * The end of the retry schedule: after the 8th failed attempt the message is in the dead-letter
 * queue, and `npm run ops -- webhooks redrive` (an SQS message move task) brings it back for a new
 * round. Retries are immediate here (WEBHOOK_RETRY_SCHEDULE=0,…); the schedule itself is docs/merchant-guide.md, Webhooks.
 */
process.env.WEBHOOK_RETRY_SCHEDULE = '0,0,0,0,0,0,0';
const stack = useWebhookStack([jobs.webhookRelay, jobs.webhookDispatcher]);
const gw = useGateway(routeList);
/** The operator CLI in its own process, pointed at this file's table and queues. */
const ops = useQueueOps(stack);

describe('webhook dead letters', () => {
  it('dead-letters after 8 failed attempts, and an operator redrive delivers it with the same event id', async () => {
    let healthy = false;
    const hook = await startReceiver(() => (healthy ? 200 : 503));
    try {
      const m = await newMerchant({ name: 'Flaky Receiver', webhookUrl: hook.url, allowInsecureWebhooks: true });
      const intent = await seedIntent(m.merchantId, 'test');
      await changeStatus(intent.paymentIntentId, () => ({ to: 'Failed', reason: 'card_declined' }));

      const events = await eventually(
        () => call(gw.baseUrl, 'GET', `/Gateway/v1/Transaction/${intent.paymentIntentId}/events`, { key: m.test.apiKey }),
        (r) => r.json?.items?.[0]?.delivery?.state === 'dead_lettered',
      );
      const eventId: string = events.json.items[0].eventId;
      expect(events.json.items[0].delivery).toMatchObject({ attempts: 8, lastStatusCode: 503, nextAttemptAt: null });
      expect(hook.deliveries).toHaveLength(8);
      expect(new Set(hook.deliveries.map((d) => d.headers['x-svc-event-id']))).toEqual(new Set([eventId]));
      expect(new Set(hook.deliveries.map((d) => d.headers['x-svc-delivery-id'])).size).toBe(8);
      // The main queue drains too: a duplicate message (the relay delivers to the queue at least once) is
      // received, found settled and deleted, so it may still be in flight when the dead letter arrives.
      const depths = await eventually(queueDepths, (d) => d.deadLetters.visible === 1 && d.queue.visible + d.queue.inFlight === 0).catch(
        () => queueDepths(),
      );
      expect(depths.deadLetters.visible).toBe(1);
      expect(depths.queue.visible + depths.queue.inFlight).toBe(0);

      healthy = true;
      const redrive = await ops('webhooks', 'redrive');
      expect(redrive).toMatchObject({ status: 'COMPLETED', moved: 1 });
      await hook.waitFor((ds) => ds.length >= 9);
      const last = hook.deliveries[8]!;
      expect(last.event.id).toBe(eventId);
      verifySignature(last.body, String(last.headers['x-svc-signature-v2']), m.test.webhookSecret!);

      const log = await eventually(
        () => call(gw.baseUrl, 'GET', `/Gateway/v1/Events/${eventId}/attempts`, { key: m.test.apiKey }),
        (r) => r.json?.delivery?.state === 'delivered' && r.json.items.some((a: any) => a.outcome === 'delivered'),
      );
      expect(log.json.items.map((a: any) => [a.attempt, a.roundAttempt, a.trigger, a.statusCode])).toEqual([
        ...Array.from({ length: 8 }, (_, i) => [i + 1, i + 1, 'automatic', 503]),
        [9, 1, 'redrive', 200],
      ]);
      expect((await ops('webhooks', 'status')).deadLetters.visible).toBe(0);
      expect(await ops('webhooks', 'redrive')).toMatchObject({ status: 'NOTHING_TO_MOVE', moved: 0 });
    } finally {
      await hook.stop();
    }
  }, 60_000);

  it('rotates a webhook secret from the operator CLI', async () => {
    const hook = await startReceiver();
    try {
      const m = await newMerchant({ name: 'Rotating', webhookUrl: hook.url, allowInsecureWebhooks: true });
      const rotated = await ops('merchant', 'webhook-secret', 'rotate', '--merchant', m.merchantId, '--mode', 'test', '--overlap', '24h');
      expect(rotated).toMatchObject({
        merchantId: m.merchantId,
        mode: 'test',
        webhookSecret: expect.stringMatching(/^whsec_/),
        previousSecrets: [{ expiresAt: expect.any(String) }],
      });
      const intent = await seedIntent(m.merchantId, 'test');
      await changeStatus(intent.paymentIntentId, () => ({ to: 'Completed' }));
      const [d] = await hook.waitFor((ds) => ds.length >= 1);
      for (const secret of [m.test.webhookSecret!, rotated.webhookSecret])
        verifySignature(d!.body, String(d!.headers['x-svc-signature-v2']), secret);
    } finally {
      await hook.stop();
    }
  }, 30_000);

  it('local SQS counts a visibility change as a receive, which is why its redrive policy doubles maxReceiveCount', async () => {
    const queues = await startLocalQueues(await freePort());
    const client = new SQSClient({
      endpoint: queues.endpoint,
      region: 'local',
      credentials: { accessKeyId: 'local', secretAccessKey: 'local' },
    });
    try {
      await client.send(new SendMessageCommand({ QueueUrl: queues.queueUrl, MessageBody: 'probe' }));
      const receive = () =>
        client.send(new ReceiveMessageCommand({ QueueUrl: queues.queueUrl, WaitTimeSeconds: 0, AttributeNames: ['All'] }));
      const first = await eventually(receive, (r) => (r.Messages?.length ?? 0) === 1);
      expect(first.Messages![0]!.Attributes?.ApproximateReceiveCount).toBe('1');
      await client.send(
        new ChangeMessageVisibilityCommand({
          QueueUrl: queues.queueUrl,
          ReceiptHandle: first.Messages![0]!.ReceiptHandle!,
          VisibilityTimeout: 0,
        }),
      );
      const second = await eventually(receive, (r) => (r.Messages?.length ?? 0) === 1);
      expect(second.Messages![0]!.Attributes?.ApproximateReceiveCount).toBe('3'); // AWS would say 2
    } finally {
      client.destroy();
      await queues.stop();
      process.env.AWS_ENDPOINT_URL_SQS = stack.queues.endpoint;
    }
  });
});
