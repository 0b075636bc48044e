import { execFile } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { promisify } from 'node:util';
import { join } from 'node:path';
import { repoRoot } from './local/config.ts';
import { startRehearsal } from './rehearse/rehearsal.ts';
import { synthesize } from './rehearse/synth.ts';

/**
 * `npm run rehearse` (docs/deploy-rehearsal.md): synthesizes (cached), then runs what `cdk deploy`
 * would ship on this machine, every call checked against its function's role. PORT (default 3300)
 * moves the API; SCHEDULE_SCALE (default 1/60) shortens the schedules; Ctrl-C stops everything.
 */
const started = Date.now();
const cdkOut = synthesize({ log: console.log });
const outDir = join(repoRoot, '.rehearsal');
const rehearsal = await startRehearsal({
  templatesDir: cdkOut,
  assetsDir: cdkOut,
  outDir,
  port: Number(process.env.PORT || 3300),
  scheduleScale: process.env.SCHEDULE_SCALE ? Number(process.env.SCHEDULE_SCALE) : undefined,
  onWebhook: (r) =>
    console.log(
      `[https receiver] ${r.method} ${r.path} ${r.headers['x-svc-event-type'] ?? ''} ${r.headers['x-svc-event-id'] ?? ''}: ${r.status}`,
    ),
});

/** The operator's path: `ops --aws --outputs` against the rehearsal, as against a deployed stack. */
const ops = async (...args: string[]) => {
  const { stdout } = await promisify(execFile)(
    process.execPath,
    ['--import', 'tsx', 'scripts/ops.ts', '--aws', '--outputs', rehearsal.outputsFile, '--json', ...args],
    { cwd: repoRoot, env: { PATH: process.env.PATH, HOME: process.env.HOME, ...rehearsal.operatorEnv } },
  );
  return JSON.parse(stdout);
};
const demo = await ops(
  'merchant',
  'create',
  '--name',
  'Demo Store',
  '--webhook-url',
  'http://127.0.0.1:3301/webhooks',
  '--allow-insecure-webhooks',
);

// The operator's generated keys (evaluated against docs/operator-policy.json) go to a file only this user reads, not the terminal.
const operatorEnvFile = join(outDir, 'operator.env');
writeFileSync(
  operatorEnvFile,
  `${Object.entries(rehearsal.operatorEnv)
    .map(([k, v]) => `${k}=${v}`)
    .join('\n')}\n`,
  { mode: 0o600 },
);
const withOperator = `env $(cat ${operatorEnvFile})`;

const seconds = Math.round((Date.now() - started) / 1000);
console.log(`
Deploy rehearsal running: ${rehearsal.functions.size} functions of the synthesized templates, IAM enforced (ready in ${seconds} s)
  API               ${rehearsal.baseUrl}/Gateway/v1/...
  Hosted checkout   ${rehearsal.baseUrl}/pay/...
  Dashboard         ${rehearsal.baseUrl}/dashboard
  Stack outputs     ${rehearsal.outputsFile}   (npm run ops -- --aws --outputs <file>, with the operator environment below)
  Records           ${outDir}/use.json (allowed calls), denials.json, metrics.json, logs/
  Operator env      ${operatorEnvFile}   (an IAM user's keys; docs/operator-policy.json is its policy)
  Https receiver    ${rehearsal.receiver.url}   (on the functions' network only: set it as a merchant's endpoint in
                    the dashboard, Developers → Webhooks, and the dispatcher's signed deliveries are printed here)

Demo merchant "Demo Store" ${demo.merchantId}
  test API key      ${demo.test.apiKey}
  test secret key   ${demo.test.secretKey}
  webhook secret    ${demo.test.webhookSecret}
  live API key      ${demo.live.apiKey}   (live mode: the JazzCash ${rehearsal.providers.jazzcash.url} and Easypaisa
  live secret key   ${demo.live.secretKey}    ${rehearsal.providers.easypaisa.url} emulators)

Try:  curl -s -X POST ${rehearsal.baseUrl}/Gateway/v1/Account/query-balance -H 'Svc-API-Key: ${demo.test.apiKey}'
Dashboard invite:
      ${withOperator} \\
      npm run ops -- --aws --outputs ${rehearsal.outputsFile} user invite --merchant ${demo.merchantId} --email you@example.com --role admin
Every denied AWS call is printed as ACCESS DENIED.        Ctrl-C stops everything.
`);

let stopping = false;
const shutdown = async (signal: string) => {
  if (stopping) return;
  stopping = true;
  console.log(`\n${signal}: stopping the rehearsal...`);
  await rehearsal.stop();
  process.exit(rehearsal.proxy.denials.length ? 1 : 0);
};
process.on('SIGINT', () => void shutdown('SIGINT'));
process.on('SIGTERM', () => void shutdown('SIGTERM'));
