import { readFileSync, writeFileSync } from 'node:fs';
import { userInfo } from 'node:os';
import { Command, InvalidArgumentError } from 'commander';
import { decimalAmount as fileAmount, isBankFileBank } from '#shared/domain/bank-file.ts';
import { isSupportedCurrency, type Currency } from '#shared/domain/money.ts';
import { allScopes, type Scope } from '#shared/domain/scopes.ts';
import { localConfig, useLocalStack } from './local/config.ts';

/**
 * `npm run ops -- <command>`: the operator's tool (docs/operator-guide.md). Against the local stack by
 * default (same PORT / DATA_DIR as `npm start`); with OPS_TARGET=aws (or --aws) against a deployed
 * stack, using TABLE_NAME and SECRETS_MASTER_KEY_ARN from the stack's outputs and your AWS
 * credentials. `--json` prints JSON on stdout for any command.
 */
const program = new Command('ops')
  .description('Operator tool for the payment gateway')
  .option('--json', 'print JSON')
  .option('--aws', 'operate on the deployed stack (TABLE_NAME, SECRETS_MASTER_KEY_ARN, AWS credentials)')
  .option('--outputs <file>', 'with --aws: the stack outputs `cdk deploy --outputs-file` wrote (table, queues, secrets, base URL)')
  .showHelpAfterError();

const json = () => Boolean(program.opts().json);

function print(result: unknown, human: (r: never) => string) {
  console.log(json() ? JSON.stringify(result, null, 2) : human(result as never));
}

const onAws = () => Boolean(program.opts().aws || process.env.OPS_TARGET === 'aws');

/** The environment each stack output stands for (infra/gateway-stack.ts CfnOutputs). */
const outputVariables: Record<string, string> = {
  TableName: 'TABLE_NAME',
  QueueUrl: 'QUEUE_URL',
  DeadLetterQueueUrl: 'DEAD_LETTER_QUEUE_URL',
  SecretsMasterKeyArn: 'SECRETS_MASTER_KEY_ARN',
  PublicPathsKeyArn: 'SECRETS_PUBLIC_KEY_ARN',
  DashboardTotpKeyArn: 'SECRETS_TOTP_KEY_ARN',
  PublicBaseUrl: 'PUBLIC_BASE_URL',
};

/**
 * `--outputs cdk-outputs.json`: the file `cdk deploy --outputs-file` writes ({ <stack>: { <output>: value } },
 * one stack) sets the table, queues, secrets and public base URL; its values win over the environment.
 */
export function applyStackOutputs(file: string): void {
  const parsed = JSON.parse(readFileSync(file, 'utf8')) as Record<string, Record<string, string>>;
  const stacks = Object.entries(parsed).filter(([, outputs]) => outputs && typeof outputs === 'object' && 'TableName' in outputs);
  if (stacks.length !== 1) throw new Error(`${file}: expected the outputs of one gateway stack (with TableName), found ${stacks.length}`);
  for (const [output, variable] of Object.entries(outputVariables)) {
    const value = stacks[0]![1][output];
    if (value) process.env[variable] = value;
  }
}

/**
 * Links the operator hands out carry the deployed host: against AWS there is no localhost default
 * (shared/services/dashboard-auth.ts dashboardBaseUrl), so without PublicBaseUrl it refuses before writing anything.
 */
function requirePublicBaseUrl(): void {
  if (onAws() && !process.env.PUBLIC_BASE_URL) {
    throw new Error(
      'The deployed stack’s public base URL is unknown: pass --outputs cdk-outputs.json (its PublicBaseUrl output) ' +
        'or set PUBLIC_BASE_URL. Refusing to print a localhost link.',
    );
  }
}

async function connect() {
  if (onAws()) {
    const outputs: string | undefined = program.opts().outputs;
    if (outputs) applyStackOutputs(outputs);
    if (!process.env.TABLE_NAME) throw new Error('TABLE_NAME is required with --aws (--outputs, or the stack output TableName)');
    if (!process.env.SECRETS_MASTER_KEY_ARN)
      throw new Error('SECRETS_MASTER_KEY_ARN is required with --aws (see the stack output SecretsMasterKeyArn)');
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
    throw new Error(
      `The local stack is not running on port ${config.port} ` +
        `(DynamoDB Local ${process.env.DYNAMODB_ENDPOINT}). Start it ` +
        `with \`npm start\` (same PORT and DATA_DIR).`,
    );
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
function parseScopes(v: string): Scope[] {
  const scopes = v
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean);
  const unknown = scopes.filter((s) => !(allScopes as readonly string[]).includes(s));
  if (scopes.length === 0 || unknown.length) throw new InvalidArgumentError(`scopes are ${allScopes.join(', ')}`);
  return scopes as Scope[];
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
  .option('--scopes <list>', `comma-separated key scopes (default all: ${allScopes.join(',')})`, parseScopes)
  .action(async (o: { name: string; currency: string; webhookUrl?: string; allowInsecureWebhooks?: boolean; scopes?: Scope[] }) => {
    await connect();
    const { isSupportedCurrency } = await import('#shared/domain/money.ts');
    if (!isSupportedCurrency(o.currency)) throw new Error(`unsupported currency ${o.currency}`);
    const r = await (await services()).createMerchant({
      name: o.name,
      currency: o.currency,
      webhookUrl: o.webhookUrl,
      allowInsecureWebhooks: o.allowInsecureWebhooks,
      scopes: o.scopes,
    });
    const out = {
      merchantId: r.merchantId,
      test: { apiKey: r.test.apiKey, secretKey: r.test.secretKey, webhookSecret: r.test.webhookSecret, keyId: r.test.keyId },
      live: { apiKey: r.live.apiKey, secretKey: r.live.secretKey, webhookSecret: r.live.webhookSecret, keyId: r.live.keyId },
    };
    print(out, (x: typeof out) =>
      [
        `Merchant ${o.name}: ${x.merchantId}`,
        ...(['test', 'live'] as const).map(
          (m) => `  ${m}: apiKey ${x[m].apiKey}\n        secretKey ${x[m].secretKey}\n        webhookSecret ${x[m].webhookSecret}`,
        ),
        'These keys are shown once. Store them now.',
      ].join('\n'),
    );
  });
merchant
  .command('show <merchantId>')
  .description("a merchant's profile: status, fees, settlement schedule, approvals, webhooks (never its keys or secrets)")
  .action(async (id: string) => {
    await connect();
    const { getMerchant } = await import('#shared/store/merchants.ts');
    const m = await getMerchant(id);
    if (!m) throw new Error(`no merchant ${id}`);
    const { merchantProfileView, describeMerchantProfile } = await import('#shared/services/merchant-profile.ts');
    print(merchantProfileView(m), describeMerchantProfile);
  });
for (const [name, status] of [
  ['suspend', 'suspended'],
  ['activate', 'active'],
] as const) {
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
    print(
      await (await services()).setFee(o.merchant, o.product as (typeof products)[number], { basisPoints: o.bps, fixedMinor }),
      () => `Fee for ${o.product} set.`,
    );
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
  .action(
    async (o: {
      merchant: string;
      frequency: string;
      day?: number;
      hour: number;
      minimum: number;
      bankName?: string;
      iban?: string;
      accountTitle?: string;
    }) => {
      await connect();
      if (!['manual', 'daily', 'weekly', 'monthly'].includes(o.frequency))
        throw new Error('--frequency must be manual, daily, weekly or monthly');
      const { getMerchant } = await import('#shared/store/merchants.ts');
      const m = await getMerchant(o.merchant);
      if (!m) throw new Error(`no merchant ${o.merchant}`);
      const destination =
        o.bankName && o.iban && o.accountTitle ? { bankName: o.bankName, iban: o.iban, accountTitle: o.accountTitle } : null;
      const r = await (await services()).setSchedule(o.merchant, {
        frequency: o.frequency as 'manual',
        dayOfPeriod: o.day ?? null,
        hourUtc: o.hour,
        minimumBalanceMinor: await minor(o.minimum, m.defaultCurrency),
        destination,
      });
      print(r, () => `Settlement schedule set to ${o.frequency}.`);
    },
  );
merchant
  .command('webhook')
  .description("set a mode's webhook endpoint (prints its new signing secret once), or --enable a disabled one")
  .requiredOption('--merchant <id>')
  .requiredOption('--mode <mode>', 'test | live', mode)
  .option('--url <url>', 'the endpoint URL (with --enable: a callbackUrl to re-enable instead of the endpoint)')
  .option('--allow-insecure-webhooks', 'local development only: allow http://127.0.0.1 receivers')
  .option('--enable', 're-enable a destination disabled after HTTP 410 or 5 days of failures (docs/webhooks-operations.md)')
  .option(
    '--events <types>',
    'event types sent to the endpoint: comma-separated ' +
      '(TransactionStatusChanged,RefundStatusChanged,SettlementStatusChanged) or "all" (the default)',
  )
  .action(
    async (o: {
      merchant: string;
      mode: 'test' | 'live';
      url?: string;
      allowInsecureWebhooks?: boolean;
      enable?: boolean;
      events?: string;
    }) => {
      await connect();
      if (o.enable) {
        print(
          await (await services()).enableWebhook(o.merchant, o.mode, o.url),
          (x: { url: string }) => `Webhook destination ${x.url} enabled.`,
        );
        return;
      }
      if (!o.url && o.events === undefined) throw new InvalidArgumentError('--url or --events is required (or --enable)');
      const svc = await services();
      print(
        await svc.setWebhook(o.merchant, o.mode, o.url, o.allowInsecureWebhooks, svc.parseEventTypes(o.events)),
        (x: { webhookSecret: string | null; events: string[] }) =>
          [
            x.webhookSecret
              ? `Webhook set. Signing secret (shown once): ${x.webhookSecret}`
              : 'Webhook set; its signing secret is unchanged.',
            `Event types: ${x.events.join(', ')}`,
          ].join('\n'),
      );
    },
  );

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
  .option('--scopes <list>', 'scopes of the new key (default: those of the key it replaces)', parseScopes)
  .action(async (o: { merchant: string; mode: 'test' | 'live'; grace: number; scopes?: Scope[] }) => {
    await connect();
    print(
      await (await services()).rotateKeys(o.merchant, o.mode, o.grace, new Date(), o.scopes),
      (x: { apiKey: string; secretKey: string }) => `New ${o.mode} pair (shown once):\n  apiKey    ${x.apiKey}\n  secretKey ${x.secretKey}`,
    );
  });
key
  .command('list')
  .description("a merchant's keys (ids and status only)")
  .requiredOption('--merchant <id>')
  .action(async (o: { merchant: string }) => {
    await connect();
    const { listApiKeys } = await import('#shared/store/merchants.ts');
    const keys = (await listApiKeys(o.merchant)).map(({ keyId, mode: m, status, scopes, expiresAt, createdAt }) => ({
      keyId,
      mode: m,
      status,
      scopes,
      expiresAt,
      createdAt,
    }));
    print(
      keys,
      (x: typeof keys) =>
        x.map((k) => `${k.keyId} ${k.mode} ${k.status}${k.expiresAt ? ` expires ${k.expiresAt}` : ''}`).join('\n') || 'no keys',
    );
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
  .option('--reference <ref>', 'makes a retried command credit once (the same reference never credits twice)')
  .action(async (o: { merchant: string; mode: 'test' | 'live'; amount: number; currency: string; reference?: string }) => {
    await connect();
    const { isSupportedCurrency } = await import('#shared/domain/money.ts');
    if (!isSupportedCurrency(o.currency)) throw new Error(`unsupported currency ${o.currency}`);
    const r = await (await services()).creditTestWallet(o.merchant, o.mode, await minor(o.amount, o.currency), o.currency, o.reference);
    print({ ...r, credited: o.amount }, () =>
      r.alreadyCredited
        ? `Already credited under reference ${o.reference} (journal ${r.journalId}); nothing changed.`
        : `Credited ${o.amount} ${o.currency} to ${o.merchant} (${o.mode}).`,
    );
  });

merchant
  .command('webhook-secret')
  .description('webhook signing secrets')
  .command('rotate')
  .description("new signing secret for a mode's endpoint (shown once); old ones keep signing during the overlap")
  .requiredOption('--merchant <id>')
  .requiredOption('--mode <mode>', 'test | live', mode)
  .option('--overlap <duration>', 'how long old secrets keep signing too: 0, 3600, 30m, 24h, 7d', parseDuration, 24 * 3600)
  .action(async (o: { merchant: string; mode: 'test' | 'live'; overlap: number }) => {
    await connect();
    const { rotateWebhookSecret } = await import('#shared/webhooks/secrets.ts');
    print(
      await rotateWebhookSecret(o.merchant, o.mode, o.overlap),
      (x: { webhookSecret: string; previousSecrets: { expiresAt: string }[] }) =>
        [
          `New ${o.mode} webhook signing secret (shown once): ${x.webhookSecret}`,
          ...x.previousSecrets.map((p) => `  previous secret signs until ${p.expiresAt}`),
        ].join('\n'),
    );
  });

/** The webhook queues: `npm start`'s local SQS (same PORT), or with --aws the stack's QUEUE_URL and DEAD_LETTER_QUEUE_URL. */
async function webhookQueues() {
  if (onAws()) {
    const outputs: string | undefined = program.opts().outputs;
    if (outputs) applyStackOutputs(outputs);
    if (!process.env.QUEUE_URL || !process.env.DEAD_LETTER_QUEUE_URL) {
      throw new Error(
        'QUEUE_URL and DEAD_LETTER_QUEUE_URL are required with --aws (--outputs, or the stack outputs QueueUrl and DeadLetterQueueUrl)',
      );
    }
  } else {
    const { localQueueUrls } = await import('./local/queues.ts');
    const urls = localQueueUrls(localConfig().sqsPort);
    process.env.AWS_ENDPOINT_URL_SQS = urls.endpoint;
    process.env.QUEUE_URL = urls.queueUrl;
    process.env.DEAD_LETTER_QUEUE_URL = urls.deadLetterQueueUrl;
  }
  const queue = await import('#shared/webhooks/queue.ts');
  try {
    await queue.queueDepths();
  } catch (error) {
    throw new Error(
      `The webhook queues are not reachable ` +
        `(${process.env.QUEUE_URL}): ${(error as Error).message}. ` +
        `Locally, start them with \`npm start\` (same PORT).`,
    );
  }
  return queue;
}

const webhooks = program.command('webhooks').description('webhook queue and dead letters');
webhooks
  .command('status')
  .description('messages waiting, in flight and dead-lettered')
  .action(async () => {
    const queue = await webhookQueues();
    print(
      await queue.queueDepths(),
      (x: { queue: { visible: number; inFlight: number; delayed: number }; deadLetters: { visible: number } }) =>
        `webhook queue: ${x.queue.visible} waiting, ${x.queue.inFlight} in flight, ${x.queue.delayed} delayed ` +
        `retries (longer retries are parked in the table)\ndead letters: ${x.deadLetters.visible}`,
    );
  });
webhooks
  .command('redrive')
  .description('move every dead letter back to the webhook queue (an SQS message move task); each gets a new round of attempts')
  .option('--rate <n>', 'messages per second (default: as fast as SQS allows)', integer)
  .action(async (o: { rate?: number }) => {
    const queue = await webhookQueues();
    const result = await queue.redriveDeadLetters(o.rate ? { maxPerSecond: o.rate } : {});
    if (result.status === 'FAILED' || result.status === 'CANCELLED')
      throw new Error(`redrive ${result.status} after ${result.moved} message(s): ${result.failureReason ?? 'no reason given'}`);
    print(result, (x: { status: string; moved: number; failureReason: string | null }) =>
      x.status === 'NOTHING_TO_MOVE'
        ? 'No dead letters.'
        : `Redrive ${x.status}: ${x.moved} message(s) moved back.${x.failureReason ? ` ${x.failureReason}` : ''}`,
    );
  });

webhooks
  .command('replay')
  .description(
    'send again the outbox events committed in a time window, from the table (idempotent by event id: delivered events are skipped)',
  )
  .requiredOption('--since <iso>', 'ISO 8601 start (inclusive)')
  .option('--until <iso>', 'ISO 8601 end (inclusive; default now)')
  .option('--merchant <id>', 'only this merchant')
  .option('--mode <mode>', 'test | live', mode)
  .action(async (o: { since: string; until?: string; merchant?: string; mode?: 'test' | 'live' }) => {
    const iso = (v: string, name: string) => {
      const t = Date.parse(v);
      if (Number.isNaN(t)) throw new InvalidArgumentError(`${name} must be an ISO 8601 time`);
      return new Date(t).toISOString();
    };
    const since = iso(o.since, '--since');
    const until = o.until ? iso(o.until, '--until') : new Date().toISOString();
    await connect();
    await webhookQueues();
    const { replayEvents } = await import('#shared/webhooks/replay.ts');
    const r = await replayEvents({ since, until, ...(o.merchant ? { merchantId: o.merchant } : {}), ...(o.mode ? { mode: o.mode } : {}) });
    if (r.failed) process.exitCode = 1;
    print(
      r,
      (x: { scanned: number; sent: number; alreadyDelivered: number; failed: number }) =>
        `Replay ${since} .. ${until}: ${x.scanned} event(s), ${x.sent} sent, ${x.alreadyDelivered} already delivered` +
        `${x.failed ? `, ${x.failed} NOT accepted by the queue (run again)` : ''}.`,
    );
  });

/** Withdrawals awaiting approval. ID is the paymentIntentId; with --merchant and --mode also an orderRef or transactionReference. */
const withdrawal = program.command('withdrawal').description('approve or reject Pending withdrawals (payouts)');
const withdrawalScope = (o: { merchant?: string; mode?: 'test' | 'live' }) => {
  if (Boolean(o.merchant) !== Boolean(o.mode)) throw new Error('--merchant and --mode go together');
  return o.merchant && o.mode ? { merchantId: o.merchant, mode: o.mode } : undefined;
};
const describeWithdrawal = (x: {
  paymentIntentId: string;
  status: string;
  payoutInfo: { errorCode: string | null; errorDetails: string | null } | null;
}) =>
  `Withdrawal ${x.paymentIntentId} is ${x.status}` +
  `${x.payoutInfo?.errorCode ? ` (${x.payoutInfo.errorCode}: ${x.payoutInfo.errorDetails})` : ''}.`;
withdrawal
  .command('list')
  .description("a merchant's withdrawals, newest first (default: those awaiting approval)")
  .requiredOption('--merchant <id>')
  .requiredOption('--mode <mode>', 'test | live', mode)
  .option('--status <status>', 'Pending | Processing | Completed | Failed | Cancelled | all', 'Pending')
  .action(async (o: { merchant: string; mode: 'test' | 'live'; status: string }) => {
    await connect();
    const { listIntentsOfMerchant } = await import('#shared/store/intents.ts');
    const { transactionView } = await import('#shared/services/transactions.ts');
    const rows = (await listIntentsOfMerchant(o.merchant, o.mode))
      .filter((i) => i.intentType === 'withdrawal' && (o.status === 'all' || i.status === o.status))
      .map(transactionView)
      .map(({ paymentIntentId, merchantReference, amount, currency, fee, status, createdAt, payoutInfo }) => ({
        paymentIntentId,
        merchantReference,
        amount,
        currency,
        fee,
        status,
        createdAt,
        payoutInfo,
      }));
    print(
      rows,
      (x: typeof rows) =>
        x
          .map((w) => `${w.paymentIntentId} ${w.merchantReference} ${w.amount} ${w.currency} (fee ${w.fee}) ${w.status} ${w.createdAt}`)
          .join('\n') || 'none',
    );
  });
withdrawal
  .command('approve <id>')
  .description(
    'approve a Pending withdrawal: it is submitted to the bank rail (once); ' +
      "under the merchant's payout-approvals setting (both: recorded until its approver approves too)",
  )
  .option('--merchant <id>', 'with --mode: ID may be an orderRef or transactionReference')
  .option('--mode <mode>', 'test | live', mode)
  .option(
    '--receiver-cnic <13 digits>',
    "the receiver's CNIC, when the payout's rail needs it and the request had none (live JazzCash wallets)",
  )
  .action(async (id: string, o: { merchant?: string; mode?: 'test' | 'live'; receiverCnic?: string }) => {
    await connect();
    const { operatorApproveWithdrawal } = await import('#shared/services/approvals.ts');
    const given = o.receiverCnic !== undefined ? { receiverCnic: o.receiverCnic.replaceAll('-', '') } : {};
    const outcome = await operatorApproveWithdrawal(id, withdrawalScope(o), given);
    if (outcome.state === 'approved') print(outcome.result, describeWithdrawal);
    else
      print(
        { state: 'waiting', waitingFor: outcome.waitingFor, approvals: outcome.approvals },
        () => "The operator's approval is recorded; the payout waits for the merchant's approver (payout approvals: both).",
      );
  });
withdrawal
  .command('reject <id>')
  .description('reject a Pending withdrawal (Cancelled, funds released); the reason is shown to the merchant and may reach the customer')
  .option('--reason <text>', 'why (payoutInfo.errorDetails)')
  .option('--merchant <id>', 'with --mode: ID may be an orderRef or transactionReference')
  .option('--mode <mode>', 'test | live', mode)
  .action(async (id: string, o: { reason?: string; merchant?: string; mode?: 'test' | 'live' }) => {
    await connect();
    const { rejectWithdrawal } = await import('#shared/services/withdrawal-operator.ts');
    print(await rejectWithdrawal(id, o.reason, withdrawalScope(o)), describeWithdrawal);
  });

/**
 * Wallet approvals and captured live card payments held because the merchant was suspended
 * (docs/security-and-limits.md): listed, then released (Completed, wallet credited once) or
 * declined (Failed; refund the customer at the wallet or card provider). ID is the paymentIntentId
 * of the deposit or checkout.
 */
const depositCli = program
  .command('deposit')
  .description('approvals held while a merchant was suspended (deposits, wallet checkouts, live card payments)');
const describeHeld = (
  x: {
    paymentIntentId: string;
    intentType: string;
    status: string;
    amount: number;
    currency: string;
    merchantId: string;
    merchantStatus?: string | null;
    method: 'card' | 'wallet';
  },
  refundAt: Record<'card' | 'wallet', string>,
) =>
  `${x.intentType} ${x.paymentIntentId} (${x.method}) of merchant ${x.merchantId}${x.merchantStatus ? ` (${x.merchantStatus})` : ''}: ` +
  `${x.amount} ${x.currency} is ${x.status}.` +
  (x.status === 'Failed' ? ` Now ${refundAt[x.method]}.` : '');
depositCli
  .command('held')
  .description('list held wallet approvals and card payments, oldest first')
  .action(async () => {
    await connect();
    const rows = await (await import('#shared/services/held-decisions.ts')).listHeld();
    print(
      rows,
      (x: typeof rows) =>
        x
          .map(
            (h) =>
              `${h.paymentIntentId} ${h.intentType} (${h.method}) merchant ${h.merchantId} ${h.amount} ${h.currency} ` +
              `held ${h.heldApproval.heldAt} (${h.heldApproval.source})`,
          )
          .join('\n') || 'none',
    );
  });
for (const [name, description] of [
  ['release', 'credit a held approval: Completed, the wallet credited once (the merchant may still be suspended)'],
  [
    'decline',
    'refuse a held approval: Failed, nothing credited; then refund the customer at the wallet provider ' +
      '(a card payment: void or refund the card at the card provider)',
  ],
] as const) {
  depositCli
    .command(`${name} <paymentIntentId>`)
    .description(description)
    .action(async (id: string) => {
      await connect();
      const held = await import('#shared/services/held-decisions.ts');
      print(await held.decideHeldApproval(id, name), (x) => describeHeld(x, held.refundAt));
    });
}

/** Settlements and refunds awaiting the operator (docs/merchant-guide.md, Transaction lookup). ID is the settlement or refund id. */
const settlementCli = program.command('settlement').description('approve, reject or cancel Pending settlements');
const describeSettlement = (x: {
  id: string;
  status: number;
  failureReason: string | null;
  fxRate: number | null;
  payoutAmount: number | null;
  payoutCurrency: string;
}) =>
  `Settlement ${x.id} is ${['Pending', 'Approved', 'Processing', 'Completed', 'Failed', 'Cancelled'][x.status]} (${x.status})` +
  `${x.payoutAmount !== null ? `, pays ${x.payoutAmount} ${x.payoutCurrency}${x.fxRate !== null ? ` at ${x.fxRate}` : ''}` : ''}` +
  `${x.failureReason ? `: ${x.failureReason}` : ''}.`;
settlementCli
  .command('approve <id>')
  .description(
    'approve a Pending settlement: the FX rate is locked now and processing starts (test mode: within seconds); ' +
      "under the merchant's payout-approvals setting",
  )
  .action(async (id: string) => {
    await connect();
    const outcome = await (await import('#shared/services/approvals.ts')).operatorApproveSettlement(id);
    if (outcome.state === 'approved') print(outcome.result, describeSettlement);
    else
      print(
        { state: 'waiting', waitingFor: outcome.waitingFor, approvals: outcome.approvals },
        () => "The operator's approval is recorded; the settlement waits for the merchant's approver (payout approvals: both).",
      );
  });
settlementCli
  .command('reject <id>')
  .description('reject a Pending settlement (Cancelled, funds released); the reason is shown to the merchant as failureReason')
  .option('--reason <text>', 'why')
  .action(async (id: string, o: { reason?: string }) => {
    await connect();
    print(await (await import('#shared/services/settlements.ts')).rejectSettlement(id, o.reason), describeSettlement);
  });
settlementCli
  .command('cancel <id>')
  .description('cancel a Pending settlement (Cancelled, funds released)')
  .action(async (id: string) => {
    await connect();
    print(await (await import('#shared/services/settlements.ts')).cancelSettlement(id), describeSettlement);
  });

/**
 * The bank transfer file rail (docs/providers/bank-file.md): live payouts and settlements to bank
 * accounts queue as lines; the operator exports them as one file per bank, uploads it to the bank's
 * corporate portal, and marks each line paid (the bank's reference) or failed. Every step is audited
 * with `--by` (default: OPS_OPERATOR, else the signed-in user name).
 */
const bankFileCli = program.command('bank-file').description('bulk-transfer files of live bank payouts and settlements');
const operatorName = (by?: string) => by ?? process.env.OPS_OPERATOR ?? userInfo().username;
const bankCode = (v: string) => {
  if (!isBankFileBank(v)) throw new InvalidArgumentError('a bank code of 2-12 capital letters or digits, e.g. HBL');
  return v;
};
const fileCurrency = (v: string) => {
  if (!isSupportedCurrency(v) || v === 'USDT') throw new InvalidArgumentError('a currency a bank pays in: PKR, USD, EUR, GBP, AED or SAR');
  return v;
};
const fileSummary = (x: {
  batch: { batchId: string; bank: string; count: number; totalMinor: number; currency: Currency; digest: string };
}) =>
  `Bank file ${x.batch.batchId} (${x.batch.bank}): ${x.batch.count} lines, ` +
  `total ${fileAmount(x.batch.totalMinor, x.batch.currency)} ${x.batch.currency}, sha256 ${x.batch.digest}`;
/** The file to --out (or stdout, its summary then on stderr); --json prints both as JSON. */
function printFile(file: { batch: Parameters<typeof fileSummary>[0]['batch']; csv: string }, out: string | undefined, note: string) {
  if (out) writeFileSync(out, file.csv);
  if (json()) return print({ ...file, ...(out ? { out } : {}), note }, () => '');
  if (!out) process.stdout.write(file.csv);
  (out ? console.log : console.error)(`${note}${fileSummary(file)}${out ? `, written to ${out}` : ''}`);
}
bankFileCli
  .command('list')
  .description("what is queued for a bank's next file, and its newest files")
  .requiredOption('--bank <code>', "the operator's bank (the live providers' bankFile.bank)", bankCode)
  .option('--currency <code>', "the file's currency (one per file)", fileCurrency, 'PKR')
  .action(async (o: { bank: string; currency: Currency }) => {
    await connect();
    const r = await (await import('#shared/services/bank-file.ts')).bankFileQueue(o.bank, o.currency);
    print(
      r,
      (x: typeof r) =>
        `${x.queued.length} lines queued for the next ${o.bank} ${o.currency} file` +
        x.queued
          .map((l) => `\n  ${l.reference} ${l.kind} ${fileAmount(l.amountMinor, l.currency)} ${l.currency} queued ${l.queuedAt}`)
          .join('') +
        `\nFiles: ${
          x.batches.map((b) => `\n  ${b.batchId} ${b.count} lines ${b.createdAt} by ${b.createdBy} sha256 ${b.digest}`).join('') || 'none'
        }`,
    );
  });
bankFileCli
  .command('export')
  .description(
    'the queued lines of a bank as ONE new file (a line is never in two files); with nothing queued, ' +
      'the newest file again, byte for byte (do not upload a file twice: the bank would pay it twice)',
  )
  .requiredOption('--bank <code>', "the operator's bank", bankCode)
  .option('--currency <code>', "the file's currency (one per file)", fileCurrency, 'PKR')
  .option('--layout <file.json>', "the bank's CSV layout (docs/providers/bank-file.md); default: the generic layout")
  .option('--out <file>', 'write the CSV there (default: stdout)')
  .option('--by <name>', 'who exports (audited)')
  .action(async (o: { bank: string; currency: Currency; layout?: string; out?: string; by?: string }) => {
    await connect();
    const { parseLayout } = await import('#shared/domain/bank-file.ts');
    const layout = o.layout ? parseLayout(JSON.parse(readFileSync(o.layout, 'utf8'))) : undefined;
    const { exportBankFile } = await import('#shared/services/bank-file.ts');
    const file = await exportBankFile({ bank: o.bank, currency: o.currency, actor: operatorName(o.by), ...(layout ? { layout } : {}) });
    if (!file) return print({ batch: null }, () => `Nothing queued for ${o.bank} ${o.currency} and no file exported yet.`);
    printFile(file, o.out, file.created ? 'New ' : `Nothing new queued: the newest file again, exported ${file.batch.createdAt}. `);
  });
bankFileCli
  .command('reprint <batchId>')
  .description('a file again, byte for byte (its digest checked), audited')
  .option('--out <file>', 'write the CSV there (default: stdout)')
  .option('--by <name>', 'who reprints (audited)')
  .action(async (batchId: string, o: { out?: string; by?: string }) => {
    await connect();
    const file = await (await import('#shared/services/bank-file.ts')).reprintBankFile(batchId, operatorName(o.by));
    printFile(file, o.out, 'Reprint: ');
  });
bankFileCli
  .command('show <batchId>')
  .description("a file's lines (queued in it, paid, failed) and every step on it (who, when, digest)")
  .action(async (batchId: string) => {
    await connect();
    const r = await (await import('#shared/services/bank-file.ts')).showBankFile(batchId);
    print(
      r,
      (x: typeof r) =>
        `${fileSummary(x)}\n` +
        x.lines
          .map(
            (l) =>
              `  ${l.reference} ${l.kind} ${fileAmount(l.amountMinor, l.currency)} ${l.currency} ` +
              `${l.state === 'exported' ? 'awaiting the bank' : l.state}` +
              `${l.bankReference ? ` bank reference ${l.bankReference}` : ''}${l.failureReason ? ` (${l.failureReason})` : ''}`,
          )
          .join('\n') +
        '\nSteps:\n' +
        x.audit
          .map((a) => `  ${a.at} ${a.actor} ${a.action}${a.reference ? ` ${a.reference}` : ''}${a.detail ? `: ${a.detail}` : ''}`)
          .join('\n'),
    );
  });
bankFileCli
  .command('mark <batchId> <reference> <outcome>')
  .description(
    "the bank's answer for one line, once: `paid --bank-ref <ref>` completes the payout or settlement, " +
      '`failed --reason <text>` fails it and releases its hold; the same answer again changes nothing, another is refused',
  )
  .option('--bank-ref <ref>', "paid: the bank's reference of the transfer")
  .option('--reason <text>', 'failed: why the bank did not pay (shown to the merchant)')
  .option('--by <name>', 'who marks (audited)')
  .action(async (batchId: string, reference: string, outcome: string, o: { bankRef?: string; reason?: string; by?: string }) => {
    if (outcome !== 'paid' && outcome !== 'failed') throw new InvalidArgumentError('the outcome is paid or failed');
    if (outcome === 'paid' && !o.bankRef) throw new Error("paid needs --bank-ref <the bank's reference>");
    if (outcome === 'failed' && !o.reason) throw new Error('failed needs --reason <text>');
    await connect();
    const { markBankFile } = await import('#shared/services/bank-file.ts');
    const r = await markBankFile({
      batchId,
      reference,
      actor: operatorName(o.by),
      outcome: outcome === 'paid' ? { state: 'paid', bankReference: o.bankRef! } : { state: 'failed', failureReason: o.reason! },
    });
    print(
      r,
      (x: typeof r) =>
        `Line ${reference} of ${batchId} is ${x.line.state}${x.changed ? '' : ' (already)'}; ` +
        `the ${x.line.kind} is ${x.status ?? 'not found'}.`,
    );
  });

const refundCli = program.command('refund').description('approve, reject or cancel Pending refunds');
const describeRefund = (x: { id: string; status: number; amount: number; currency: string; failureReason: string | null }) =>
  `Refund ${x.id} of ${x.amount} ${x.currency} is ` +
  `${['Pending', 'Approved', 'Processing', 'Completed', 'Failed', 'Cancelled', 'Rejected', 'Expired'][x.status]} (${x.status})` +
  `${x.failureReason ? `: ${x.failureReason}` : ''}.`;
refundCli
  .command('approve <id>')
  .description(
    'approve a Pending refund: amount + fee are held from the wallet and processing starts (test mode: done within seconds); ' +
      "under the merchant's approval setting (refused under merchant; under both it waits for the merchant's approver too)",
  )
  .action(async (id: string) => {
    await connect();
    const outcome = await (await import('#shared/services/approvals.ts')).operatorApproveRefund(id);
    if (outcome.state === 'approved') print(outcome.result, describeRefund);
    else
      print(
        { state: 'waiting', waitingFor: outcome.waitingFor, approvals: outcome.approvals },
        () => "The operator's approval is recorded; the refund waits for the merchant's approver (payout approvals: both).",
      );
  });
refundCli
  .command('reject <id>')
  .description('reject a Pending refund (Rejected); the reason is shown to the merchant as failureReason')
  .option('--reason <text>', 'why')
  .action(async (id: string, o: { reason?: string }) => {
    await connect();
    print(await (await import('#shared/services/refunds.ts')).rejectRefund(id, o.reason), describeRefund);
  });
refundCli
  .command('cancel <id>')
  .description('cancel a Pending refund (Cancelled)')
  .action(async (id: string) => {
    await connect();
    print(await (await import('#shared/services/refunds.ts')).cancelRefund(id), describeRefund);
  });

/** Merchant dashboard users (docs/dashboard.md). There is no e-mail service: the invite link is printed to pass on. */
const userCli = program.command('user').description('merchant dashboard users: invite, reset 2FA, disable');
const describeUser = (x: { userId: string; email: string; role: string; status: string; twoFactor: string }) =>
  `User ${x.userId} <${x.email}> (${x.role}) is ${x.status}, two-factor ${x.twoFactor}; every session of the user has ended.`;
userCli
  .command('invite')
  .description('invite a dashboard user: prints { userId, inviteUrl } (the link works once, for 72 hours)')
  .requiredOption('--merchant <id>', 'merchant id')
  .requiredOption('--email <email>', "the user's e-mail address (their sign-in name)")
  .requiredOption('--role <role>', 'admin | developer | finance | approver | viewer')
  .action(async (o: { merchant: string; email: string; role: string }) => {
    await connect();
    requirePublicBaseUrl();
    const { inviteUser } = await import('#shared/services/dashboard-auth.ts');
    const r = await inviteUser(
      { merchantId: o.merchant, email: o.email, role: o.role },
      (await import('#shared/services/dashboard-auth.ts')).operatorActor,
    );
    print(
      { userId: r.userId, inviteUrl: r.inviteUrl, email: r.email, role: r.role, expiresAt: r.expiresAt },
      (x: typeof r) =>
        `Invited ${x.email} as ${x.role} (user ${x.userId}). Pass on this link; it works once, until ${x.expiresAt}:\n${x.inviteUrl}`,
    );
  });
userCli
  .command('reset-2fa <userId>')
  .description("remove a user's authenticator and recovery codes and end their sessions; they set up 2FA again at their next sign-in")
  .action(async (id: string) => {
    await connect();
    print(await (await import('#shared/services/dashboard-auth.ts')).resetTwoFactor(id), describeUser);
  });
userCli
  .command('disable <userId>')
  .description('disable a dashboard user: no more sign-ins, every session ends at once')
  .action(async (id: string) => {
    await connect();
    print(await (await import('#shared/services/dashboard-auth.ts')).disableUser(id), describeUser);
  });

const shardsCli = program.command('shards').description("a big merchant's heat spread over partitions (docs/scaling.md)");
shardsCli
  .command('show')
  .description("a merchant's shard count in a mode (1 = never sharded)")
  .requiredOption('--merchant <id>', 'merchant id')
  .requiredOption('--mode <mode>', 'test | live', mode)
  .action(async (o: { merchant: string; mode: 'test' | 'live' }) => {
    await connect();
    const { getShardConfig } = await import('#shared/store/shards.ts');
    const c = await getShardConfig(o.merchant, o.mode);
    print(
      { merchantId: o.merchant, mode: o.mode, ...c },
      (x: typeof c) =>
        `${o.merchant} (${o.mode}): ${x.shards} shard(s)` +
        `${x.effectiveAt ? `, writers use them from ${x.effectiveAt} (${x.previousShards} before)` : ''}`,
    );
  });
shardsCli
  .command('raise')
  .description(
    "raise a merchant's shard count without downtime: readers read the new shards at " +
      'once, writers use them two cache periods later (2 min); never lowers it',
  )
  .requiredOption('--merchant <id>', 'merchant id')
  .requiredOption('--mode <mode>', 'test | live', mode)
  .requiredOption('--shards <n>', 'the new count, 1-64', (v) => Number(v))
  .option('--immediate', 'effective at once: only for a merchant with no traffic (before go-live)')
  .action(async (o: { merchant: string; mode: 'test' | 'live'; shards: number; immediate?: boolean }) => {
    await connect();
    const { getMerchant } = await import('#shared/store/merchants.ts');
    if (!(await getMerchant(o.merchant))) throw new Error(`no merchant ${o.merchant}`);
    const { raiseShards } = await import('#shared/store/shards.ts');
    const c = await raiseShards(o.merchant, o.mode, o.shards, { immediate: o.immediate });
    print(
      { merchantId: o.merchant, mode: o.mode, ...c },
      (x: typeof c) =>
        `${o.merchant} (${o.mode}): ${x.shards} shard(s); writers use them ` +
        `from ${x.effectiveAt}. Data already written stays in shard 0 and is still read.`,
    );
  });

program
  .command('migrate-transaction-index')
  .description(
    'give every transaction its type-and-status index keys (GSI3); safe to re-run, ' +
      'needed once for transactions created before the transaction list',
  )
  .action(async () => {
    await connect();
    const { backfillIntentIndex } = await import('#shared/store/intents.ts');
    const updated = await backfillIntentIndex();
    print({ updated }, () => `Indexed ${updated} transaction(s); the others already were.`);
  });

program
  .command('migrate-refund-index')
  .description(
    "give every refund its merchant-wide list keys (GSI3: the dashboard's refunds list); " +
      'safe to re-run, needed once for refunds created before that list',
  )
  .action(async () => {
    await connect();
    const { backfillRefundIndex } = await import('#shared/store/refunds.ts');
    const updated = await backfillRefundIndex();
    print({ updated }, () => `Indexed ${updated} refund(s); the others already were.`);
  });

program
  .command('migrate-reference-index')
  .description(
    "give every payment's orderRef and transaction-reference pointers their search keys (GSI1, GSI3: the " +
      "dashboard's prefix search); safe to re-run, needed once for payments created before that search",
  )
  .action(async () => {
    await connect();
    const { backfillReferenceIndex } = await import('#shared/store/reference-index.ts');
    const updated = await backfillReferenceIndex();
    print({ updated }, () => `Indexed ${updated} reference(s); the others already were.`);
  });

program
  .command('migrate-balance-index')
  .description(
    'give every journal its balance-transaction index keys (GSI3 by type, GSI1 by source); ' +
      'safe to re-run, needed once for journals posted before GET /BalanceTransactions',
  )
  .action(async () => {
    await connect();
    const { backfillJournalIndex } = await import('#shared/store/balance-transactions.ts');
    const updated = await backfillJournalIndex();
    print({ updated }, () => `Indexed ${updated} journal(s); the others already were.`);
  });

program
  .command('ledger')
  .description('the ledger and its invariants')
  .command('verify')
  .description(
    'check every wallet against its journals and every object against its status (docs/ledger-verification.md); exit 1 on any discrepancy',
  )
  .option('--merchant <id>', 'only this merchant')
  .option('--mode <mode>', 'test | live (default both)', mode)
  .option('--since <duration>', 'only ledgers whose wallets changed in this window: 30m, 24h, 7d', parseDuration)
  .action(async (o: { merchant?: string; mode?: 'test' | 'live'; since?: number }) => {
    await connect();
    const { verifyLedger, discrepancyLine } = await import('#shared/services/ledger-verify.ts');
    const changedSince = o.since !== undefined ? new Date(Date.now() - o.since * 1000).toISOString() : undefined;
    const r = await verifyLedger({ merchantId: o.merchant, mode: o.mode, changedSince });
    print(r, (x: typeof r) =>
      [
        ...x.discrepancies.map(discrepancyLine),
        `${x.discrepancies.length ? 'FAILED' : 'OK'}: ${x.ledgers} ledger(s) of ${x.merchants} merchant(s), ${x.wallets} wallet(s), ` +
          `${x.journals} journal(s), ${x.objects} object(s); ${x.discrepancies.length} discrepancy(ies).`,
      ].join('\n'),
    );
    if (r.discrepancies.length) process.exitCode = 1;
  });

try {
  await program.parseAsync(process.argv);
  process.exit(process.exitCode ?? 0);
} catch (error) {
  const message = error instanceof Error ? error.message : String(error);
  if (json()) console.log(JSON.stringify({ error: message }));
  else console.error(`error: ${message}`);
  process.exit(1);
}
