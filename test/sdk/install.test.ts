import { execFile, execFileSync } from 'node:child_process';
import { mkdtempSync, writeFileSync, copyFileSync } from 'node:fs';
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
 * (offline: the package has no dependencies), then a plain `node` script against the local stack.
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
}, 120_000);

describe('@svc-gateway/node installed from its tarball', () => {
  for (const module of ['import', 'require'] as const) {
    it(`pays a sandbox checkout and verifies its webhook (${module})`, async () => {
      process.env.WEBHOOK_MERCHANT_CACHE_MS = '0';
      const port = await freePort();
      const m = await newMerchant({ name: 'SDK Merchant', webhookUrl: `http://127.0.0.1:${port}/hooks`, allowInsecureWebhooks: true });
      const out = await new Promise<string>((ok, fail) => {
        execFile(process.execPath, ['flow.mjs'], {
          cwd: dir, timeout: 60_000,
          env: { PATH: process.env.PATH, BASE_URL: gw.baseUrl, API_KEY: m.test.apiKey, SECRET_KEY: m.test.secretKey, WEBHOOK_SECRET: m.test.webhookSecret!, RECEIVER_PORT: String(port), MODULE: module },
        }, (error, stdout, stderr) => (error ? fail(new Error(`${error.message}\n${stderr}`)) : ok(stdout)));
      });
      const result = JSON.parse(out.trim().split('\n').pop()!);
      expect(result).toMatchObject({ paidStatus: 303, eventStatus: 'Completed', problem: { isGatewayError: true, status: 400 } });
      expect(result.transactionId).toBe(result.checkoutId);
      // `code` on every 4xx comes with issue 13 part 1; until then only status and traceId are asserted.
      expect(result.problem.traceId).toEqual(expect.any(String));
      expect(result.balance).toMatchObject({ currency: 'PKR' });
    }, 90_000);
  }
});
