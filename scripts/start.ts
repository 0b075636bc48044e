import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { localConfig, nodeNotice } from './local/config.ts';
import { startLocalStack } from './local/stack.ts';

/**
 * `npm start`: the whole gateway on this machine (docs/operator-guide.md). PORT (default 3000) moves it;
 * IN_MEMORY=1 keeps DynamoDB in memory instead of .data/; RATE_LIMIT_PER_KEY, RATE_LIMIT_PER_IP and
 * RATE_LIMIT_WINDOW_SECONDS set the local rate limits (docs/security-and-limits.md); Ctrl-C stops every child process.
 */
const config = localConfig();
const stack = await startLocalStack(config);
const limits = config.rateLimits;

// LIVE_PROVIDERS=emulated: the JazzCash and Easypaisa emulators on 127.0.0.1, and live mode's
// adapters pointed at them, so pk_live_ keys move (emulated) money end to end. Without it live
// mode refuses money operations with a 422, as a deployment without provider credentials does.
const emulated =
  process.env.LIVE_PROVIDERS === 'emulated'
    ? await (await import('./emulators/index.ts')).startEmulatedProviders(config.baseUrl)
    : undefined;
// With them, live bank payouts and settlements go to the bank transfer file of BANK_FILE_BANK (default LOCALBANK):
// `npm run ops -- bank-file export --bank LOCALBANK`, then `bank-file mark` (docs/providers/bank-file.md).
const bankFile = { bank: process.env.BANK_FILE_BANK ?? 'LOCALBANK' };
if (emulated) (await import('#shared/providers/live/index.ts')).configureLiveProviders({ ...emulated.config, bankFile });

// The demo merchant: created on first start, its keys kept in the git-ignored data folder.
const { getMerchant } = await import('#shared/store/merchants.ts');
const { createMerchant } = await import('#shared/services/merchants.ts');
const demoFile = resolve(config.dataDir, 'demo-merchant.json');
let demo = existsSync(demoFile) && !config.inMemory ? JSON.parse(readFileSync(demoFile, 'utf8')) : undefined;
if (!demo || !(await getMerchant(demo.merchantId))) {
  demo = await createMerchant({
    name: 'Demo Store',
    currency: 'PKR',
    webhookUrl: `http://127.0.0.1:${config.port + 1}/webhooks`,
    allowInsecureWebhooks: true,
  });
  writeFileSync(demoFile, JSON.stringify(demo, null, 2), { mode: 0o600 });
}

console.log(`
Payment gateway running (local stack)
  API               ${config.baseUrl}/Gateway/v1/...
  Hosted checkout   ${config.baseUrl}/pay/...
  API reference     ${config.baseUrl}/docs
  Dashboard         ${config.baseUrl}/dashboard
  DynamoDB Local    ${stack.dynamo.endpoint} (${config.inMemory ? 'in memory' : `data in ${config.dataDir}`})
  SQS (local)       ${stack.queues.endpoint}
  Rate limits       ${limits.perKey} per API key, ${limits.perIp} per IP, per ${limits.windowSeconds} s (RATE_LIMIT_*)

Demo merchant "${demo.name}" ${demo.merchantId}
  test API key      ${demo.test.apiKey}
  test secret key   ${demo.test.secretKey}
  webhook secret    ${demo.test.webhookSecret}   (endpoint ${`http://127.0.0.1:${config.port + 1}/webhooks`})
${
  emulated
    ? `  live API key      ${demo.live.apiKey}
  live secret key   ${demo.live.secretKey}
Live providers    EMULATED: JazzCash ${emulated.jazzcash.url}, Easypaisa ${emulated.easypaisa.url}
Bank payouts      live bank payouts and settlements: bank transfer file ${bankFile.bank} (npm run ops -- bank-file --help)
`
    : `Live providers    none (live money operations answer 422; LIVE_PROVIDERS=emulated starts the emulators)
`
}
Try:  curl -s -X POST ${config.baseUrl}/Gateway/v1/Account/query-balance -H 'Svc-API-Key: ${demo.test.apiKey}'
Dashboard: invite yourself, then open the printed link and set a password and an authenticator:
      npm run ops -- user invite --merchant ${demo.merchantId} --email you@example.com --role admin
Operator tool: npm run ops -- --help        Ctrl-C stops everything.${nodeNotice ? `\n${nodeNotice}` : ''}
`);

let stopping = false;
const shutdown = async (signal: string) => {
  if (stopping) return;
  stopping = true;
  console.log(`\n${signal}: stopping the local stack...`);
  await emulated?.close();
  await stack.stop();
  process.exit(0);
};
process.on('SIGINT', () => void shutdown('SIGINT'));
process.on('SIGTERM', () => void shutdown('SIGTERM'));
