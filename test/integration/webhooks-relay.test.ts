import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { jobs } from '#functions/jobs.ts';
import { getIntent } from '#shared/store/intents.ts';
import { queueDepths } from '#shared/webhooks/queue.ts';
import { newMerchant } from '../support/gateway.ts';
import { changeStatus, seedIntent } from '../support/intents.ts';
import { scriptBundle } from '../support/ops.ts';
import { eventually, startReceiver, useWebhookStack, type Receiver } from '../support/webhooks.ts';

/**
 * "Nothing is lost when the relay dies mid-way": the outbox relay runs in a child process (the
 * local stream runner with checkpoints on disk, as `npm start` runs it) and is SIGKILLed at the
 * injected fault (test/fixtures/webhooks/faulty-relay.ts); a new process resumes from the
 * checkpoint. The dispatcher runs here and delivers to a real receiver.
 */
useWebhookStack([jobs.webhookDispatcher]);
const root = resolve(import.meta.dirname, '..', '..');
const checkpointDir = mkdtempSync(join(tmpdir(), 'relay-checkpoints-'));
const checkpointFile = join(checkpointDir, `${jobs.webhookRelay.id}.json`);
const children: ChildProcess[] = [];
afterEach(async () => {
  for (const child of children.splice(0)) {
    if (child.exitCode === null && child.signalCode === null) {
      const exited = new Promise((ok) => child.once('exit', ok));
      child.kill('SIGTERM');
      await exited;
    }
  }
});
afterAll(() => rmSync(checkpointDir, { recursive: true, force: true }));

/** The fixtures' bundles (test/support/script-bundles.ts): what `node --import tsx <file>` runs, for a sixth of the CPU. */
const scripts = new Map<string, string>();
beforeAll(async () => {
  scripts.set(relayProcess, await scriptBundle(relayProcess, { handlers: ['test/fixtures/webhooks/faulty-relay.ts'] }));
  scripts.set(commitAndDie, await scriptBundle(commitAndDie));
});
const relayProcess = 'test/fixtures/webhooks/relay-process.ts';
const commitAndDie = 'test/fixtures/webhooks/commit-and-die.ts';

function spawnTs(file: string, env: Record<string, string>) {
  const child = spawn(process.execPath, [scripts.get(file)!], {
    cwd: root,
    env: { ...process.env, ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  children.push(child);
  let output = '';
  child.stdout!.on('data', (d: Buffer) => (output += d.toString()));
  child.stderr!.on('data', (d: Buffer) => (output += d.toString()));
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((ok) =>
    child.once('exit', (code, signal) => ok({ code, signal })),
  );
  return { child, exited, output: () => output };
}

const startRelay = (fault = '') => spawnTs(relayProcess, { RELAY_FAULT: fault, CHECKPOINT_DIR: checkpointDir });
const checkpoint = (): string | undefined => {
  if (!existsSync(checkpointFile)) return undefined;
  const shards = Object.values(
    (JSON.parse(readFileSync(checkpointFile, 'utf8')) as { shards: Record<string, { sequenceNumber?: string }> }).shards,
  );
  return shards
    .map((s) => s.sequenceNumber ?? '')
    .sort()
    .at(-1);
};
const queueEmpty = async () => {
  const d = await queueDepths();
  return d.queue.visible + d.queue.inFlight + d.queue.delayed === 0;
};

async function merchantAndReceiver(): Promise<{ hook: Receiver; merchantId: string }> {
  const hook = await startReceiver();
  const m = await newMerchant({ name: 'Relay Fault', webhookUrl: hook.url, allowInsecureWebhooks: true });
  return { hook, merchantId: m.merchantId };
}

describe('outbox relay crashes', () => {
  it('a relay killed after reading an event, before publishing it, publishes it after a restart', async () => {
    const { hook, merchantId } = await merchantAndReceiver();
    try {
      const crashing = startRelay('before-publish');
      const intent = await seedIntent(merchantId, 'test');
      const change = await changeStatus(intent.paymentIntentId, () => ({ to: 'Completed' }));
      expect((await crashing.exited).signal).toBe('SIGKILL');
      expect(await queueEmpty()).toBe(true); // nothing was published…
      expect(hook.deliveries).toHaveLength(0);

      const restarted = startRelay();
      const [d] = await hook.waitFor((ds) => ds.length >= 1); // …and nothing was lost
      expect(d!.event.id).toBe(change.changed && change.transition.event.id);
      expect(d!.event.data).toMatchObject({ TransactionId: intent.paymentIntentId, CurrentStatus: 'Completed' });
      expect(restarted.child.exitCode).toBeNull();
    } finally {
      await hook.stop();
    }
  }, 60_000);

  it('a relay killed after publishing, before acknowledging, publishes again; the receiver gets the event once', async () => {
    const { hook, merchantId } = await merchantAndReceiver();
    try {
      const crashing = startRelay('after-publish');
      const intent = await seedIntent(merchantId, 'test');
      const change = await changeStatus(intent.paymentIntentId, () => ({ to: 'Failed', reason: 'card_declined' }));
      expect((await crashing.exited).signal).toBe('SIGKILL');
      const [d] = await hook.waitFor((ds) => ds.length >= 1);
      expect(d!.event.id).toBe(change.changed && change.transition.event.id);
      const before = checkpoint();

      // The restarted relay reads the unacknowledged record again and publishes it a second time;
      // the dispatcher sees that round already delivered and acknowledges the copy silently.
      startRelay();
      await eventually(
        async () => checkpoint(),
        (after) => after !== undefined && (before === undefined || after > before),
      );
      await eventually(queueEmpty, (empty) => empty);
      expect(hook.deliveries.map((x) => x.event.id)).toEqual([d!.event.id]);
    } finally {
      await hook.stop();
    }
  }, 60_000);

  it('a writer killed the instant its commit returned still has its event delivered', async () => {
    const { hook, merchantId } = await merchantAndReceiver();
    try {
      startRelay();
      const intent = await seedIntent(merchantId, 'test');
      const writer = spawnTs(commitAndDie, { INTENT_ID: intent.paymentIntentId });
      expect((await writer.exited).signal).toBe('SIGKILL');
      const eventId = /committed (evt_\w+)/.exec(writer.output())?.[1];
      expect(eventId).toBeDefined();
      expect((await getIntent(intent.paymentIntentId))?.status).toBe('Completed');
      const [d] = await hook.waitFor((ds) => ds.length >= 1);
      expect(d!.event.id).toBe(eventId);
    } finally {
      await hook.stop();
    }
  }, 60_000);
});

describe('outbox relay reads every value the stream carries', () => {
  // DynamoDB Local's stream writes an empty map as `{}` (no type key); AWS writes `{ "M": {} }`.
  // The local runner must hand the relay what Lambda would, or the event is logged unreadable and skipped.
  it('an event with an empty map (CustomerRef {}) and an empty string (MetadataJson "") is delivered', async () => {
    const { hook, merchantId } = await merchantAndReceiver();
    try {
      const relay = startRelay();
      const intent = await seedIntent(merchantId, 'test', { customerRef: {}, metadataJson: '' });
      const change = await changeStatus(intent.paymentIntentId, () => ({ to: 'Completed' }));
      const [d] = await hook.waitFor((ds) => ds.length >= 1, 20_000);
      expect(d!.event.id).toBe(change.changed && change.transition.event.id);
      expect(d!.event.data).toMatchObject({ TransactionId: intent.paymentIntentId, CustomerRef: {}, MetadataJson: '' });
      expect(relay.output()).not.toContain('unreadable');
    } finally {
      await hook.stop();
    }
  }, 60_000);
});
