import { execFile, execFileSync, spawn, spawnSync } from 'node:child_process';
import { copyFileSync, mkdtempSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:http';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { jobs } from '#functions/jobs.ts';
import { guides, sdkTarball } from '#functions/reference/guides.ts';
import { routeList } from '#functions/routes.ts';
import { newMerchant, useGateway } from '../support/gateway.ts';
import { checkoutBody, createCheckout } from '../support/checkout.ts';
import { constructEvent } from '../../sdk/node/src/webhooks.ts';
import { freePort } from '../support/global-setup.ts';
import { useWebhookStack } from '../support/webhooks.ts';

/**
 * The SDK as a merchant gets it: `npm run sdk:pack`, `npm install <tarball>` into an empty folder
 * (offline: the package has no dependencies), then a plain `node` script against the local stack,
 * and a merchant's TypeScript (test/sdk/consumer/) compiled with tsc against the installed declarations.
 */
const root = resolve(import.meta.dirname, '..', '..');
useWebhookStack([jobs.webhookRelay, jobs.webhookDispatcher]);
const gw = useGateway(routeList);
let dir = '';
let tarball = '';

beforeAll(() => {
  tarball = execFileSync('npm', ['run', '--silent', 'sdk:pack'], { cwd: root, encoding: 'utf8' }).trim().split('\n').pop()!;
  dir = mkdtempSync(join(tmpdir(), 'sdk-install-'));
  writeFileSync(join(dir, 'package.json'), JSON.stringify({ name: 'merchant-app', private: true }));
  execFileSync('npm', ['install', '--offline', '--no-audit', '--no-fund', tarball], { cwd: dir, stdio: 'pipe' });
  copyFileSync(join(import.meta.dirname, 'flow.mjs'), join(dir, 'flow.mjs'));
  for (const file of readdirSync(join(import.meta.dirname, 'consumer')))
    copyFileSync(join(import.meta.dirname, 'consumer', file), join(dir, file));
}, 120_000);

/** tsc over files of the merchant folder, as a merchant's project would: NodeNext, strict, the package's own .d.ts checked too. */
function tsc(files: string[]): { status: number; output: string } {
  const tsconfig = `tsconfig.${files[0]}.json`;
  writeFileSync(
    join(dir, tsconfig),
    JSON.stringify({
      compilerOptions: {
        module: 'nodenext',
        moduleResolution: 'nodenext',
        target: 'es2022',
        strict: true,
        noEmit: true,
        skipLibCheck: false,
        types: ['node'],
        typeRoots: [join(root, 'node_modules/@types')],
      },
      files,
    }),
  );
  // One thread: TypeScript 7's parallel checkers cost more CPU than they save on a project this small.
  const args = [join(root, 'node_modules/typescript/bin/tsc'), '--singleThreaded', '-p', tsconfig];
  const run = spawnSync(process.execPath, args, { cwd: dir, encoding: 'utf8' });
  return { status: run.status ?? -1, output: `${run.stdout}${run.stderr}` };
}

describe('@svc-gateway/node installed from its tarball', () => {
  it('is where the Quick start (/docs/quick-start) tells the merchant to install it from', () => {
    expect(tarball).toBe(join(root, sdkTarball));
    expect(guides['quick-start']!.html).toContain(`npm install /path/to/gateway/${sdkTarball}`);
  });

  for (const module of ['import', 'require'] as const) {
    it(`pays a sandbox checkout and verifies its webhook (${module})`, async () => {
      process.env.WEBHOOK_MERCHANT_CACHE_MS = '0';
      const port = await freePort();
      const m = await newMerchant({ name: 'SDK Merchant', webhookUrl: `http://127.0.0.1:${port}/hooks`, allowInsecureWebhooks: true });
      const out = await new Promise<string>((ok, fail) => {
        execFile(
          process.execPath,
          ['flow.mjs'],
          {
            cwd: dir,
            timeout: 60_000,
            env: {
              PATH: process.env.PATH,
              BASE_URL: gw.baseUrl,
              API_KEY: m.test.apiKey,
              SECRET_KEY: m.test.secretKey,
              WEBHOOK_SECRET: m.test.webhookSecret!,
              RECEIVER_PORT: String(port),
              MODULE: module,
            },
          },
          (error, stdout, stderr) => (error ? fail(new Error(`${error.message}\n${stderr}`)) : ok(stdout)),
        );
      });
      const result = JSON.parse(out.trim().split('\n').pop()!);
      expect(result).toMatchObject({ paidStatus: 303, eventType: 'TransactionStatusChanged', eventStatus: 'Completed' });
      expect(result.transactionId).toBe(result.checkoutId);
      // A 4xx is a GatewayError with the problem's stable code, its trace id and, on a 400, the field map.
      expect(result.problem).toMatchObject({
        isGatewayError: true,
        status: 400,
        code: 'unknown_parameter',
        traceId: expect.stringMatching(/\S/),
      });
      expect(Object.keys(result.problem.errors)).toEqual(['orderReff']);
      expect(result.notFound).toMatchObject({
        isGatewayError: true,
        status: expect.any(Number),
        code: expect.stringMatching(/^[a-z_]+$/),
        traceId: expect.stringMatching(/\S/),
      });
      expect(result.notFound.status).toBeGreaterThanOrEqual(400);
      expect(result.notFound.status).toBeLessThan(500);
      expect(result.balance).toMatchObject({ currency: 'PKR', availableBalance: expect.any(Number) });
    }, 90_000);
  }
});

/** What a browser does on the hosted page: load it, post the card form with the sandbox card 4242…. */
async function payByCard(checkoutUrl: string): Promise<number> {
  const page = gw.baseUrl + new URL(checkoutUrl).pathname;
  const csrf = /name="csrf" value="([^"]+)"/.exec(await (await fetch(page)).text())![1]!;
  const paid = await fetch(`${page}/card`, {
    method: 'POST',
    redirect: 'manual',
    headers: { 'Content-Type': 'application/x-www-form-urlencoded', 'Sec-Fetch-Site': 'same-origin' },
    body: new URLSearchParams({ csrf, name: 'Ayesha Khan', number: '4242 4242 4242 4242', expiry: '12/39', cvc: '123' }).toString(),
  });
  return paid.status;
}

describe('the README', () => {
  it('first-checkout.mjs runs as written, its ports from PORT and WEBHOOK_PORT (the base URL host substituted)', async () => {
    const readme = readFileSync(join(root, 'README.md'), 'utf8');
    const script = /```js\n(import \{ createServer \}[\s\S]*?)```/.exec(readme)?.[1];
    expect(script, 'README.md has no first-checkout.mjs block').toBeDefined();
    expect(script).toContain(`baseUrl: \`http://localhost:$\{PORT}\``);
    expect(script).toContain(".listen(WEBHOOK_PORT, '127.0.0.1')");
    process.env.WEBHOOK_MERCHANT_CACHE_MS = '0';
    const port = await freePort();
    // The test gateway listens on 127.0.0.1 only; `localhost` may resolve to ::1 first on this machine.
    writeFileSync(join(dir, 'first-checkout.mjs'), script!.replace('http://localhost:', 'http://127.0.0.1:'));
    const m = await newMerchant({ name: 'README Merchant', webhookUrl: `http://127.0.0.1:${port}/webhooks`, allowInsecureWebhooks: true });
    const child = spawn(process.execPath, ['first-checkout.mjs'], {
      cwd: dir,
      env: {
        PATH: process.env.PATH,
        API_KEY: m.test.apiKey,
        SECRET_KEY: m.test.secretKey,
        WEBHOOK_SECRET: m.test.webhookSecret!,
        PORT: new URL(gw.baseUrl).port,
        WEBHOOK_PORT: String(port),
      },
    });
    let stdout = '';
    let stderr = '';
    child.stderr.on('data', (chunk) => (stderr += chunk));
    const exited = new Promise<number | null>((ok) => child.on('exit', ok));
    const checkoutUrl = await new Promise<string>((ok, fail) => {
      child.stdout.on('data', (chunk) => {
        stdout += chunk;
        const found = /pay here: (\S+)/.exec(stdout);
        if (found) ok(found[1]!);
      });
      child.on('exit', () => fail(new Error(`the script ended before printing the checkout URL:\n${stdout}${stderr}`)));
    });
    try {
      expect(await payByCard(checkoutUrl)).toBe(303);
      expect(await exited, stderr).toBe(0);
    } finally {
      child.kill();
    }
    expect(stdout).toContain('verified webhook: TransactionStatusChanged Completed');
    expect(stdout).toMatch(/available balance: \d/);
  }, 90_000);
});

describe('the installed bin svc-gateway-listen (the forwarder, outside this repository)', () => {
  /** Runs node_modules/.bin/svc-gateway-listen in the merchant folder, with only PATH from the environment. */
  const bin = (...args: string[]) =>
    new Promise<{ code: number | null; out: string }>((done) => {
      execFile(
        join(dir, 'node_modules', '.bin', 'svc-gateway-listen'),
        args,
        { cwd: dir, timeout: 60_000, env: { PATH: process.env.PATH } },
        (error, stdout, stderr) => done({ code: error ? (typeof error.code === 'number' ? error.code : -1) : 0, out: stdout + stderr }),
      );
    });

  it('is installed with the package, says how to use it and refuses a bad key at once with the reason', async () => {
    const help = await bin('--help');
    expect(help.code).toBe(0);
    expect(help.out).toContain('Usage: svc-gateway-listen --api-key pk_test_… --secret whsec_… --forward-to <url>');
    const live = await bin('--api-key', 'pk_live_x', '--secret', 'whsec_x', '--forward-to', 'http://127.0.0.1:9/x');
    expect(live.code).toBe(2);
    expect(live.out).toMatch(/--api-key: works with test-mode API keys/);
    const since = await bin(
      '--api-key',
      'pk_test_x',
      '--secret',
      'whsec_x',
      '--forward-to',
      'http://127.0.0.1:9/x',
      '--since',
      'yesterday',
    );
    expect(since.code).toBe(2);
    expect(since.out).toMatch(/--since: give a date or date-time/);
    const unknown = await bin(
      '--api-key',
      `pk_test_${'0'.repeat(40)}`,
      '--secret',
      'whsec_x',
      '--forward-to',
      'http://127.0.0.1:9/x',
      '--base-url',
      gw.baseUrl,
    );
    expect(unknown.code).toBe(1);
    expect(unknown.out).toMatch(/refused the API key \(401/);
    expect(unknown.out).not.toMatch(/Ready/);
  }, 90_000);

  it('forwards an event of the feed since --since to a local receiver, signed so the SDK verifies it', async () => {
    const m = await newMerchant({ name: 'Listen Merchant' });
    const created = await createCheckout(gw.baseUrl, m, checkoutBody());
    expect(created.status, created.text).toBe(200);
    expect(await payByCard(created.json.checkoutUrl)).toBe(303);
    const secret = `whsec_${Buffer.from('a local receiver secret of 32 b.').toString('base64')}`;
    const received: { headers: Record<string, string | string[] | undefined>; body: string }[] = [];
    const server = createServer((request, response) => {
      let body = '';
      request.on('data', (chunk) => (body += chunk));
      request.on('end', () => {
        received.push({ headers: request.headers, body });
        response.end('ok');
      });
    });
    const port = await freePort();
    await new Promise<void>((ok) => server.listen(port, '127.0.0.1', ok));
    try {
      const run = await bin(
        '--api-key',
        m.test.apiKey,
        '--secret',
        secret,
        '--forward-to',
        `http://127.0.0.1:${port}/hooks`,
        '--base-url',
        gw.baseUrl,
        '--since',
        '1h',
        '--events',
        'TransactionStatusChanged',
        '--max',
        '1',
        '--poll-ms',
        '200',
      );
      expect(run.code, run.out).toBe(0);
      expect(run.out).toMatch(/TransactionStatusChanged\s+evt_\S+ {2}→ 200/);
    } finally {
      server.close();
    }
    expect(received).toHaveLength(1);
    const event = constructEvent<{ type: string; data: { TransactionId: string; CurrentStatus: string } }>(
      received[0]!.body,
      received[0]!.headers,
      [secret],
    );
    expect(event).toMatchObject({
      type: 'TransactionStatusChanged',
      data: { TransactionId: created.json.paymentIntentId, CurrentStatus: 'Completed' },
    });
  }, 90_000);
});

describe('the installed declarations', () => {
  it('type-check a merchant’s ESM and CommonJS code, and refuse misspelt or mistyped fields (every @ts-expect-error is used)', () => {
    const run = tsc(['esm.mts', 'cjs.cts']);
    expect(run.output).toBe('');
    expect(run.status).toBe(0);
  }, 120_000);

  it('fail the check when an expected error does not occur (the check can fail)', () => {
    const run = tsc(['loose.mts']);
    expect(run.status).not.toBe(0);
    expect(run.output).toContain("error TS2578: Unused '@ts-expect-error' directive.");
  }, 120_000);
});
