import { type ChildProcess, execFileSync, fork } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { type AddressInfo, createServer } from 'node:net';
import { fileURLToPath } from 'node:url';
import { rateLimitEnv, rateLimitsFromEnv, type RateLimits } from '#shared/http/rate-limits.ts';

/** Cleanup steps a benchmark runs in reverse order when it ends or is interrupted. */
export type Cleanups = (() => Promise<unknown> | unknown)[];

/** A free TCP port on 127.0.0.1. */
export const freePort = () =>
  new Promise<number>((resolve, reject) => {
    const server = createServer();
    server.once('error', reject).listen(0, '127.0.0.1', () => {
      const { port } = server.address() as AddressInfo;
      server.close(() => resolve(port));
    });
  });

/**
 * The local stack a benchmark runs against: DynamoDB Local with its table, and local SQS in its own
 * process (bench/webhook-peers.ts), both on 127.0.0.1, with the environment pointed at them.
 * `peer` starts further peer processes (e.g. the webhook receiver); all are stopped by `cleanups`.
 */
export async function startBenchStack(tableName: string, cleanups: Cleanups) {
  const { startDynamoLocal, ensureTable } = await import('../scripts/local/dynamo.ts');
  const dynamo = await startDynamoLocal({ port: await freePort() });
  cleanups.push(() => dynamo.stop());
  const pids: Record<string, number | undefined> = { 'DynamoDB Local': dynamo.process.pid };
  process.env.DYNAMODB_ENDPOINT = dynamo.endpoint;
  process.env.TABLE_NAME = tableName;
  await ensureTable(dynamo.endpoint, tableName);

  const peer = async (args: string[]) => {
    const child: ChildProcess = fork(fileURLToPath(new URL('./webhook-peers.ts', import.meta.url)), args, {
      execArgv: ['--import', 'tsx'],
      stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
    });
    cleanups.push(() => new Promise((ok) => (child.exitCode !== null ? ok(undefined) : (child.once('exit', ok), child.kill('SIGTERM')))));
    const ready = await new Promise<string>((ok, fail) => {
      child.on('message', (m: { ready?: string }) => m.ready && ok(m.ready));
      child.once('exit', (code) => fail(new Error(`bench/webhook-peers.ts ${args[0]} exited (${code})`)));
    });
    return { child, ready };
  };
  const { localQueueUrls } = await import('../scripts/local/queues.ts');
  const sqsPort = await freePort();
  pids['local SQS'] = (await peer(['sqs', String(sqsPort)])).child.pid;
  const queues = localQueueUrls(sqsPort);
  process.env.AWS_ENDPOINT_URL_SQS = queues.endpoint;
  return { peer, queues, sqsPort, pids };
}

/**
 * CPU milliseconds (user + system) a process of this machine has used so far, from /proc (Linux);
 * undefined where there is no /proc or the process is gone. Lets a benchmark say which process
 * a figure's CPU went to (the measured one, DynamoDB Local, local SQS, the receiver).
 */
export function processCpuMs(pid: number | undefined): number | undefined {
  if (pid === undefined) return undefined;
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    // Fields after "pid (comm) ": state is the 3rd field, utime the 14th and stime the 15th.
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return ((Number(fields[11]) + Number(fields[12])) * 1000) / clockTicks();
  } catch {
    return undefined;
  }
}

let ticks: number | undefined;
function clockTicks(): number {
  if (ticks === undefined) {
    try {
      ticks = Number(execFileSync('getconf', ['CLK_TCK'], { encoding: 'utf8' }).trim()) || 100;
    } catch {
      ticks = 100;
    }
  }
  return ticks;
}

/**
 * The local per-key and per-IP limits, raised as RATE_LIMIT_PER_KEY / RATE_LIMIT_PER_IP raise them
 * for `npm start` (docs/security-and-limits.md): a benchmark sends thousands of requests with one key
 * from one address, and a throttled sample measures the 429 instead of the route. The limiter still
 * counts every request, so its cost stays in the figures.
 */
export const benchRateLimits: RateLimits = rateLimitsFromEnv({
  [rateLimitEnv.perKey]: String(1_000_000_000),
  [rateLimitEnv.perIp]: String(1_000_000_000),
});

/** The gateway's local HTTP server (every route of the one route table) on 127.0.0.1; stopped by `cleanups`. */
export async function startLocalApi(cleanups: Cleanups): Promise<string> {
  const { routeList } = await import('#functions/routes.ts');
  const { createLocalServer } = await import('../scripts/local/server.ts');
  const server = createLocalServer(routeList, { rateLimits: benchRateLimits });
  await new Promise<void>((ok) => server.listen(0, '127.0.0.1', ok));
  cleanups.push(async () => {
    server.closeAllConnections();
    await new Promise((ok) => server.close(ok));
  });
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}

/**
 * One benchmark's cleanups: `cleanup()` runs them in reverse order (at its end, or on SIGINT or
 * SIGTERM, after which the process exits 130); `interrupted()` says whether a signal came.
 */
export function benchCleanups() {
  const cleanups: Cleanups = [];
  let interrupted = false;
  const cleanup = async () => {
    for (let next = cleanups.pop(); next; next = cleanups.pop())
      await Promise.resolve(next()).catch((e: unknown) => console.error('cleanup failed:', e));
  };
  const onSignal = (signal: string) => {
    interrupted = true;
    console.error(`\n${signal}: stopping`);
    void cleanup().then(() => process.exit(130));
  };
  process.once('SIGINT', onSignal);
  process.once('SIGTERM', onSignal);
  return { cleanups, cleanup, interrupted: () => interrupted };
}
