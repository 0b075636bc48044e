import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import type { TestProject } from 'vitest/node';
import { ensureTable, startDynamoLocal, type RunningDynamo } from '../../scripts/local/dynamo.ts';
import { bundleOps } from './script-bundles.ts';

/**
 * The database projects' global setup (vitest.config.ts: `integration` and `e2e`; never `unit`):
 * ONE DynamoDB Local (in memory) on a free port for the whole run, shared by every project that
 * asks for it, and one table per worker (`payment-gateway-test-w<VITEST_POOL_ID>`, see ./env.ts),
 * so files running at the same time never see each other's items. Those tables have no stream
 * (./env.ts says why).
 */
export async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject).listen(0, '127.0.0.1', () => {
      const { port } = server.address() as { port: number };
      server.close(() => resolve(port));
    });
  });
}

declare module 'vitest' {
  export interface ProvidedContext {
    dynamoEndpoint: string;
    /** The table of the worker running the file (./env.ts sets it per worker). */
    tableName: string;
    /** What the per-worker table names start with. */
    tablePrefix: string;
    /** How many per-worker tables the global setup made (workers 1 to this). */
    workerTables: number;
    /** `scripts/ops.ts` bundled once for the run (./script-bundles.ts). */
    opsBundle: string;
    /** Where the run's script bundles go (./script-bundles.ts, `scriptBundle` in ./ops.ts). */
    scriptsDir: string;
    /** What the run's DynamoDB Local printed once its tables were made (scripts/local/DynamoLocalLoopback.java). */
    dynamoOutput: string;
  }
}

export const tablePrefix = 'payment-gateway-test';
export const workerTableName = (poolId: string | number) => `${tablePrefix}-w${poolId}`;

/** One JVM per run even when two projects run this setup: the first starts it, the last stops it. */
const shared = globalThis as { __testDynamo?: { ready: Promise<RunningDynamo>; ops: Promise<string>; dir: string; users: number } };

export default async function setup(project: TestProject) {
  if (!shared.__testDynamo) {
    const dir = mkdtempSync(join(tmpdir(), 'test-scripts-'));
    shared.__testDynamo = { ready: freePort().then((port) => startDynamoLocal({ port })), ops: bundleOps(dir), dir, users: 0 };
  }
  const run = shared.__testDynamo;
  run.users++;
  const [dynamo, opsBundle] = await Promise.all([run.ready, run.ops]);
  const workers = Math.max(1, Number(project.config.maxWorkers) || 1);
  await Promise.all(Array.from({ length: workers }, (_, i) => ensureTable(dynamo.endpoint, workerTableName(i + 1), { stream: false })));
  project.provide('dynamoEndpoint', dynamo.endpoint);
  project.provide('tablePrefix', tablePrefix);
  project.provide('workerTables', workers);
  project.provide('tableName', workerTableName(1));
  project.provide('opsBundle', opsBundle);
  project.provide('scriptsDir', run.dir);
  project.provide('dynamoOutput', await launcherReport(dynamo));
  return async () => {
    if (--run.users > 0) return;
    shared.__testDynamo = undefined;
    rmSync(run.dir, { recursive: true, force: true });
    recordDynamoCpu(dynamo);
    await dynamo.stop();
  };
}

/** The JVM's output once the launcher has indexed the stream records (it does so within 200 ms of the tables), or after 10 s. */
async function launcherReport(dynamo: RunningDynamo): Promise<string> {
  for (let waited = 0; waited < 10_000 && !/stream records (not )?indexed/.test(dynamo.output()); waited += 100) {
    await new Promise((ok) => setTimeout(ok, 100));
  }
  return dynamo.output();
}

/**
 * What DynamoDB Local's JVM computed over the run (user + system CPU seconds, from /proc), written to
 * test-results/dynamodb-local.json for `npm test`'s summary: the JVM is one of the run's largest CPU users.
 */
function recordDynamoCpu(dynamo: RunningDynamo) {
  try {
    const fields = readFileSync(`/proc/${dynamo.process.pid}/stat`, 'utf8').split(') ')[1]!.split(' ');
    const cpuSeconds = (Number(fields[11]) + Number(fields[12])) / 100; // utime, stime in clock ticks (USER_HZ = 100)
    const dir = resolve(import.meta.dirname, '..', '..', 'test-results');
    mkdirSync(dir, { recursive: true });
    writeFileSync(resolve(dir, 'dynamodb-local.json'), JSON.stringify({ cpuSeconds }));
  } catch {
    // no /proc (not Linux) or the JVM already gone: nothing to report
  }
}
