import { randomBytes } from 'node:crypto';
import { cpus, loadavg } from 'node:os';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { jobList } from '#functions/jobs.ts';
import { routeList, type Route } from '#functions/routes.ts';
import { bundleAll, lambdaLikeEnv, measureBaselineLoad, measureLoad, writeBundle, type LambdaBundle, type LoadResult } from './bundles.ts';
import { measureColdStarts } from './coldstart.ts';
import type { DynamoCounter } from './counter.ts';
import { freePort, startLocalApi, type Cleanups } from './local-stack.ts';
import { keepRun, missedTargets, renderReport, unmeasuredRoutes, type BenchResults, type RouteResult } from './report.ts';
import { excerpt, planRequest, send, type BenchRequest } from './requests.ts';
import { samples, type Sample, type SampleContext, type SampleMerchant } from './samples.ts';
import { targets } from './targets.ts';

/**
 * `npm run bench`: per route of functions/routes.ts, DynamoDB round trips per warm request,
 * latency through the local API Gateway, Lambda bundle size and module load time. Runs its own
 * DynamoDB Local (in memory) and local server on free ports and stops both at the end (also on
 * Ctrl-C). Exits non-zero when something crashed or a route could not be measured (a bundle that
 * does not build or import, a route without a sample in bench/samples.ts, a sample not answered as
 * expected: issue 26, "exits non-zero when it cannot measure a route");
 * missed targets are printed as MISSED and exit 0. Knobs: BENCH_REQUESTS (200), BENCH_WARMUP (100 untimed
 * requests per route before them), BENCH_LOAD_RUNS (5), BENCH_LOG_LEVEL, BENCH_ONLY (route ids, comma-separated:
 * measure those routes' requests only, no bundles or cold starts; for developing a sample).
 * `npm run bench -- bundles`: bundles, module load and cold starts only (no requests through the local API
 * Gateway), kept as bench/results/runs/<UTC time>-bundles.md; latest.json and latest.md stay the full run's.
 */
const latencyRequests = Number(process.env.BENCH_REQUESTS ?? 200);
/** Untimed requests before the latency run, so JIT warm-up (Node and DynamoDB Local's JVM) is not measured. */
const latencyWarmup = Number(process.env.BENCH_WARMUP ?? 100);
const loadRuns = Number(process.env.BENCH_LOAD_RUNS ?? 5);
const resultsDir = fileURLToPath(new URL('./results/', import.meta.url));
/** BENCH_ONLY: the requests of these routes only (ids, `prefix*` for several), nothing written: for developing samples. */
const only = process.env.BENCH_ONLY?.split(',').filter(Boolean);
/** `npm run bench -- bundles`: no requests, so the routes' round trips and latency are not measured (and not required). */
const bundlesOnly = process.argv.slice(2).includes('bundles');

// `npm run bench -- tests`: wall and CPU time of `npm run test:unit` and `npm test` (bench/tests.ts); before the
// bench environment below, which the test commands must not inherit.
if (process.argv.slice(2).includes('tests')) {
  const { runTestsBench } = await import('./tests.ts');
  process.exit(await runTestsBench());
}

// `npm run bench -- rehearsal`: the deploy rehearsal's start and its IAM check per call (bench/rehearsal.ts); before the
// bench environment below, which the rehearsal must not inherit.
if (process.argv.slice(2).includes('rehearsal')) {
  const { runRehearsalBench } = await import('./rehearsal.ts');
  process.exit(await runRehearsalBench());
}

// The store and the handlers read these: set before anything under shared/ is imported.
const benchEnv = {
  TABLE_NAME: 'payment-gateway-bench',
  AWS_REGION: 'local',
  SECRETS_MASTER_KEY: randomBytes(32).toString('base64'),
  POWERTOOLS_LOG_LEVEL: process.env.BENCH_LOG_LEVEL ?? 'WARN',
  PUBLIC_BASE_URL: 'http://localhost:3000',
};
Object.assign(process.env, benchEnv);

// `npm run bench -- webhooks`: the webhook pipeline's latency and throughput instead (bench/webhooks.ts).
if (process.argv.slice(2).includes('webhooks')) {
  const { runWebhookBench } = await import('./webhooks.ts');
  process.exit(await runWebhookBench());
}

// `npm run bench -- dashboard`: the dashboard's payments list with 100,000 transactions for one merchant (bench/dashboard.ts).
if (process.argv.slice(2).includes('dashboard')) {
  const { runDashboardBench } = await import('./dashboard.ts');
  process.exit(await runDashboardBench());
}

// `npm run bench -- balance`: GET /BalanceTransactions with 100,000 journals for one merchant (bench/balance.ts).
if (process.argv.slice(2).includes('balance')) {
  const { runBalanceBench } = await import('./balance.ts');
  process.exit(await runBalanceBench());
}

// `npm run bench -- heat`: one merchant at volume, its capacity model (bench/heat.ts, docs/scaling.md).
if (process.argv.slice(2).includes('heat')) {
  const { runHeatBench } = await import('./heat.ts');
  process.exit(await runHeatBench());
}

const percentile = (sorted: number[], p: number) => sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil(p * sorted.length) - 1))]!;

/** Everything started here, stopped in reverse order whatever happens (cleanup() may run twice). */
const cleanups: { name: string; run: () => Promise<void> }[] = [];
let cleaning: Promise<void> = Promise.resolve();
function cleanup(): Promise<void> {
  cleaning = cleaning.then(async () => {
    for (let next = cleanups.pop(); next; next = cleanups.pop()) {
      try {
        await next.run();
      } catch (error) {
        console.error(`cleanup ${next.name} failed:`, error);
      }
    }
  });
  return cleaning;
}

/** Ctrl-C: stop what is running now; main() unwinds at its next check and stops the rest. */
let interrupted = false;
class Interrupted extends Error {}
const checkInterrupted = () => {
  if (interrupted) throw new Interrupted('interrupted');
};
for (const signal of ['SIGINT', 'SIGTERM'] as const) {
  process.once(signal, () => {
    interrupted = true;
    console.error(`\n${signal}: stopping DynamoDB Local and the server (no results written)`);
    void cleanup();
    setTimeout(() => process.exit(130), 20_000);
  });
}

async function measureBundles(
  routes: readonly Route[],
  bundles: ReadonlyMap<string, LambdaBundle>,
  results: Map<string, RouteResult>,
  jobLoads: NonNullable<BenchResults['jobLoads']>,
  errors: string[],
): Promise<LoadResult | undefined> {
  const outDir = mkdtempSync(join(tmpdir(), 'gateway-bench-'));
  cleanups.push({ name: 'bundle dir', run: async () => rmSync(outDir, { recursive: true, force: true }) });
  // A function's environment: what the stack sets (no DYNAMODB_ENDPOINT in AWS, but harmless).
  const env = lambdaLikeEnv({
    ...benchEnv,
    DYNAMODB_ENDPOINT: 'http://127.0.0.1:1',
    AWS_ACCESS_KEY_ID: 'bench',
    AWS_SECRET_ACCESS_KEY: 'bench',
  });
  let baseline: LoadResult | undefined;
  try {
    baseline = await measureBaselineLoad(outDir, env, loadRuns);
  } catch (error) {
    errors.push(`baseline module load failed: ${(error as Error).message}`);
  }
  /** A Lambda's module load, measured once however many rows it serves (a dashboard area's Lambda serves several). */
  const loads = new Map<string, LoadResult | { error: string }>();
  const loadOf = async (id: string): Promise<LoadResult | { error: string }> => {
    checkInterrupted();
    const known = loads.get(id);
    if (known) return known;
    let load: LoadResult | { error: string };
    try {
      load = await measureLoad(writeBundle(id, bundles.get(id)!.contents, outDir), env, loadRuns);
    } catch (error) {
      checkInterrupted();
      load = { error: (error as Error).message };
      errors.push(`${id}: module load failed: ${load.error}`);
    }
    loads.set(id, load);
    return load;
  };
  const withTarget = (load: LoadResult | { error: string }) =>
    'error' in load ? load : { ...load, target: targets.loadMs, met: load.medianMs <= targets.loadMs };
  for (const route of routes) {
    const r = results.get(route.id)!;
    const id = route.lambda ?? route.id;
    const bundle = bundles.get(id);
    if (!bundle) {
      r.bundle = { error: `no bundle for Lambda ${id}` };
      errors.push(`${route.id}: no bundle for Lambda ${id}`);
      continue;
    }
    const bytes = bundle.contents.byteLength;
    r.bundle = { bytes, target: targets.bundleBytes, met: bytes <= targets.bundleBytes, topInputs: bundle.topInputs };
    r.load = withTarget(await loadOf(id));
  }
  // The jobs' Lambdas serve no route: their module load is held to the same target.
  for (const job of jobList) jobLoads.push({ id: job.id, load: withTarget(await loadOf(job.id)) });
  return baseline;
}

async function measureRequests(
  routes: readonly Route[],
  results: Map<string, RouteResult>,
  baseUrl: string,
  merchant: SampleMerchant,
  counter: DynamoCounter,
  errors: string[],
) {
  for (const route of routes) {
    checkInterrupted();
    const r = results.get(route.id)!;
    const plan = planRequest(route, (samples as Partial<Record<string, Sample>>)[route.id]);
    if (plan.kind === 'none') {
      r.request = { kind: 'none', note: plan.reason };
      continue;
    }
    r.request = { kind: plan.kind, ...(plan.note ? { note: plan.note } : {}) };
    const ctx = (iteration: number): SampleContext => ({ merchant, iteration, baseUrl });
    try {
      // Warm-up: loads the handler module, the master key, opens the keep-alive connections.
      const warm = await send(baseUrl, await plan.build(ctx(0)));
      r.request.status = warm.status;
      if (!warm.ok) {
        r.request.problem = `sample got ${warm.status}`;
        errors.push(`${route.id}: the sample in bench/samples.ts got ${warm.status}: ${excerpt(warm.text)}`);
        continue;
      }

      // The counted request.
      const request: BenchRequest = await plan.build(ctx(1));
      counter.reset();
      const counted = await send(baseUrl, request);
      const calls = counter.calls;
      const attempts = counter.attempts;
      const commands = [...counter.commands];
      if (!counted.ok) throw new Error(`the counted request got ${counted.status}: ${excerpt(counted.text)}`);
      const target = targets.roundTrips[route.id as keyof typeof targets.roundTrips];

      // Latency, sequential, after a few untimed requests; round trips re-counted per request as
      // a consistency check.
      for (let i = 0; i < latencyWarmup && latencyRequests > 0; i++) {
        checkInterrupted();
        await send(baseUrl, await plan.build(ctx(2 + i)));
      }
      const times: number[] = [];
      let failed = 0;
      let minCalls = Infinity;
      let maxCalls = -Infinity;
      for (let i = 0; i < latencyRequests; i++) {
        checkInterrupted();
        const next = await plan.build(ctx(2 + latencyWarmup + i));
        counter.reset();
        const t0 = performance.now();
        const response = await send(baseUrl, next);
        times.push(performance.now() - t0);
        if (!response.ok) failed++;
        minCalls = Math.min(minCalls, counter.calls);
        maxCalls = Math.max(maxCalls, counter.calls);
      }
      const sorted = [...times].sort((a, b) => a - b);
      r.roundTrips = {
        calls,
        attempts,
        commands,
        ...(target !== undefined ? { target, met: calls <= target } : {}),
        minOverRun: latencyRequests ? minCalls : calls,
        maxOverRun: latencyRequests ? maxCalls : calls,
      };
      if (latencyRequests > 0) {
        r.latency = {
          requests: latencyRequests,
          failed,
          p50Ms: percentile(sorted, 0.5),
          p95Ms: percentile(sorted, 0.95),
          meanMs: times.reduce((a, b) => a + b, 0) / times.length,
          maxMs: sorted[sorted.length - 1]!,
        };
      }
    } catch (error) {
      if (interrupted) throw error;
      r.request.problem ??= 'crashed';
      errors.push(`${route.id}: request measurement failed: ${(error as Error).message}`);
    }
  }
}

/** Every route's bundle and module load, the jobs' too, and every Lambda's size. */
async function measureAllBundles(
  results: Map<string, RouteResult>,
  jobLoads: NonNullable<BenchResults['jobLoads']>,
  functions: { id: string; bytes: number }[],
  errors: string[],
): Promise<LoadResult | undefined> {
  console.log(`bundling every Lambda (one esbuild run) and timing cold imports (${loadRuns} fresh processes each)...`);
  let bundles: Map<string, LambdaBundle>;
  try {
    bundles = await bundleAll();
  } catch (error) {
    errors.push(`bundling failed: ${(error as Error).message}`);
    return undefined;
  }
  const baseline = await measureBundles(routeList, bundles, results, jobLoads, errors);
  // Every Lambda's size (the jobs too, which serve no route).
  for (const [id, bundle] of bundles) functions.push({ id, bytes: bundle.contents.byteLength });
  return baseline;
}

async function measureColdStartsHere(merchant: SampleMerchant, endpoint: string, errors: string[]) {
  console.log(`measuring cold starts per function kind (${loadRuns} fresh processes each)...`);
  const coldDir = mkdtempSync(join(tmpdir(), 'gateway-cold-'));
  cleanups.push({ name: 'cold-start dir', run: async () => rmSync(coldDir, { recursive: true, force: true }) });
  const coldStarts = await measureColdStarts(
    coldDir,
    merchant,
    { ...benchEnv, DYNAMODB_ENDPOINT: endpoint, AWS_ACCESS_KEY_ID: 'bench', AWS_SECRET_ACCESS_KEY: 'bench' },
    loadRuns,
  );
  for (const c of coldStarts) if (c.error) errors.push(`cold start of ${c.lambda} failed: ${c.error}`);
  return coldStarts;
}

async function main(): Promise<number> {
  const started = performance.now();
  const loadAtStart = loadavg();
  const errors: string[] = [];
  const measured = only
    ? routeList.filter((route) => only.some((o) => (o.endsWith('*') ? route.id.startsWith(o.slice(0, -1)) : route.id === o)))
    : routeList;
  const results = new Map<string, RouteResult>(
    measured.map((route) => [
      route.id,
      { id: route.id, method: route.method, path: route.path, handler: route.handler, request: { kind: 'none' } },
    ]),
  );

  // 1. Bundles and cold imports first, while DynamoDB Local is not yet competing for the CPU.
  const jobLoads: NonNullable<BenchResults['jobLoads']> = [];
  const functions: { id: string; bytes: number }[] = [];
  const baseline = only ? undefined : await measureAllBundles(results, jobLoads, functions, errors);

  // 2. The local stack: DynamoDB Local in memory, the table, the local API Gateway.
  const { startDynamoLocal, ensureTable } = await import('../scripts/local/dynamo.ts');
  const dynamo = await startDynamoLocal({ port: await freePort() });
  console.log(`started DynamoDB Local (in memory, pid ${dynamo.process.pid}) at ${dynamo.endpoint}`);
  cleanups.push({
    name: 'DynamoDB Local',
    run: async () => {
      const killed = new Promise<void>((resolve) => {
        const timer = setTimeout(() => {
          if (dynamo.process.exitCode === null && dynamo.process.signalCode === null) dynamo.process.kill('SIGKILL');
          resolve();
        }, 10_000);
        timer.unref();
      });
      await Promise.race([dynamo.stop(), killed]);
      const stopped = dynamo.process.exitCode !== null || dynamo.process.signalCode !== null;
      console.log(
        stopped
          ? `stopped DynamoDB Local (pid ${dynamo.process.pid})`
          : `WARNING: DynamoDB Local (pid ${dynamo.process.pid}) may still be running`,
      );
    },
  });
  checkInterrupted();
  process.env.DYNAMODB_ENDPOINT = dynamo.endpoint;
  await ensureTable(dynamo.endpoint, benchEnv.TABLE_NAME);

  const { db } = await import('#shared/store/client.ts');
  cleanups.push({ name: 'DynamoDB client', run: async () => db().destroy() });
  const { createMerchant } = await import('#shared/services/merchants.ts');
  const { countDynamoCalls } = await import('./counter.ts');

  const merchant = await createMerchant({ name: 'Bench Merchant' });
  const counter = countDynamoCalls();

  // The local API Gateway with the per-key / per-IP limits raised (bench/local-stack.ts benchRateLimits).
  const apiCleanups: Cleanups = [];
  cleanups.push({
    name: 'local server',
    run: async () => {
      for (let stop = apiCleanups.pop(); stop; stop = apiCleanups.pop()) await stop();
    },
  });
  // 3. Requests: round trips (warm) and latency.
  if (!bundlesOnly) {
    const baseUrl = await startLocalApi(apiCleanups);
    console.log(`measuring DynamoDB round trips and latency (${latencyRequests} sequential requests per route)...\n`);
    await measureRequests(measured, results, baseUrl, merchant, counter, errors);
  }
  counter.remove();

  // 4. Cold starts per function kind, against this DynamoDB Local (bench/coldstart.ts).
  checkInterrupted();
  const coldStarts = only ? [] : await measureColdStartsHere(merchant, dynamo.endpoint, errors);

  checkInterrupted();
  const routes = [...results.values()];
  const report: BenchResults = {
    generatedAt: new Date().toISOString(),
    node: process.version,
    platform: `${process.platform}-${process.arch}`,
    durationMs: Math.round(performance.now() - started),
    latencyRequests,
    ...(baseline ? { loadBaseline: baseline } : {}),
    targets,
    machine: { cores: cpus().length, loadAtStart, loadAtEnd: loadavg() },
    functions,
    jobLoads,
    coldStarts,
    routes,
    missed: missedTargets(routes, jobLoads),
    errors,
    ...(bundlesOnly ? { requestsSkipped: true } : {}),
  };
  console.log(renderReport(report));
  if (only) {
    console.log(`\nBENCH_ONLY=${only.join(',')}: ${routes.length} route(s) measured, nothing written`);
    return errors.length || unmeasuredRoutes(routes).length ? 1 : 0;
  }
  if (bundlesOnly) {
    const kept = keepRun(resultsDir, 'bundles', 'npm run bench -- bundles', renderReport(report));
    console.log(`\nwrote ${kept.slice(resultsDir.length)}`);
    return errors.length ? 1 : 0;
  }
  mkdirSync(resultsDir, { recursive: true });
  writeFileSync(join(resultsDir, 'latest.json'), `${JSON.stringify(report, null, 2)}\n`);
  writeFileSync(join(resultsDir, 'latest.md'), `# npm run bench, ${report.generatedAt}\n\n\`\`\`\n${renderReport(report)}\n\`\`\`\n`);
  const kept = keepRun(resultsDir, 'bench', 'npm run bench', renderReport(report));
  console.log(`\nwrote bench/results/latest.json, latest.md and ${kept.slice(resultsDir.length)}`);
  return errors.length || unmeasuredRoutes(routes).length ? 1 : 0;
}

let code = 1;
try {
  code = await main();
} catch (error) {
  if (interrupted) code = 130;
  else {
    console.error('bench crashed:', error);
    code = 1;
  }
} finally {
  await cleanup();
}
process.exit(code);
