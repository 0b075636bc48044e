import { execFile, execSync, spawn } from 'node:child_process';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { createServer } from 'node:net';
import { join, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { freePort } from '../support/global-setup.ts';
import { scriptBundle } from '../support/ops.ts';

const root = resolve(import.meta.dirname, '..', '..');
const free = (port: number) =>
  new Promise<boolean>((done) => {
    const probe = createServer();
    probe.once('error', () => done(false)).listen(port, '127.0.0.1', () => probe.close(() => done(true)));
  });
/** A PORT whose stack ports (PORT, PORT+5000, PORT+6324) are free now. */
async function stackPort(): Promise<number> {
  for (;;) {
    const port = (await freePort()) - 6324;
    if (port > 1024 && (await free(port)) && (await free(port + 5000)) && (await free(port + 6324))) return port;
  }
}
/**
 * A child's exit code and output, or null as the code when it was still running after `ms` (then killed with
 * its process group: a stack it started, JVM included, goes too).
 */
async function runStart(args: string[], env: NodeJS.ProcessEnv, ms = 30_000) {
  // From its bundle (test/support/script-bundles.ts): the test above runs it through tsx, as `npm start` does.
  const script = await scriptBundle('scripts/start.ts', { handlers: 'routes and jobs' });
  return new Promise<{ code: number | null; out: string }>((done) => {
    const child = spawn(process.execPath, [script, ...args], {
      cwd: root,
      env: { ...process.env, IN_MEMORY: '1', DATA_DIR: mkdtempSync(join(tmpdir(), 'start-')), ...env },
      detached: true,
    });
    let out = '';
    child.stdout.on('data', (d: Buffer) => (out += d.toString()));
    child.stderr.on('data', (d: Buffer) => (out += d.toString()));
    const timer = setTimeout(() => process.kill(-child.pid!, 'SIGKILL'), ms);
    child.once('exit', (code) => {
      clearTimeout(timer);
      done({ code, out });
    });
  });
}

/** `npm start` end to end: it serves, seeds a demo merchant, and Ctrl-C stops every child. */
describe('npm start', () => {
  it('serves the API with a seeded merchant and stops DynamoDB Local on SIGINT', async () => {
    // PORT alone, as most start it: DynamoDB Local and SQS on PORT+5000 and PORT+6324 (npm run listen finds them so).
    const port = await stackPort();
    const [dynamoPort, sqsPort] = [port + 5000, port + 6324];
    const webhookPort = await freePort();
    const dataDir = mkdtempSync(join(tmpdir(), 'start-'));
    const child = spawn(process.execPath, ['--import', 'tsx', 'scripts/start.ts'], {
      cwd: root,
      env: {
        ...process.env,
        WEBHOOK_PORT: String(webhookPort),
        HOST: '',
        PORT: String(port),
        IN_MEMORY: '1',
        DATA_DIR: dataDir,
        DYNAMODB_PORT: '',
        SQS_PORT: '',
        TABLE_NAME: '',
        DYNAMODB_ENDPOINT: '',
        SECRETS_MASTER_KEY: '',
        PUBLIC_BASE_URL: '',
      },
      stdio: ['ignore', 'pipe', 'pipe'],
      detached: true, // its own process group: a failed assertion kills the JVM with it (finally)
    });
    let out = '';
    child.stdout.on('data', (d: Buffer) => (out += d.toString()));
    child.stderr.on('data', (d: Buffer) => (out += d.toString()));
    try {
      const deadline = Date.now() + 150_000; // a liveness bound, not a timing goal
      while (!/test API key\s+(pk_test_\S+)/.test(out)) {
        if (Date.now() > deadline || child.exitCode !== null) throw new Error(`npm start did not come up:\n${out}`);
        await new Promise((r) => setTimeout(r, 200));
      }
      const apiKey = /test API key\s+(pk_test_\S+)/.exec(out)![1]!;
      const res = await fetch(`http://127.0.0.1:${port}/Gateway/v1/Account/query-balance`, {
        method: 'POST',
        headers: { 'Svc-API-Key': apiKey },
      });
      expect(res.status).toBe(200);
      expect(await res.json()).toMatchObject({ currency: 'PKR', availableBalance: 0 });
      // The banner names the reference, the dashboard and how to invite yourself, and they answer.
      for (const name of ['API reference', 'Dashboard']) {
        const url = new RegExp(`${name}\\s+(http://\\S+)`).exec(out)?.[1];
        expect(url, `${name} in the banner`).toBeDefined();
        expect((await fetch(url!, { redirect: 'manual' })).status, name).toBeLessThan(400);
      }
      // The endpoint printed is the one stored for the demo merchant, on the receiver port asked for.
      expect(out).toContain(`webhook endpoint  http://127.0.0.1:${webhookPort}/webhooks\n`);
      // `npm run listen -- trigger` given --base-url alone (no PORT): its ops tool finds this stack from the URL and
      // approves the settlement it created.
      const secretKey = /test secret key\s+(sk_test_\S+)/.exec(out)![1]!;
      const triggered = await new Promise<string>((done, fail) =>
        execFile(
          process.execPath,
          [
            '--import',
            'tsx',
            'scripts/listen.ts',
            'trigger',
            'settlement.completed',
            '--api-key',
            apiKey,
            '--secret-key',
            secretKey,
          ].concat(['--base-url', `http://127.0.0.1:${port}`]),
          {
            cwd: root,
            timeout: 120_000,
            env: { ...process.env, PORT: '', DYNAMODB_PORT: '', SQS_PORT: '', DATA_DIR: dataDir, TABLE_NAME: '', DYNAMODB_ENDPOINT: '' },
          },
          (error, stdout, stderr) => (error ? fail(new Error(`${error.message}\n${stdout}${stderr}`)) : done(stdout)),
        ),
      );
      expect(triggered).toMatch(/settlement \S+ approved by the operator tool/);
      expect(out).toMatch(/npm run ops -- user invite --merchant [0-9a-f-]{36} --email \S+ --role admin/);
      // Nothing of the local stack listens beyond the loopback interface (no HOST given).
      const listening = execSync('ss -ltnH').toString().split('\n');
      for (const p of [port, dynamoPort, sqsPort]) {
        const local = listening.map((line) => line.trim().split(/\s+/)[3]).filter((a) => a?.endsWith(`:${p}`));
        expect(local.length, `port ${p}`).toBeGreaterThan(0);
        for (const address of local) expect(address, `port ${p}`).toMatch(/^(127\.0\.0\.1|\[::ffff:127\.0\.0\.1\]):/);
      }
      const children = execSync(`pgrep -P ${child.pid} || true`).toString().split('\n').filter(Boolean).map(Number);
      const java = children.filter((pid) => execSync(`ps -o comm= -p ${pid} || true`).toString().includes('java'));
      expect(java.length).toBe(1); // DynamoDB Local
      child.kill('SIGINT');
      const code = await new Promise<number | null>((r) => child.once('exit', r));
      expect(code).toBe(0);
      // Gone, or exited and waiting to be reaped (zombie), within a short grace period.
      const alive = (pid: number) => !/^$|^Z/.test(execSync(`ps -o stat= -p ${pid} || true`).toString().trim());
      for (const pid of children) {
        const deadline = Date.now() + 5_000;
        while (alive(pid) && Date.now() < deadline) await new Promise((r) => setTimeout(r, 100));
        expect(alive(pid), `child ${pid} still running`).toBe(false);
      }
      await expect(fetch(`http://127.0.0.1:${port}/Gateway/v1/Settlements/schedule`)).rejects.toThrow();
    } finally {
      if (child.exitCode === null) process.kill(-child.pid!, 'SIGKILL');
    }
  }, 200_000);

  it('--help prints the options and starts nothing; a busy port is one line naming it and its variable', async () => {
    const port = await freePort();
    const help = await runStart(['--help'], { PORT: String(port) });
    expect(help.code, help.out).toBe(0);
    for (const option of ['--port <port>', '--webhook-port <port>', '--in-memory', '--data-dir <dir>', 'DYNAMODB_PORT'])
      expect(help.out).toContain(option);
    expect(help.out).not.toContain('Payment gateway running');
    await expect(fetch(`http://127.0.0.1:${port}/docs`)).rejects.toThrow(); // nothing was started

    const taken = createServer();
    const busy = await freePort();
    await new Promise<void>((ok) => taken.listen(busy, '127.0.0.1', ok));
    try {
      for (const [env, variable, what] of [
        [{ PORT: String(busy) }, 'PORT', 'the API server'],
        [{ PORT: String(port), DYNAMODB_PORT: String(busy) }, 'DYNAMODB_PORT', 'DynamoDB Local'],
      ] as const) {
        const { code, out } = await runStart([], env);
        expect(code, out).toBe(1);
        expect(out.trim()).toBe(
          `npm start: port ${busy} on 127.0.0.1 (${what}) is already in use: stop what holds it, or set ${variable} to a free port`,
        );
      }
    } finally {
      taken.close();
    }
  }, 120_000);
});
