import { spawn } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { cpus, loadavg } from 'node:os';
import { join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

/**
 * `npm run bench -- tests`: how long the test commands take on this machine (a benchmark, not a
 * timed test). Runs `npm run test:unit`, then `npm test`, each as a child process, and records per
 * command the wall time, the CPU time of the command and everything it started (user + system, from
 * /proc: the load other processes put on the machine shows in wall time, not in CPU time), the
 * number of tests and the ten slowest files (vitest's JSON reporter), the exit code and the load
 * average around it.
 * Targets: `npm test` ≤ 300 s, `npm run test:unit` < 30 s (issue 25); a miss prints MISSED and
 * exits 0, a failing command exits 1. Results: bench/results/tests.json. BENCH_TESTS=unit runs only
 * the unit command.
 */
const root = resolve(import.meta.dirname, '..');
const resultsDir = fileURLToPath(new URL('./results/', import.meta.url));
const unitReport = resolve(root, 'test-results', 'vitest-unit.json');

interface Measured {
  command: string;
  exitCode: number;
  wallSeconds: number;
  cpuSeconds: number | null;
  tests: number | null;
  files: number | null;
  slowest: Counted['slowest'];
  targetSeconds: number;
  met: boolean;
  loadAverageBefore: number;
  loadAverageAfter: number;
}

/** CPU seconds of this process's waited-for children (Linux /proc; null elsewhere). */
function childrenCpuSeconds(): number | null {
  try {
    const fields = readFileSync('/proc/self/stat', 'utf8').split(') ')[1]!.split(' ');
    // After the command name: state is field 3, cutime 16 and cstime 17 (1-based), in clock ticks (100 Hz on Linux).
    return (Number(fields[13]) + Number(fields[14])) / 100;
  } catch {
    return null;
  }
}

interface Counted {
  tests: number;
  files: number;
  /** The ten slowest files (seconds from start to end of each, in the run's parallel workers). */
  slowest: { file: string; seconds: number }[];
}

function countTests(report: string): Counted | null {
  if (!existsSync(report)) return null;
  const json = JSON.parse(readFileSync(report, 'utf8')) as {
    numTotalTests: number;
    testResults: { name: string; startTime: number; endTime: number }[];
  };
  const slowest = json.testResults
    .map((f) => ({ file: relative(root, f.name), seconds: Math.round((f.endTime - f.startTime) / 100) / 10 }))
    .sort((a, b) => b.seconds - a.seconds)
    .slice(0, 10);
  return { tests: json.numTotalTests, files: json.testResults.length, slowest };
}

async function measure(command: string, args: string[], report: string, targetSeconds: number): Promise<Measured> {
  console.log(`\n$ ${command} ${args.join(' ')}`);
  const loadAverageBefore = loadavg()[0]!;
  const cpuBefore = childrenCpuSeconds();
  const t0 = performance.now();
  const exitCode = await new Promise<number>((done) => {
    const child = spawn(command, args, { cwd: root, stdio: 'inherit' });
    child.on('exit', (code) => done(code ?? 1));
    child.on('error', () => done(1));
  });
  const wallSeconds = (performance.now() - t0) / 1000;
  const cpuAfter = childrenCpuSeconds();
  const counted = countTests(report);
  return {
    command: `${command} ${args.join(' ')}`,
    exitCode,
    wallSeconds: Math.round(wallSeconds * 10) / 10,
    cpuSeconds: cpuBefore === null || cpuAfter === null ? null : Math.round((cpuAfter - cpuBefore) * 10) / 10,
    tests: counted?.tests ?? null,
    files: counted?.files ?? null,
    slowest: counted?.slowest ?? [],
    targetSeconds,
    met: wallSeconds <= targetSeconds,
    loadAverageBefore,
    loadAverageAfter: loadavg()[0]!,
  };
}

export async function runTestsBench(): Promise<number> {
  const runs = [
    await measure(
      'npm',
      ['run', 'test:unit', '--', '--reporter=default', '--reporter=json', `--outputFile.json=${unitReport}`],
      unitReport,
      30,
    ),
  ];
  if (process.env.BENCH_TESTS !== 'unit') runs.push(await measure('npm', ['test'], resolve(root, 'test-results', 'vitest.json'), 300));
  const result = { date: new Date().toISOString(), cpus: cpus().length, node: process.version, runs };
  mkdirSync(resultsDir, { recursive: true });
  writeFileSync(join(resultsDir, 'tests.json'), `${JSON.stringify(result, null, 2)}\n`);
  console.log('\n| command | tests | wall | CPU | target | load avg before/after |');
  console.log('|---|---|---|---|---|---|');
  for (const r of runs) {
    console.log(
      `| ${r.command} | ${r.tests ?? '?'} in ${r.files ?? '?'} files | ${r.wallSeconds} s | ${r.cpuSeconds ?? '?'} s | ` +
        `${r.met ? 'met' : 'MISSED'} (${r.targetSeconds} s) | ${r.loadAverageBefore.toFixed(1)} / ${r.loadAverageAfter.toFixed(1)} |`,
    );
  }
  for (const r of runs) {
    if (!r.slowest.length) continue;
    console.log(`\nslowest files of ${r.command}:`);
    for (const f of r.slowest) console.log(`  ${f.seconds.toFixed(1).padStart(6)} s  ${f.file}`);
  }
  console.log('wrote bench/results/tests.json');
  return runs.every((r) => r.exitCode === 0) ? 0 : 1;
}
