import { Command, InvalidArgumentError } from 'commander';
import { localConfig, useLocalStack } from './local/config.ts';

/**
 * `npm run ops -- <command>`: the operator's tool (CONTRACT §11). Against the local stack by
 * default (same PORT / DATA_DIR as `npm start`); with OPS_TARGET=aws (or --aws) against a deployed
 * stack, using TABLE_NAME and SECRETS_MASTER_KEY_ARN from the stack's outputs and your AWS
 * credentials. `--json` prints JSON on stdout for any command.
 */
const program = new Command('ops')
  .description('Operator tool for the payment gateway')
  .option('--json', 'print JSON')
  .option('--aws', 'operate on the deployed stack (TABLE_NAME, SECRETS_MASTER_KEY_ARN, AWS credentials)')
  .showHelpAfterError();

const json = () => Boolean(program.opts().json);

function print(result: unknown, human: (r: never) => string) {
  console.log(json() ? JSON.stringify(result, null, 2) : human(result as never));
}

async function connect() {
  if (program.opts().aws || process.env.OPS_TARGET === 'aws') {
    if (!process.env.TABLE_NAME) throw new Error('TABLE_NAME is required with --aws (see the stack output TableName)');
    if (!process.env.SECRETS_MASTER_KEY_ARN) throw new Error('SECRETS_MASTER_KEY_ARN is required with --aws (see the stack output SecretsMasterKeyArn)');
    const { SecretsManagerClient, GetSecretValueCommand } = await import('@aws-sdk/client-secrets-manager');
    const { useSecretReader } = await import('#shared/crypto/seal.ts');
    const client = new SecretsManagerClient({});
    useSecretReader(async (arn) => (await client.send(new GetSecretValueCommand({ SecretId: arn }))).SecretString ?? '');
    return;
  }
  const config = localConfig();
  useLocalStack(config);
  const { db } = await import('#shared/store/client.ts');
  const { ListTablesCommand } = await import('@aws-sdk/client-dynamodb');
  try {
    await db().send(new ListTablesCommand({}));
  } catch {
    throw new Error(`The local stack is not running on port ${config.port} (DynamoDB Local ${process.env.DYNAMODB_ENDPOINT}). Start it with \`npm start\` (same PORT and DATA_DIR).`);
  }
}

const services = () => import('#shared/services/merchants.ts');

const mode = (v: string) => {
  if (v !== 'test' && v !== 'live') throw new InvalidArgumentError('test or live');
  return v as 'test' | 'live';
};
const integer = (v: string) => {
  if (!/^\d+$/.test(v)) throw new InvalidArgumentError('a whole number');
  return Number(v);
};
/** Durations: `0`, `90s`, `30m`, `24h`, `7d`; a bare number is seconds. */
export function parseDuration(v: string): number {
  const m = /^(\d+)([smhd]?)$/.exec(v);
  if (!m) throw new InvalidArgumentError('a duration such as 0, 3600, 30m, 24h or 7d');
  return Number(m[1]) * { '': 1, s: 1, m: 60, h: 3600, d: 86400 }[m[2] as '' | 's' | 'm' | 'h' | 'd'];
}
const decimalAmount = (v: string) => {
  if (!/^\d+(\.\d+)?$/.test(v)) throw new InvalidArgumentError('a positive decimal amount');
  return Number(v);
};

async function minor(amount: number, currency: string) {
  const { toMinor, isSupportedCurrency } = await import('#shared/domain/money.ts');
  if (!isSupportedCurrency(currency)) throw new Error(`unsupported currency ${currency}`);
  return toMinor(amount, currency);
}

const merchant = program.command('merchant').description('merchants and their settings');
merchant
  .command('create')
  .description('create a merchant with test and live key pairs (shown once)')
  .requiredOption('--name <name>', 'merchant display name')
  .option('--currency <code>', 'default currency', 'PKR')
  .option('--webhook-url <url>', 'webhook endpoint for both modes (a signing secret per mode is shown once)')
  .option('--allow-insecure-webhooks', 'local development only: allow http://127.0.0.1 / localhost receivers')
  .action(async (o: { name: string; currency: string; webhookUrl?: string; allowInsecureWebhooks?: boolean }) => {
    await connect();
    const { isSupportedCurrency } = await import('#shared/domain/money.ts');
    if (!isSupportedCurrency(o.currency)) throw new Error(`unsupported currency ${o.currency}`);
    const r = await (await services()).createMerchant({ name: o.name, currency: o.currency, webhookUrl: o.webhookUrl, allowInsecureWebhooks: o.allowInsecureWebhooks });
    const out = {
      merchantId: r.merchantId,
      test: { apiKey: r.test.apiKey, secretKey: r.test.secretKey, webhookSecret: r.test.webhookSecret, keyId: r.test.keyId },
      live: { apiKey: r.live.apiKey, secretKey: r.live.secretKey, webhookSecret: r.live.webhookSecret, keyId: r.live.keyId },
    };
    print(out, (x: typeof out) =>
      [`Merchant ${o.name}: ${x.merchantId}`, ...(['test', 'live'] as const).map((m) => `  ${m}: apiKey ${x[m].apiKey}\n        secretKey ${x[m].secretKey}\n        webhookSecret ${x[m].webhookSecret ?? '(no endpoint)'}`), 'These keys are shown once. Store them now.'].join('\n'),
    );
  });
merchant
  .command('show <merchantId>')
  .description("a merchant's settings (never its keys)")
  .action(async (id: string) => {
    await connect();
    const { getMerchant } = await import('#shared/store/merchants.ts');
    const m = await getMerchant(id);
    if (!m) throw new Error(`no merchant ${id}`);
    const { webhooks, ...rest } = m;
    const out = { ...rest, webhooks: Object.fromEntries(Object.entries(webhooks).map(([k, v]) => [k, { url: v!.url, secrets: v!.secrets.length }])) };
    print(out, (x) => JSON.stringify(x, null, 2));
  });
for (const [name, status] of [['suspend', 'suspended'], ['activate', 'active']] as const) {
  merchant
    .command(`${name} <merchantId>`)
    .description(`${name} a merchant (its keys get 403 while suspended)`)
    .action(async (id: string) => {
      await connect();
      print(await (await services()).setStatus(id, status), (x: { status: string }) => `Merchant ${id} is ${x.status}.`);
    });
}
merchant
  .command('fee')
  .description('set a product fee: basis points of the amount plus a fixed amount')
  .requiredOption('--merchant <id>')
  .requiredOption('--product <product>', 'checkout | deposit | withdrawal | settlement | refund')
  .requiredOption('--bps <n>', 'basis points (100 = 1%)', integer)
  .option('--fixed <amount>', 'fixed part, in the merchant currency', decimalAmount, 0)
  .action(async (o: { merchant: string; product: string; bps: number; fixed: number }) => {
    await connect();
    const products = ['checkout', 'deposit', 'withdrawal', 'settlement', 'refund'] as const;
    if (!(products as readonly string[]).includes(o.product)) throw new Error(`--product must be one of ${products.join(', ')}`);
    const { getMerchant } = await import('#shared/store/merchants.ts');
    const m = await getMerchant(o.merchant);
    if (!m) throw new Error(`no merchant ${o.merchant}`);
    const fixedMinor = await minor(o.fixed, m.defaultCurrency);
    print(await (await services()).setFee(o.merchant, o.product as (typeof products)[number], { basisPoints: o.bps, fixedMinor }), () => `Fee for ${o.product} set.`);
  });
merchant
  .command('schedule')
  .description('set the automatic settlement schedule')
  .requiredOption('--merchant <id>')
  .requiredOption('--frequency <f>', 'manual | daily | weekly | monthly')
  .option('--day <n>', 'weekly: 1 (Mon)-7; monthly: 1-28', integer)
  .option('--hour <n>', 'UTC hour 0-23', integer, 0)
  .option('--minimum <amount>', 'balance kept back', decimalAmount, 0)
  .option('--bank-name <name>')
  .option('--iban <iban>')
  .option('--account-title <title>')
  .action(async (o: { merchant: string; frequency: string; day?: number; hour: number; minimum: number; bankName?: string; iban?: string; accountTitle?: string }) => {
    await connect();
    if (!['manual', 'daily', 'weekly', 'monthly'].includes(o.frequency)) throw new Error('--frequency must be manual, daily, weekly or monthly');
    const { getMerchant } = await import('#shared/store/merchants.ts');
    const m = await getMerchant(o.merchant);
    if (!m) throw new Error(`no merchant ${o.merchant}`);
    const destination = o.bankName && o.iban && o.accountTitle ? { bankName: o.bankName, iban: o.iban, accountTitle: o.accountTitle } : null;
    const r = await (await services()).setSchedule(o.merchant, {
      frequency: o.frequency as 'manual',
      dayOfPeriod: o.day ?? null,
      hourUtc: o.hour,
      minimumBalanceMinor: await minor(o.minimum, m.defaultCurrency),
      destination,
    });
    print(r, () => `Settlement schedule set to ${o.frequency}.`);
  });
merchant
  .command('webhook')
  .description("set a mode's webhook endpoint; prints its new signing secret once")
  .requiredOption('--merchant <id>')
  .requiredOption('--mode <mode>', 'test | live', mode)
  .requiredOption('--url <url>')
  .option('--allow-insecure-webhooks', 'local development only: allow http://127.0.0.1 receivers')
  .action(async (o: { merchant: string; mode: 'test' | 'live'; url: string; allowInsecureWebhooks?: boolean }) => {
    await connect();
    print(await (await services()).setWebhook(o.merchant, o.mode, o.url, o.allowInsecureWebhooks), (x: { webhookSecret: string }) => `Webhook set. Signing secret (shown once): ${x.webhookSecret}`);
  });

const key = program.command('key').description('API keys');
key
  .command('revoke <key>')
  .description('revoke an API key at once (the full key or its id key_...)')
  .action(async (k: string) => {
    await connect();
    print(await (await services()).revokeKey(k), (x: { keyId: string }) => `Revoked ${x.keyId}.`);
  });
key
  .command('rotate')
  .description('issue a new key pair; old keys keep working for the grace period')
  .requiredOption('--merchant <id>')
  .requiredOption('--mode <mode>', 'test | live', mode)
  .option('--grace <duration>', 'how long old keys keep working: 0, 3600, 30m, 24h, 7d', parseDuration, 24 * 3600)
  .action(async (o: { merchant: string; mode: 'test' | 'live'; grace: number }) => {
    await connect();
    print(await (await services()).rotateKeys(o.merchant, o.mode, o.grace), (x: { apiKey: string; secretKey: string }) => `New ${o.mode} pair (shown once):\n  apiKey    ${x.apiKey}\n  secretKey ${x.secretKey}`);
  });
key
  .command('list')
  .description("a merchant's keys (ids and status only)")
  .requiredOption('--merchant <id>')
  .action(async (o: { merchant: string }) => {
    await connect();
    const { listApiKeys } = await import('#shared/store/merchants.ts');
    const keys = (await listApiKeys(o.merchant)).map(({ keyId, mode: m, status, scopes, expiresAt, createdAt }) => ({ keyId, mode: m, status, scopes, expiresAt, createdAt }));
    print(keys, (x: typeof keys) => x.map((k) => `${k.keyId} ${k.mode} ${k.status}${k.expiresAt ? ` expires ${k.expiresAt}` : ''}`).join('\n') || 'no keys');
  });

program
  .command('wallet')
  .description('wallets')
  .command('credit')
  .description('fund a TEST wallet from the sandbox (refused in live mode)')
  .requiredOption('--merchant <id>')
  .requiredOption('--mode <mode>', 'test | live', mode)
  .requiredOption('--amount <amount>', 'decimal amount', decimalAmount)
  .option('--currency <code>', 'currency', 'PKR')
  .action(async (o: { merchant: string; mode: 'test' | 'live'; amount: number; currency: string }) => {
    await connect();
    const { isSupportedCurrency } = await import('#shared/domain/money.ts');
    if (!isSupportedCurrency(o.currency)) throw new Error(`unsupported currency ${o.currency}`);
    const r = await (await services()).creditTestWallet(o.merchant, o.mode, await minor(o.amount, o.currency), o.currency);
    print({ ...r, credited: o.amount }, () => `Credited ${o.amount} ${o.currency} to ${o.merchant} (${o.mode}).`);
  });

try {
  await program.parseAsync(process.argv);
  process.exit(0);
} catch (error) {
  const message = error instanceof Error ? error.message : String(error);
  if (json()) console.log(JSON.stringify({ error: message }));
  else console.error(`error: ${message}`);
  process.exit(1);
}
