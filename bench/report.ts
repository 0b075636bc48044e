import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { LoadResult } from './bundles.ts';
import type { ColdStartResult } from './coldstart.ts';
import { targets } from './targets.ts';

/** The results of one `npm run bench` (also written to bench/results/latest.json). */
export interface RouteResult {
  id: string;
  method: string;
  path: string;
  handler: string;
  request: { kind: 'sample' | 'none'; note?: string; status?: number; problem?: string };
  roundTrips?: {
    calls: number;
    attempts: number;
    commands: string[];
    target?: number;
    met?: boolean;
    /** Calls per request over the latency run (should equal `calls`). */
    minOverRun: number;
    maxOverRun: number;
  };
  latency?: { requests: number; failed: number; p50Ms: number; p95Ms: number; meanMs: number; maxMs: number };
  bundle?: { bytes: number; target: number; met: boolean; topInputs: { name: string; bytes: number }[] } | { error: string };
  load?: ModuleLoad;
}

/** A Lambda's module load (import of its bundle in fresh processes), by the wall clock and CPU time. */
export type ModuleLoad = (LoadResult & { target: number; met: boolean }) | { error: string };

export interface BenchResults {
  generatedAt: string;
  node: string;
  platform: string;
  durationMs: number;
  latencyRequests: number;
  /** import() of an empty module in a fresh process: Node's fixed share of every load time. */
  loadBaseline?: LoadResult;
  targets: typeof targets;
  /** The machine: cores and load averages (1, 5, 15 min) when the run started and ended (a shared machine's figures are noisy). */
  machine?: { cores: number; loadAtStart: number[]; loadAtEnd: number[] };
  /** Every Lambda of the stack (routes, dashboard groups, jobs): minified bundle bytes. */
  functions?: { id: string; bytes: number }[];
  /** The module load of the jobs' Lambdas (they serve no route). */
  jobLoads?: { id: string; load: ModuleLoad }[];
  coldStarts?: ColdStartResult[];
  routes: RouteResult[];
  missed: string[];
  errors: string[];
  /** `npm run bench -- bundles`: no requests were sent (bundles, module load and cold starts only). */
  requestsSkipped?: boolean;
}

const kB = (bytes: number) => (bytes / 1000).toFixed(1);
const ms = (value: number) => value.toFixed(value < 10 ? 2 : 1);
const mark = (met: boolean) => (met ? 'ok' : 'MISSED');

function requestCell(r: RouteResult): string {
  if (r.request.kind === 'none') return 'no sample';
  if (r.request.problem) return `no sample (${r.request.problem})`;
  return r.request.kind;
}

function roundTripCell(r: RouteResult): string {
  const rt = r.roundTrips;
  if (!rt) return '—';
  const counted = rt.attempts !== rt.calls ? `${rt.calls} (${rt.attempts} attempts)` : String(rt.calls);
  return rt.target === undefined ? counted : `${counted} ${mark(rt.met!)} (≤${rt.target})`;
}

/** The routes the run could not measure: no sample, or a sample that did not answer as expected. */
export const unmeasuredRoutes = (routes: readonly RouteResult[]) => routes.filter((r) => r.roundTrips === undefined);

export function missedTargets(routes: RouteResult[], jobLoads: BenchResults['jobLoads'] = []): string[] {
  const missed: string[] = [];
  for (const { id, load } of jobLoads)
    if ('medianMs' in load && !load.met) missed.push(`${id}: module load ${ms(load.medianMs)} ms, target ≤ ${load.target} ms`);
  for (const r of routes) {
    if (r.roundTrips?.met === false)
      missed.push(
        `${r.id}: ${r.roundTrips.calls} DynamoDB round trips (${r.roundTrips.commands.join(', ')}), target ≤ ${r.roundTrips.target}`,
      );
    if (r.bundle && 'bytes' in r.bundle && !r.bundle.met)
      missed.push(`${r.id}: bundle ${kB(r.bundle.bytes)} kB, target ≤ ${kB(r.bundle.target)} kB`);
    if (r.load && 'medianMs' in r.load && !r.load.met)
      missed.push(`${r.id}: module load ${ms(r.load.medianMs)} ms, target ≤ ${r.load.target} ms`);
    if (targets.roundTrips[r.id as keyof typeof targets.roundTrips] !== undefined && !r.roundTrips) {
      missed.push(
        `${r.id}: round trips not measured (${requestCell(r)}), target ≤ ${targets.roundTrips[r.id as keyof typeof targets.roundTrips]}`,
      );
    }
  }
  return missed;
}

function table(header: string[], rows: string[][]): string {
  const widths = header.map((h, i) => Math.max(h.length, ...rows.map((r) => r[i]!.length)));
  const line = (cells: string[]) => `| ${cells.map((c, i) => c.padEnd(widths[i]!)).join(' | ')} |`;
  return [line(header), `|${widths.map((w) => '-'.repeat(w + 2)).join('|')}|`, ...rows.map(line)].join('\n');
}

export function renderReport(results: BenchResults): string {
  const rows = results.routes.map((r) => [
    r.id,
    `${r.method} ${r.path}`,
    requestCell(r),
    roundTripCell(r),
    r.roundTrips ? r.roundTrips.commands.join(', ') || '(none)' : '—',
    r.latency ? `${ms(r.latency.p50Ms)} / ${ms(r.latency.p95Ms)}` : '—',
    !r.bundle ? '—' : 'error' in r.bundle ? 'ERROR' : `${kB(r.bundle.bytes)} ${mark(r.bundle.met)}`,
    !r.load ? '—' : 'error' in r.load ? 'ERROR' : `${ms(r.load.medianMs)} ${mark(r.load.met)} (CPU ${ms(r.load.cpuMedianMs)})`,
  ]);
  const out = [
    table(
      [
        'Route',
        'Endpoint',
        'Request',
        'DDB round trips',
        'Commands',
        `p50 / p95 ms (n=${results.latencyRequests})`,
        `Bundle kB (≤${kB(results.targets.bundleBytes)})`,
        `Load ms (≤${results.targets.loadMs})`,
      ],
      rows,
    ),
    '',
  ];
  const notes = results.routes.flatMap((r) => {
    const n: string[] = [];
    if (r.request.note) n.push(`${r.id}: request = ${r.request.note}`);
    if (r.roundTrips && (r.roundTrips.minOverRun !== r.roundTrips.calls || r.roundTrips.maxOverRun !== r.roundTrips.calls)) {
      n.push(`${r.id}: round trips varied over the latency run: ${r.roundTrips.minOverRun}..${r.roundTrips.maxOverRun}`);
    }
    if (r.latency?.failed) n.push(`${r.id}: ${r.latency.failed}/${r.latency.requests} latency requests did not answer as expected`);
    if (r.bundle && 'topInputs' in r.bundle)
      n.push(`${r.id}: bundle by package: ${r.bundle.topInputs.map((t) => `${t.name} ${kB(t.bytes)}`).join(', ')} kB`);
    if (r.load && 'runsMs' in r.load)
      n.push(`${r.id}: load runs ms: ${r.load.runsMs.map(ms).join(', ')} (CPU ${r.load.cpuRunsMs.map(ms).join(', ')})`);
    return n;
  });
  if (results.loadBaseline) {
    notes.push(
      `load baseline (import() of an empty module in a fresh ` +
        `node): ${ms(results.loadBaseline.medianMs)} ms (CPU ${ms(results.loadBaseline.cpuMedianMs)} ms) ` +
        `median, included in every load time`,
    );
  }
  if (notes.length) out.push(...notes.map((n) => `  ${n}`), '');
  if (results.jobLoads?.length) {
    out.push(
      `Module load of the jobs' Lambdas (≤${results.targets.loadMs} ms):`,
      table(
        ['Job', 'Load ms', 'CPU ms'],
        results.jobLoads.map(({ id, load }) =>
          'error' in load ? [id, 'ERROR', load.error.slice(0, 60)] : [id, `${ms(load.medianMs)} ${mark(load.met)}`, ms(load.cpuMedianMs)],
        ),
      ),
      '',
    );
  }
  if (results.coldStarts?.length) {
    out.push(
      'Cold start in a Lambda-like process (median of fresh processes; import = init, then the first and a warm invocation; ' +
        "CPU = the process's own CPU time):",
      table(
        [
          'Function kind',
          'Lambda',
          'Request',
          `Import ms (≤${results.targets.loadMs})`,
          'Import CPU ms',
          'First invoke ms (CPU)',
          'Import + first ms',
          'Warm invoke ms',
        ],
        results.coldStarts.map((c) =>
          c.error
            ? [c.kind, c.lambda, c.request, 'ERROR', c.error.slice(0, 60), '', '', '']
            : [
                c.kind,
                c.lambda,
                `${c.request} → ${c.status ?? '-'}`,
                `${ms(c.importMs)} ${mark(c.importMet)}`,
                ms(c.importCpuMs),
                `${ms(c.firstInvokeMs)} (${ms(c.firstInvokeCpuMs)})`,
                ms(c.totalMs),
                ms(c.warmInvokeMs),
              ],
        ),
      ),
      '',
    );
  }
  out.push(targetsTable(results), '');
  for (const e of results.errors) out.push(`ERROR  ${e}`);
  const unmeasured = results.requestsSkipped ? [] : unmeasuredRoutes(results.routes);
  if (unmeasured.length)
    out.push(
      `UNMEASURED ${unmeasured.length} route(s), so this run exits 1 (each needs a sample in bench/samples.ts that answers as expected): ` +
        unmeasured.map((r) => `${r.id} (${r.request.kind === 'none' ? r.request.note : r.request.problem})`).join(', '),
    );
  if (results.missed.length) out.push(...results.missed.map((m) => `MISSED ${m}`));
  else out.push('All targets met.');
  out.push(`(${(results.durationMs / 1000).toFixed(1)} s, node ${results.node})`);
  return out.join('\n');
}

/** The issue's figures before the work (issue 26, measured on this 2-core machine at the old main). */
const before = {
  measured: 'most routes answered 429 (local rate limit); exit 1',
  largest: '747 kB',
  median: '455 kB',
  load: '55-340 ms',
};

/** Every target of issue 26 met or not, side by side with the figures before. */
function targetsTable(results: BenchResults): string {
  const t = results.targets;
  const sizes = [...(results.functions ?? [])].sort((a, b) => a.bytes - b.bytes);
  const largest = sizes.at(-1);
  const median = sizes[Math.floor(sizes.length / 2)];
  const over = sizes.filter((f) => f.bytes > t.bundleBytes);
  const measured = results.routes.filter((r) => r.roundTrips !== undefined);
  const unmeasured = unmeasuredRoutes(results.routes);
  const noSample = unmeasured.filter((r) => r.request.kind === 'none').length;
  // One figure per Lambda: a group's rows share their Lambda's load result (the same object).
  const seen = new Set<object>();
  const loads = [...results.routes, ...(results.jobLoads ?? [])].flatMap((r) => {
    if (!r.load || !('medianMs' in r.load) || seen.has(r.load)) return [];
    seen.add(r.load);
    return [{ id: r.id, ms: r.load.medianMs, cpuMs: r.load.cpuMedianMs }];
  });
  const cpuWorst = loads.reduce((a, b) => (b.cpuMs > a.cpuMs ? b : a), { id: '-', ms: 0, cpuMs: 0 });
  const cpuBest = loads.reduce((a, b) => (b.cpuMs < a.cpuMs ? b : a), { id: '-', ms: 0, cpuMs: Infinity });
  const worst = loads.reduce((a, b) => (b.ms > a.ms ? b : a), { id: '-', ms: 0 });
  const best = loads.reduce((a, b) => (b.ms < a.ms ? b : a), { id: '-', ms: Infinity });
  const slow = loads.filter((l) => l.ms > t.loadMs).length;
  const rows = [
    results.requestsSkipped
      ? ['every route measured (exit 1 if not)', before.measured, 'requests not sent in this run (npm run bench -- bundles)', '-']
      : [
          'every route measured (exit 1 if not)',
          before.measured,
          `${measured.length}/${results.routes.length} routes by their sample in bench/samples.ts, ${results.errors.length} errors; ` +
            `not measured: ${noSample} without a sample, ${unmeasured.length - noSample} not answered as expected`,
          mark(unmeasured.length === 0 && results.errors.length === 0),
        ],
    [
      `every bundle ≤ ${kB(t.bundleBytes)} kB`,
      before.largest,
      largest
        ? `largest ${kB(largest.bytes)} kB (${largest.id}); over: ${over.map((f) => `${f.id} ${kB(f.bytes)}`).join(', ') || 'none'}`
        : '-',
      mark(over.length === 0 && sizes.length > 0),
    ],
    [
      `median bundle ≤ ${kB(t.medianBundleBytes)} kB`,
      before.median,
      median ? `${kB(median.bytes)} kB (${sizes.length} Lambdas)` : '-',
      mark(median !== undefined && median.bytes <= t.medianBundleBytes),
    ],
    [
      `module load ≤ ${t.loadMs} ms each`,
      before.load,
      loads.length
        ? `${ms(best.ms)}-${ms(worst.ms)} ms (worst ${worst.id}); ${slow} of ${loads.length} Lambdas over; ` +
          `CPU ${ms(cpuBest.cpuMs)}-${ms(cpuWorst.cpuMs)} ms`
        : '-',
      mark(loads.length > 0 && slow === 0),
    ],
    [
      `cold start per function kind reported, import ≤ ${t.loadMs} ms`,
      'not measured',
      (results.coldStarts ?? [])
        .map((c) => (c.error ? `${c.lambda} ERROR` : `${c.lambda} ${ms(c.importMs)} + ${ms(c.firstInvokeMs)} ms`))
        .join('; ') || '-',
      mark((results.coldStarts?.length ?? 0) > 0 && results.coldStarts!.every((c) => !c.error && c.importMet)),
    ],
  ];
  const machine = results.machine
    ? `machine: ${results.machine.cores} cores, load average ${results.machine.loadAtStart.map((l) => l.toFixed(1)).join(' ')} at start, ` +
      `${results.machine.loadAtEnd.map((l) => l.toFixed(1)).join(' ')} at end`
    : '';
  return [`Issue 26 targets (before = the issue's figures):`, table(['Target', 'Before', 'Now', ''], rows), machine].join('\n');
}

/**
 * A run's printed report kept beside the latest: bench/results/runs/<UTC time>-<name>.md, one file
 * per run, which a change may commit as its evidence (bench/results/ is otherwise not tracked).
 */
export function keepRun(resultsDir: string, name: string, title: string, text: string, at = new Date()): string {
  const dir = join(resultsDir, 'runs');
  mkdirSync(dir, { recursive: true });
  const file = join(dir, `${at.toISOString().slice(0, 16).replace(':', '-')}-${name}.md`);
  writeFileSync(file, `# ${title}, ${at.toISOString()}\n\n\`\`\`\n${text}\n\`\`\`\n`);
  return file;
}
