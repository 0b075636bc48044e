import { Command, InvalidArgumentError } from 'commander';
import { localConfig, nodeNotice } from './local/config.ts';
import { demoWebhookUrl, ensureDemoMerchant } from './local/demo.ts';
import { assertPortsFree, busyPortLine, checkPortNumbers, StartError, stackPorts } from './local/ports.ts';
import { startLocalStack, type LocalStack } from './local/stack.ts';

/**
 * `npm start`: the whole gateway on this machine (docs/operator-guide.md). `npm start -- --help` lists its
 * options and starts nothing. Each option is also an environment variable (the ops CLI and `npm run listen`
 * find the stack by the same PORT and DATA_DIR); Ctrl-C stops every child process.
 */
const port = (value: string) => {
  if (!/^\d+$/.test(value) || Number(value) < 1 || Number(value) > 65535) throw new InvalidArgumentError('a port number from 1 to 65535');
  return value;
};
const program = new Command('npm start')
  .usage('-- [options]')
  .description('Run the gateway on this machine: DynamoDB Local, local SQS, the API, hosted checkout and dashboard, and a demo merchant.')
  .option('--port <port>', 'the API server (PORT; default 3000)', port)
  .option('--webhook-port <port>', "where the demo merchant's webhooks go, on 127.0.0.1 (WEBHOOK_PORT; default PORT+1)", port)
  .option('--in-memory', 'a throwaway database instead of the one kept in the data folder (IN_MEMORY=1)')
  .option('--data-dir <dir>', 'the data folder: database, demo merchant keys, local master key (DATA_DIR; default .data)')
  .option('--live-providers <emulated>', 'emulated: start JazzCash and Easypaisa emulators for live mode (LIVE_PROVIDERS)')
  .addHelpText(
    'after',
    `
Environment only:
  HOST                          the API server's interface (default 127.0.0.1; DynamoDB Local and SQS stay on it)
  DYNAMODB_PORT, SQS_PORT       DynamoDB Local (default PORT+5000) and local SQS (default PORT+6324)
  PUBLIC_BASE_URL               the base URL printed and put in links (default http://localhost:PORT)
  RATE_LIMIT_PER_KEY, RATE_LIMIT_PER_IP, RATE_LIMIT_WINDOW_SECONDS   the local API Gateway's rate limits

The ops CLI and npm run listen find the stack by PORT and DATA_DIR: give them the same values.`,
  )
  .parse();
const options = program.opts<{ port?: string; webhookPort?: string; inMemory?: boolean; dataDir?: string; liveProviders?: string }>();
if (options.liveProviders !== undefined && options.liveProviders !== 'emulated')
  program.error("error: option '--live-providers <emulated>' takes only 'emulated'");
// Options become the variables they stand for: child processes and the modules read those.
if (options.port) process.env.PORT = options.port;
if (options.webhookPort) process.env.WEBHOOK_PORT = options.webhookPort;
if (options.inMemory) process.env.IN_MEMORY = '1';
if (options.dataDir) process.env.DATA_DIR = options.dataDir;
if (options.liveProviders) process.env.LIVE_PROVIDERS = options.liveProviders;

const config = localConfig();
const limits = config.rateLimits;
const ports = stackPorts(config);
let stack: LocalStack;
try {
  checkPortNumbers(config);
  await assertPortsFree(ports); // before any child process: a busy port is one line, not a JVM's or Node's stack trace
  stack = await startLocalStack(config);
} catch (error) {
  // A port taken between the check and the bind: the same line.
  const taken = error as NodeJS.ErrnoException & { port?: number };
  const busy = taken.code === 'EADDRINUSE' || taken.code === 'EACCES' ? ports.find((p) => p.port === taken.port) : undefined;
  if (!(error instanceof StartError) && !busy) throw error;
  console.error(`npm start: ${busy ? busyPortLine(busy, taken.code) : taken.message}`);
  process.exit(1);
}

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

// The demo merchant: created on first start, its keys kept in the git-ignored data folder; its endpoints follow the receiver port.
const { demo, endpoints, moved } = await ensureDemoMerchant(config);
/** What the ops CLI needs to find this stack, put before `npm run ops` (empty with the defaults). */
const opsEnv = [
  ...(config.port === 3000 ? [] : [`PORT=${config.port} `]),
  ...['DATA_DIR', 'DYNAMODB_PORT', 'SQS_PORT'].filter((name) => process.env[name]).map((name) => `${name}=${process.env[name]} `),
].join('');
const endpointLine = (mode: 'test' | 'live') => {
  const e = endpoints[mode];
  if (!e.url) return "none (the dashboard's Developers page, or npm run ops -- merchant webhook)";
  const notes = [
    ...moved.filter((m) => m.mode === mode).map((m) => `moved from ${m.from}`),
    ...(e.url === demoWebhookUrl(config.webhookPort) ? [] : ['set by hand: WEBHOOK_PORT does not move it']),
    ...(e.disabledAt
      ? [`DISABLED since ${e.disabledAt}: ${opsEnv}npm run ops -- merchant webhook --merchant ${demo.merchantId} --mode ${mode} --enable`]
      : []),
  ];
  return `${e.url}${notes.length ? `   (${notes.join('; ')})` : ''}`;
};
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
  webhook secret    ${demo.test.webhookSecret}
  webhook endpoint  ${endpointLine('test')}
${
  emulated
    ? `  live API key      ${demo.live.apiKey}
  live secret key   ${demo.live.secretKey}
  live endpoint     ${endpointLine('live')}
Live providers    EMULATED: JazzCash ${emulated.jazzcash.url}, Easypaisa ${emulated.easypaisa.url}
Bank payouts      live bank payouts and settlements: bank transfer file ${bankFile.bank} (npm run ops -- bank-file --help)
`
    : `Live providers    none (live money operations answer 422; LIVE_PROVIDERS=emulated starts the emulators)
`
}
Try:  curl -s -X POST ${config.baseUrl}/Gateway/v1/Account/query-balance -H 'Svc-API-Key: ${demo.test.apiKey}'
Dashboard: invite yourself, then open the printed link and set a password and an authenticator:
      ${opsEnv}npm run ops -- user invite --merchant ${demo.merchantId} --email you@example.com --role admin
Operator tool: ${opsEnv}npm run ops -- --help        Ctrl-C stops everything.${nodeNotice ? `\n${nodeNotice}` : ''}
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
