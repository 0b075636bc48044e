import { execFile, execFileSync, spawn, spawnSync } from 'node:child_process';
import { copyFileSync, mkdtempSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { jobs } from '#functions/jobs.ts';
import { routeList } from '#functions/routes.ts';
import { newMerchant, useGateway } from '../support/gateway.ts';
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

beforeAll(() => {
  const tarball = execFileSync('npm', ['run', '--silent', 'sdk:pack'], { cwd: root, encoding: 'utf8' }).trim().split('\n').pop()!;
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
  const run = spawnSync(process.execPath, [join(root, 'node_modules/typescript/bin/tsc'), '-p', tsconfig], { cwd: dir, encoding: 'utf8' });
  return { status: run.status ?? -1, output: `${run.stdout}${run.stderr}` };
}

describe('@svc-gateway/node installed from its tarball', () => {
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
  it('first-checkout.mjs runs as written (only the base URL and the receiver port substituted)', async () => {
    const readme = readFileSync(join(root, 'README.md'), 'utf8');
    const script = /```js\n(import \{ createServer \}[\s\S]*?)```/.exec(readme)?.[1];
    expect(script, 'README.md has no first-checkout.mjs block').toBeDefined();
    expect(script).toContain("baseUrl: 'http://localhost:3000'");
    expect(script).toContain(".listen(3001, '127.0.0.1')");
    process.env.WEBHOOK_MERCHANT_CACHE_MS = '0';
    const port = await freePort();
    writeFileSync(
      join(dir, 'first-checkout.mjs'),
      script!.replace("'http://localhost:3000'", JSON.stringify(gw.baseUrl)).replace('.listen(3001,', `.listen(${port},`),
    );
    const m = await newMerchant({ name: 'README Merchant', webhookUrl: `http://127.0.0.1:${port}/webhooks`, allowInsecureWebhooks: true });
    const child = spawn(process.execPath, ['first-checkout.mjs'], {
      cwd: dir,
      env: { PATH: process.env.PATH, API_KEY: m.test.apiKey, SECRET_KEY: m.test.secretKey, WEBHOOK_SECRET: m.test.webhookSecret! },
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
