import { targets } from './targets.ts';

/** The results of one `npm run bench` (also written to bench/results/latest.json). */
export interface RouteResult {
  id: string;
  method: string;
  path: string;
  handler: string;
  request: { kind: 'sample' | 'generic' | 'none'; note?: string; status?: number; problem?: string };
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
  load?: { medianMs: number; runsMs: number[]; target: number; met: boolean } | { error: string };
}

export interface BenchResults {
  generatedAt: string;
  node: string;
  platform: string;
  durationMs: number;
  latencyRequests: number;
  /** import() of an empty module in a fresh process: Node's fixed share of every load time. */
  loadBaseline?: { medianMs: number; runsMs: number[] };
  targets: typeof targets;
  routes: RouteResult[];
  missed: string[];
  errors: string[];
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

export function missedTargets(routes: RouteResult[]): string[] {
  const missed: string[] = [];
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
    !r.load ? '—' : 'error' in r.load ? 'ERROR' : `${ms(r.load.medianMs)} ${mark(r.load.met)}`,
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
    if (r.load && 'runsMs' in r.load) n.push(`${r.id}: load runs ms: ${r.load.runsMs.map(ms).join(', ')}`);
    return n;
  });
  if (results.loadBaseline) {
    notes.push(
      `load baseline (import() of an empty module in a fresh ` +
        `node): ${ms(results.loadBaseline.medianMs)} ms ` +
        `median, included in every load time`,
    );
  }
  if (notes.length) out.push(...notes.map((n) => `  ${n}`), '');
  for (const e of results.errors) out.push(`ERROR  ${e}`);
  if (results.missed.length) out.push(...results.missed.map((m) => `MISSED ${m}`));
  else out.push('All targets met.');
  out.push(`(${(results.durationMs / 1000).toFixed(1)} s, node ${results.node})`);
  return out.join('\n');
}
