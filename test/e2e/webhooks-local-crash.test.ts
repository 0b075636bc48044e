import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { getDelivery } from '#shared/store/webhooks.ts';
import { freePort } from '../support/global-setup.ts';
import { changeStatus, seedIntent } from '../support/intents.ts';
import { scriptBundle } from '../support/ops.ts';
import { eventually, startReceiver } from '../support/webhooks.ts';

/**
 * "A crash anywhere loses nothing" for `npm start` too: 10 events wait for their 5 s retry when
 * the whole process group (server, relay, queue, dispatcher, DynamoDB Local) is killed with
 * SIGKILL; after a restart every one is delivered (the local queue lived in memory, the table did
 * not: the restart sends again what the table says is waiting; shared/webhooks/sweep.ts).
 */
const root = resolve(import.meta.dirname, '..', '..');
const dataDir = mkdtempSync(join(tmpdir(), 'crash-'));
afterAll(() => rmSync(dataDir, { recursive: true, force: true }));

async function start(ports: { port: number; dynamoPort: number; sqsPort: number; webhookPort: number }) {
  // `npm start`'s script from its bundle (test/support/script-bundles.ts: tsx itself is test/e2e/local-stack.test.ts's).
  const script = await scriptBundle('scripts/start.ts', { handlers: 'routes and jobs' });
  const child = spawn(process.execPath, [script], {
    cwd: root,
    detached: true, // its own process group, killed as a whole
    env: {
      ...process.env,
      PORT: String(ports.port),
      DATA_DIR: dataDir,
      DYNAMODB_PORT: String(ports.dynamoPort),
      SQS_PORT: String(ports.sqsPort),
      WEBHOOK_PORT: String(ports.webhookPort), // the demo merchant's endpoint: a port of its own, not PORT+1
      IN_MEMORY: '',
      TABLE_NAME: '',
      DYNAMODB_ENDPOINT: '',
      SECRETS_MASTER_KEY: '',
      PUBLIC_BASE_URL: '',
      // Every retry 5 s after the last: however many failed before the kill on a loaded machine, the
      // one waiting in the in-memory queue is due before the restart (the default's next step is 5 min).
      WEBHOOK_RETRY_SCHEDULE: '5,5,5,5,5,5,5',
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  child.stdout!.on('data', (d: Buffer) => (out += d.toString()));
  child.stderr!.on('data', (d: Buffer) => (out += d.toString()));
  const deadline = Date.now() + 150_000; // a liveness bound, not a timing goal: generous for a loaded CI machine
  while (!/test API key/.test(out)) {
    if (Date.now() > deadline || child.exitCode !== null) throw new Error(`npm start did not come up:\n${out}`);
    await new Promise((r) => setTimeout(r, 200));
  }
  return { child, output: () => out };
}
const killGroup = async (child: ChildProcess, signal: NodeJS.Signals) => {
  const exited = new Promise((ok) => child.once('exit', ok));
  process.kill(-child.pid!, signal);
  await exited;
};

describe('npm start killed with SIGKILL', () => {
  it('delivers every event that waited for a retry after a restart', async () => {
    const ports = { port: await freePort(), dynamoPort: await freePort(), sqsPort: await freePort(), webhookPort: await freePort() };
    let status = 500;
    // The demo merchant's endpoint, on a port chosen free (PORT+1 was once taken by another file's process: EADDRINUSE).
    const hook = await startReceiver(() => status, ports.webhookPort);
    const first = await start(ports);
    let current = first;
    try {
      // This process commits the status changes into the stack's own table, as its API would.
      process.env.DYNAMODB_ENDPOINT = `http://127.0.0.1:${ports.dynamoPort}`;
      process.env.TABLE_NAME = 'payment-gateway';
      const { merchantId } = JSON.parse(readFileSync(join(dataDir, 'demo-merchant.json'), 'utf8')) as { merchantId: string };
      const events: { paymentIntentId: string; eventId: string }[] = [];
      for (let i = 0; i < 10; i++) {
        const intent = await seedIntent(merchantId, 'test');
        const change = await changeStatus(intent.paymentIntentId, () => ({ to: 'Completed' }));
        if (change.changed) events.push({ paymentIntentId: intent.paymentIntentId, eventId: change.transition.event.id });
      }
      expect(events).toHaveLength(10);
      await hook.waitFor((ds) => new Set(ds.map((d) => d.event.id)).size === 10); // every first attempt failed…
      await eventually(
        () => Promise.all(events.map((e) => getDelivery(e.paymentIntentId, e.eventId))),
        (ds) => ds.every((d) => d?.state === 'retrying'),
      );
      await killGroup(first.child, 'SIGKILL'); // …and the 5 s retries were waiting on the in-memory queue
      await new Promise((r) => setTimeout(r, 6_000)); // their time has passed while nothing ran
      status = 200;
      const before = hook.deliveries.length;
      current = await start(ports);
      await hook.waitFor((ds) => new Set(ds.slice(before).map((d) => d.event.id)).size === 10, 150_000);
      expect(new Set(hook.deliveries.slice(before).map((d) => d.event.id))).toEqual(new Set(events.map((e) => e.eventId)));
      await eventually(
        () => Promise.all(events.map((e) => getDelivery(e.paymentIntentId, e.eventId))),
        (ds) => ds.every((d) => d?.state === 'delivered'),
      );
    } finally {
      if (current.child.exitCode === null) await killGroup(current.child, 'SIGINT').catch(() => undefined);
      await hook.stop();
    }
  }, 480_000);
});
