import { spawn } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, rmSync } from 'node:fs';
import { setPriority } from 'node:os';
import { relative, resolve } from 'node:path';

/**
 * `npm test`: the typecheck, the lint and every vitest project (vitest.config.ts) at the same time,
 * not one after another. vitest's output streams as it runs; the typecheck's and the lint's are
 * printed when each ends. Fails when any of the three fails. Then prints the number of tests (from
 * vitest's JSON reporter, test-results/vitest.json) and the ten slowest test files.
 * Arguments go to vitest (`npm test -- test/unit`); TEST_WORKERS sets vitest's workers.
 */
const root = resolve(import.meta.dirname, '..');
const report = resolve(root, 'test-results', 'vitest.json');
const started = performance.now();
const seconds = (ms: number) => `${(ms / 1000).toFixed(1)} s`;

interface Outcome {
  name: string;
  code: number;
  ms: number;
  output: string;
}

function run(name: string, command: string, args: string[], options: { stream?: boolean; nice?: number } = {}): Promise<Outcome> {
  return new Promise((done) => {
    const t0 = performance.now();
    const child = spawn(command, args, {
      cwd: root,
      stdio: ['ignore', options.stream ? 'inherit' : 'pipe', options.stream ? 'inherit' : 'pipe'],
    });
    let output = '';
    child.stdout?.on('data', (d: Buffer) => (output += d.toString()));
    child.stderr?.on('data', (d: Buffer) => (output += d.toString()));
    // The checks that only read files yield the CPU to the tests, which wait on servers and browsers.
    if (options.nice && child.pid) {
      try {
        setPriority(child.pid, options.nice);
      } catch {
        // not allowed here: it runs at the same priority
      }
    }
    child.on('error', (error) => done({ name, code: 1, ms: performance.now() - t0, output: `${output}${error.message}\n` }));
    child.on('exit', (code, signal) => {
      const outcome = { name, code: code ?? (signal ? 1 : 0), ms: performance.now() - t0, output };
      if (!options.stream) {
        console.log(`\n${name}: ${outcome.code === 0 ? 'passed' : 'FAILED'} in ${seconds(outcome.ms)}`);
        if (outcome.code !== 0 || output.trim()) process.stdout.write(output.endsWith('\n') || !output ? output : `${output}\n`);
      }
      done(outcome);
    });
  });
}

const bin = (name: string) => resolve(root, 'node_modules', '.bin', name);
mkdirSync(resolve(root, 'test-results'), { recursive: true });
rmSync(report, { force: true });
rmSync(resolve(root, 'test-results', 'dynamodb-local.json'), { force: true });

const outcomes = await Promise.all([
  run('npm run typecheck', 'npm', ['run', '--silent', 'typecheck'], { nice: 10 }),
  run('npm run lint', 'npm', ['run', '--silent', 'lint'], { nice: 10 }),
  run('vitest', bin('vitest'), ['run', '--reporter=default', '--reporter=json', `--outputFile.json=${report}`, ...process.argv.slice(2)], {
    stream: true,
  }),
]);

interface JsonReport {
  numTotalTests: number;
  numPassedTests: number;
  numFailedTests: number;
  numPendingTests: number;
  numTodoTests: number;
  testResults: {
    name: string;
    status: string;
    message?: string;
    startTime: number;
    endTime: number;
    assertionResults: { fullName: string; status: string; failureMessages?: string[] }[];
  }[];
}

/** The first lines of a failure, so the end of the log (all CI keeps) names what failed and why. */
const firstLines = (text: string, n = 6) =>
  text
    .split('\n')
    .filter((line) => line.trim())
    .slice(0, n)
    .map((line) => `      ${line.slice(0, 200)}`)
    .join('\n');

console.log('');
if (existsSync(report)) {
  const json = JSON.parse(readFileSync(report, 'utf8')) as JsonReport;
  const files = json.testResults.length;
  console.log(
    `tests: ${json.numTotalTests} in ${files} files (${json.numPassedTests} passed, ${json.numFailedTests} failed, ` +
      `${json.numPendingTests + json.numTodoTests} skipped)`,
  );
  const failed = json.testResults.filter((file) => file.status !== 'passed' || file.assertionResults.some((t) => t.status === 'failed'));
  if (failed.length > 0) {
    console.log('failed:');
    for (const file of failed) {
      console.log(`  ${relative(root, file.name)}`);
      if (file.message) console.log(firstLines(file.message));
      for (const t of file.assertionResults.filter((r) => r.status === 'failed')) {
        console.log(`    ✗ ${t.fullName}`);
        console.log(firstLines((t.failureMessages ?? []).join('\n')));
      }
    }
  }
  console.log('the ten slowest files:');
  for (const file of [...json.testResults].sort((a, b) => b.endTime - b.startTime - (a.endTime - a.startTime)).slice(0, 10)) {
    console.log(
      `  ${seconds(file.endTime - file.startTime).padStart(8)}  ${relative(root, file.name)} (${file.assertionResults.length} tests)`,
    );
  }
} else {
  console.log(`no vitest report at ${relative(root, report)}`);
}
const dynamoCpu = resolve(root, 'test-results', 'dynamodb-local.json');
if (existsSync(dynamoCpu)) console.log(`DynamoDB Local's JVM: ${JSON.parse(readFileSync(dynamoCpu, 'utf8')).cpuSeconds.toFixed(1)} CPU-s`);
for (const o of outcomes) console.log(`${o.code === 0 ? 'ok    ' : 'FAILED'} ${o.name} (${seconds(o.ms)})`);
console.log(`npm test: ${seconds(performance.now() - started)}`);
process.exit(outcomes.every((o) => o.code === 0) ? 0 : 1);
