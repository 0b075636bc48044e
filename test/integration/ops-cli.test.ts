import { describe, expect, it } from 'vitest';
import { routeList } from '#functions/routes.ts';
import { call, useGateway } from '../support/gateway.ts';
import { useOps } from '../support/ops.ts';

/** The operator CLI as an operator runs it: a separate process against the running stack's table. */
// The first two tests through tsx, as `npm run ops` runs it; the others (and the other files) spawn the run's
// bundle of the same source (test/support/script-bundles.ts), a sixth of a tsx start's CPU.
const operatorEnv = () => ({ AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED: undefined });
const opsViaTsx = useOps(undefined, operatorEnv, { viaTsx: true });
const ops = useOps(undefined, operatorEnv);

describe('npm run ops', () => {
  const gw = useGateway(routeList);

  it('shows a merchant as a readable profile, and --json in the documented shape without table keys or secrets', async () => {
    const created = await opsViaTsx(
      'merchant',
      'create',
      '--name',
      'Profile Shop',
      '--json',
      '--webhook-url',
      'http://127.0.0.1:4999/h',
      '--allow-insecure-webhooks',
    );
    const id = created.json.merchantId as string;
    const shown = await opsViaTsx('merchant', 'show', id, '--json');
    expect(Object.keys(shown.json).sort()).toEqual([
      'allowInsecureWebhooks',
      'createdAt',
      'defaultCurrency',
      'fees',
      'merchantId',
      'name',
      'payoutApprovals',
      'settlementSchedule',
      'status',
      'updatedAt',
      'webhooks',
    ]);
    expect(shown.json).toMatchObject({
      merchantId: id,
      name: 'Profile Shop',
      status: 'active',
      payoutApprovals: 'either',
      fees: { checkout: { percent: expect.any(Number), fixed: expect.any(Number) } },
      settlementSchedule: { minimumBalance: expect.any(Number) },
      webhooks: { test: { url: 'http://127.0.0.1:4999/h', secrets: 1, events: 'all' } },
    });
    expect(shown.stdout).not.toMatch(/whsec_|"PK"|"SK"|GSI|Minor/);
    const human = await opsViaTsx('merchant', 'show', id);
    expect(human.stdout).toMatch(/^Profile Shop \([0-9a-f-]{36}\): active\n/);
    expect(human.stdout).toMatch(/\n {2}checkout {4}\d+(\.\d+)? % \+ \d+\.\d{2} PKR\n/);
    expect(human.stdout).toMatch(/\n {2}test {2}http:\/\/127\.0\.0\.1:4999\/h \(all events; 1 signing secret\)\n/);
    expect(human.stdout).not.toMatch(/[{}"]|whsec_|\bPK\b|\bSK\b/);
  }, 120_000);

  it('does not greet the operator with the AWS SDK’s Node version warning (npm start says it once)', async () => {
    const r = await opsViaTsx('merchant', 'create', '--name', 'Quiet', '--json');
    expect(r.json?.merchantId, r.stderr).toBeTruthy();
    expect(r.stderr).not.toContain('NodeVersionSupportWarning');
  });

  it('creates a merchant printing both modes’ keys once, as docs/operator-guide.md shows', async () => {
    const r = await ops(
      'merchant',
      'create',
      '--name',
      'Acme',
      '--json',
      '--webhook-url',
      'http://127.0.0.1:4999/hook',
      '--allow-insecure-webhooks',
    );
    expect(r.json).toMatchObject({
      merchantId: expect.stringMatching(/^[0-9a-f-]{36}$/),
      test: {
        apiKey: expect.stringMatching(/^pk_test_[0-9A-Za-z]{32,}$/),
        secretKey: expect.stringMatching(/^sk_test_[0-9A-Za-z]{32,}$/),
        webhookSecret: expect.stringMatching(/^whsec_/),
      },
      live: {
        apiKey: expect.stringMatching(/^pk_live_/),
        secretKey: expect.stringMatching(/^sk_live_/),
        webhookSecret: expect.stringMatching(/^whsec_/),
      },
    });
    expect((await call(gw.baseUrl, 'GET', '/Gateway/v1/Settlements/schedule', { key: r.json.test.apiKey })).status).toBe(200);

    const credit = await ops(
      'wallet',
      'credit',
      '--merchant',
      r.json.merchantId,
      '--mode',
      'test',
      '--amount',
      '5000',
      '--currency',
      'PKR',
      '--json',
    );
    expect(credit.json).toMatchObject({ credited: 5000 });
    const balance = await call(gw.baseUrl, 'POST', '/Gateway/v1/Account/query-balance', { key: r.json.test.apiKey });
    expect(balance.json.availableBalance).toBe(5000);
    const live = await ops('wallet', 'credit', '--merchant', r.json.merchantId, '--mode', 'live', '--amount', '5000', '--json');
    expect(live.json.error).toMatch(/live/);

    const revoke = await ops('key', 'revoke', r.json.test.apiKey, '--json');
    expect(revoke.json).toMatchObject({ status: 'revoked' });
    expect((await call(gw.baseUrl, 'GET', '/Gateway/v1/Settlements/schedule', { key: r.json.test.apiKey })).status).toBe(401);

    const rotated = await ops('key', 'rotate', '--merchant', r.json.merchantId, '--mode', 'live', '--grace', '0', '--json');
    expect(rotated.json.apiKey).toMatch(/^pk_live_/);
    expect((await call(gw.baseUrl, 'GET', '/Gateway/v1/Settlements/schedule', { key: r.json.live.apiKey })).status).toBe(401);
    expect((await call(gw.baseUrl, 'GET', '/Gateway/v1/Settlements/schedule', { key: rotated.json.apiKey })).status).toBe(200);

    const schedule = await ops(
      'merchant',
      'schedule',
      '--merchant',
      r.json.merchantId,
      '--frequency',
      'weekly',
      '--day',
      '1',
      '--hour',
      '2',
      '--bank-name',
      'HBL',
      '--iban',
      'PK36SCBL0000001123456702',
      '--account-title',
      'Acme Ltd',
      '--json',
    );
    expect(schedule.json.settlementSchedule.frequency).toBe('weekly');
    const shown = await call(gw.baseUrl, 'GET', '/Gateway/v1/Settlements/schedule', { key: rotated.json.apiKey });
    expect(shown.json).toMatchObject({
      enabled: true,
      frequency: 'weekly',
      dayOfPeriod: 1,
      hourUtc: 2,
      destination: { bankName: 'HBL', ibanLast4: '6702' },
    });
    expect(shown.text).not.toContain('PK36SCBL0000001123456702');
  }, 60_000);

  it('issues keys with restricted scopes', async () => {
    const r = await ops('merchant', 'create', '--name', 'Readonly', '--scopes', 'read,balance', '--json');
    expect((await call(gw.baseUrl, 'POST', '/Gateway/v1/Account/query-balance', { key: r.json.test.apiKey })).status).toBe(200);
    const refused = await call(gw.baseUrl, 'POST', '/Gateway/v1/Payment/deposit', {
      key: r.json.test.apiKey,
      body: { amount: 500 },
      secret: r.json.test.secretKey,
    });
    expect(refused.status).toBe(403);
    expect((await ops('merchant', 'create', '--name', 'Bad', '--scopes', 'everything', '--json')).stderr).toMatch(/scopes are/);
  }, 30_000);

  it('refuses unsafe webhook URLs', async () => {
    const r = await ops('merchant', 'create', '--name', 'Bad', '--webhook-url', 'http://169.254.169.254/latest', '--json');
    expect(r.json.error).toMatch(/webhook/);
  }, 30_000);
});
