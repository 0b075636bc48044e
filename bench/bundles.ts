import { spawn } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join, relative, resolve, sep } from 'node:path';
import { pathToFileURL } from 'node:url';
import { build } from 'esbuild';
import { jobList } from '#functions/jobs.ts';
import { routeList, type Route } from '#functions/routes.ts';
import { lambdaModuleOf } from '#infra/dashboard-lambdas.ts';
import { esbuildOptionsFor, repoRoot } from '#infra/bundling.ts';

/**
 * Every Lambda the stack creates, by id and handler module: one per route row, one per group of
 * rows (the dashboard's areas, routes.ts lambdaGroups: their generated modules) and one per job (functions/jobs.ts).
 */
export function lambdaEntries(): { id: string; handler: string }[] {
  const entries = new Map<string, string>();
  for (const route of routeList) entries.set(route.lambda ?? route.id, lambdaModuleOf(route));
  for (const job of jobList) entries.set(job.id, job.handler);
  return [...entries].map(([id, handler]) => ({ id, handler }));
}

/** A Lambda's bundle as bundleAll built it, and what esbuild read and left external building it. */
export interface LambdaBundle {
  /** The minified bundle, byte for byte what the stack ships (infra/bundling.ts). */
  readonly contents: Uint8Array;
  readonly text: string;
  /**
   * Every file esbuild read for this Lambda (tree-shaken or not): the entry's import closure, the
   * same list as the metafile's `inputs` when the entry is built alone. Paths relative to the repository.
   */
  readonly inputs: Set<string>;
  /** The external modules the bundle imports with a static import statement (loaded with the Lambda). */
  readonly staticImports: string[];
  /** Largest contributors to the minified output, by package (own code = `(repo)`). */
  readonly topInputs: { name: string; bytes: number }[];
}

/**
 * Every Lambda bundled in ONE esbuild run with the stack's options. Without code splitting each entry
 * gets an output of its own that is byte for byte the bundle of that entry built alone (checked for
 * all of them when this was written, and for one in test/infra/bundles.test.ts), and esbuild reads and
 * parses each shared module (the AWS SDK, zod, shared/) once instead of once per Lambda: about a
 * third of the CPU of building the Lambdas one by one.
 */
export async function bundleAll(entries = lambdaEntries()): Promise<Map<string, LambdaBundle>> {
  const result = await build({
    ...esbuildOptionsFor(resolve(repoRoot, entries[0]!.handler)),
    entryPoints: Object.fromEntries(entries.map(({ id, handler }) => [id, resolve(repoRoot, handler)])),
    outdir: join(repoRoot, '.build', 'bundles'), // names the outputs; nothing is written
    write: false,
    metafile: true,
    logLevel: 'silent',
  });
  const { inputs, outputs } = result.metafile;
  const closure = (entry: string) => {
    const seen = new Set([entry]);
    for (const file of seen) for (const i of inputs[file]?.imports ?? []) if (!i.external) seen.add(i.path);
    return seen;
  };
  const idOf = (path: string) => /([^/\\]+)\.js$/.exec(path)![1]!;
  const files = new Map(result.outputFiles.map((f) => [idOf(f.path), f]));
  const bundles = new Map<string, LambdaBundle>();
  for (const [path, output] of Object.entries(outputs)) {
    const file = files.get(idOf(path))!;
    bundles.set(idOf(path), {
      contents: file.contents,
      text: file.text,
      inputs: closure(output.entryPoint!),
      staticImports: output.imports.filter((i) => i.external && i.kind === 'import-statement').map((i) => i.path),
      topInputs: topInputsOf(output.inputs),
    });
  }
  return bundles;
}

/**
 * The Lambda bundle of a route, built with exactly the options the CDK stack uses
 * (infra/bundling.ts), and the time a fresh Node process takes to import it (the init phase).
 */
export interface BundleResult {
  file: string;
  bytes: number;
  /** Largest contributors to the minified output, by package (own code = `(repo)`). */
  topInputs: { name: string; bytes: number }[];
}

function packageOf(input: string): string {
  const parts = input.split(/[\\/]/);
  const i = parts.lastIndexOf('node_modules');
  if (i === -1) return '(repo)';
  const first = parts[i + 1] ?? '?';
  return first.startsWith('@') ? `${first}/${parts[i + 2] ?? '?'}` : first;
}

/** The six packages that put the most bytes into an output (esbuild metafile's per-output inputs). */
function topInputsOf(inputs: Record<string, { bytesInOutput: number }>): { name: string; bytes: number }[] {
  const byPackage = new Map<string, number>();
  for (const [input, { bytesInOutput }] of Object.entries(inputs)) {
    const name = packageOf(input);
    byPackage.set(name, (byPackage.get(name) ?? 0) + bytesInOutput);
  }
  return [...byPackage]
    .sort((a, b) => b[1] - a[1])
    .slice(0, 6)
    .map(([name, bytes]) => ({ name, bytes }));
}

/** A bundle written as `<outDir>/<id>/index.mjs`, for a fresh process to import. */
export function writeBundle(id: string, contents: Uint8Array, outDir: string): string {
  const dir = join(outDir, id);
  mkdirSync(dir, { recursive: true });
  const file = join(dir, 'index.mjs');
  writeFileSync(file, contents);
  return file;
}

/** One Lambda built alone (a bench that needs only one or two; bundleAll builds them all). */
export async function bundleRoute(route: Route, outDir: string): Promise<BundleResult> {
  const result = await build({ ...esbuildOptionsFor(resolve(repoRoot, route.handler)), write: false, metafile: true, logLevel: 'silent' });
  const output = result.outputFiles[0];
  if (!output) throw new Error(`esbuild produced no output for ${route.handler}`);
  const file = writeBundle(route.id, output.contents, outDir);
  const topInputs = topInputsOf(Object.assign({}, ...Object.values(result.metafile.outputs).map((o) => o.inputs)));
  return { file, bytes: output.contents.byteLength, topInputs };
}

/**
 * What Lambda's Node.js runtime has loaded before it imports the handler, so a bundle's module load
 * does not count it: the runtime interface client's Runtime API client imports `node:http` at its
 * top level (aws-lambda-nodejs-runtime-interface-client, src/client/rapid-client.ts), and its
 * invoke store `node:async_hooks`. Everything else a bundle needs (https, tls, crypto, …) is still
 * counted. `BENCH_BARE_NODE=1` leaves the preload out (a bare `node`, as measured before).
 */
export const runtimePreload = process.env.BENCH_BARE_NODE ? '' : "await import('node:http'); await import('node:async_hooks');";

/**
 * Run in a fresh process: only the import() of the bundle is timed, not Node's own start-up nor
 * what the Lambda runtime loads before the handler (runtimePreload); by the wall clock and by the
 * process's CPU time (user + system), which a busy shared machine inflates far less than the wall
 * clock (the process waits for a core without using CPU).
 */
const loader = `
${runtimePreload}
const url = process.argv[1];
const now = performance.now.bind(performance);
const t0 = now();
const c0 = process.cpuUsage();
await import(url);
const ms = now() - t0;
const c = process.cpuUsage(c0);
process.stdout.write(JSON.stringify({ ms, cpuMs: (c.user + c.system) / 1000 }));
process.exit(0);
`;

/** The environment a function gets (minus AWS credentials, which nothing reads at import time). */
export function lambdaLikeEnv(extra: Record<string, string>): NodeJS.ProcessEnv {
  return {
    PATH: process.env.PATH ?? '/usr/bin:/bin',
    NODE_ENV: 'production',
    ...extra,
  };
}

function loadOnce(file: string, env: NodeJS.ProcessEnv): Promise<{ ms: number; cpuMs: number }> {
  return new Promise((resolvePromise, reject) => {
    const child = spawn(process.execPath, ['--input-type=module', '-e', loader, pathToFileURL(file).href], {
      env,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let out = '';
    let err = '';
    child.stdout.on('data', (d: Buffer) => (out += d.toString()));
    child.stderr.on('data', (d: Buffer) => (err += d.toString()));
    const timer = setTimeout(() => child.kill('SIGKILL'), 20_000);
    child.once('error', reject);
    child.once('close', (code) => {
      clearTimeout(timer);
      try {
        if (code !== 0) throw new Error(`exit ${code}`);
        resolvePromise(JSON.parse(out) as { ms: number; cpuMs: number });
      } catch (error) {
        reject(
          new Error(
            `importing ${relative(repoRoot, file).split(sep).join('/')} failed (${(error as Error).message}): ` +
              (err.slice(-1500) || out.slice(-500)),
          ),
        );
      }
    });
  });
}

export interface LoadResult {
  medianMs: number;
  runsMs: number[];
  /** The import's CPU time (user + system) in the same processes: median and runs. */
  cpuMedianMs: number;
  cpuRunsMs: number[];
}

export const median = (xs: readonly number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;

export async function measureLoad(file: string, env: NodeJS.ProcessEnv, runs = 5): Promise<LoadResult> {
  const all: { ms: number; cpuMs: number }[] = [];
  for (let i = 0; i < runs; i++) all.push(await loadOnce(file, env));
  const runsMs = all.map((r) => r.ms);
  const cpuRunsMs = all.map((r) => r.cpuMs);
  return { medianMs: median(runsMs), runsMs, cpuMedianMs: median(cpuRunsMs), cpuRunsMs };
}

/** The same measurement for an empty module: Node's own fixed cost of a first import(). */
export async function measureBaselineLoad(outDir: string, env: NodeJS.ProcessEnv, runs = 5): Promise<LoadResult> {
  const file = join(outDir, 'empty.mjs');
  writeFileSync(file, 'export {};\n');
  return measureLoad(file, env, runs);
}
