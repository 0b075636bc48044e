import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { RoleEvaluator } from '../scripts/rehearse/iam.ts';
import { startRehearsal } from '../scripts/rehearse/rehearsal.ts';
import { synthCached, synthesize } from '../scripts/rehearse/synth.ts';

/**
 * `npm run bench -- rehearsal` (docs/deploy-rehearsal.md): how long `npm run rehearse` takes to be
 * ready with a warm synth cache (target 90 s on this machine), and what the IAM check costs per
 * AWS call (target 2 ms): through the proxy during real requests (decisions cached by exact
 * request), and uncached (a new evaluation of a fresh request every time).
 */
export async function runRehearsalBench(): Promise<number> {
  const outDir = mkdtempSync(join(tmpdir(), 'rehearsal-bench-'));
  const warm = synthCached();
  const started = performance.now();
  const cdkOut = synthesize({ log: console.log });
  const rehearsal = await startRehearsal({ templatesDir: cdkOut, assetsDir: cdkOut, outDir, scheduleScale: 0 });
  const env = { PATH: process.env.PATH, HOME: process.env.HOME, ...rehearsal.operatorEnv };
  const ops = [
    '--import',
    'tsx',
    'scripts/ops.ts',
    '--aws',
    '--outputs',
    rehearsal.outputsFile,
    '--json',
    'merchant',
    'create',
    '--name',
    'Bench',
  ];
  const merchant = JSON.parse((await promisify(execFile)(process.execPath, ops, { env })).stdout);
  const readySeconds = (performance.now() - started) / 1000;
  try {
    const requests = 100;
    for (let i = 0; i < requests; i++) {
      const r = await fetch(`${rehearsal.baseUrl}/Gateway/v1/Account/query-balance`, {
        method: 'POST',
        headers: { 'Svc-API-Key': merchant.test.apiKey },
      });
      if (r.status !== 200) throw new Error(`query-balance: ${r.status} ${await r.text()}`);
    }
    const proxied = rehearsal.proxy.checks.totalMs / rehearsal.proxy.checks.calls;
    const [fn, policies] = [...rehearsal.policies].find(([id]) => id.startsWith('queryBalance'))!;
    const table = [...rehearsal.proxy.use.values()].find((u) => u.resource.includes(':table/'))!.resource;
    const runs = 300;
    const t = performance.now();
    for (let i = 0; i < runs; i++) {
      new RoleEvaluator(`arn:aws:iam::000000000000:role/${fn}`, policies).decide({
        action: 'dynamodb:GetItem',
        resource: table,
        context: { 'dynamodb:LeadingKeys': [`MERCHANT#${i}`], 'dynamodb:Attributes': ['PK', 'SK'] },
        keys: [`MERCHANT#${i}`],
      });
    }
    const uncached = (performance.now() - t) / runs;
    const synth = warm ? 'cached' : 'COLD: run again for the warm figure';
    const missed = (value: number, target: number) => (value > target ? '  MISSED' : '');
    console.log(`
Deploy rehearsal
  ready (synth ${synth}, start, first merchant)  ${readySeconds.toFixed(1)} s  (target 90 s, warm)${warm ? missed(readySeconds, 90) : ''}
  IAM check per call through the proxy (${rehearsal.proxy.checks.calls} calls)  ${proxied.toFixed(3)} ms  (target 2 ms)${missed(proxied, 2)}
  IAM check per call, uncached (${runs} fresh evaluations)  ${uncached.toFixed(3)} ms`);
    return 0;
  } finally {
    await rehearsal.stop();
    rmSync(outDir, { recursive: true, force: true });
  }
}
