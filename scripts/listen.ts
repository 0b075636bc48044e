import { execFile } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { resolve } from 'node:path';
import { promisify } from 'node:util';
import { Command, InvalidArgumentError } from 'commander';
import { Gateway } from '../sdk/node/src/index.ts';
import { GatewayConnectionError } from '../sdk/node/src/client.ts';
import { defaultBaseUrl, errorMessage, listen, main as runForwarder, sinceOption, testKey } from '../sdk/node/src/listen.ts';
import type { WebhookEventType } from '#shared/domain/event-types.ts';

/**
 * `npm run listen`: the SDK's forwarder (`svc-gateway-listen`, sdk/node/src/listen.ts: follow the events
 * feed with a test-mode key and forward each new event, signed like a real delivery, to a local URL)
 * run from this repository, plus what only the repository can do: `npm run listen -- trigger <event>`
 * creates test-mode activity on demand and approves settlements with the repository's ops tool.
 * Guide: docs/merchant-guide.md, "Developing webhooks locally".
 */
export { listen, sinceOption };

/** The SDK's checks as commander option parsers (their refusal is the option's error). */
const asOption =
  <T>(check: (value: string) => T) =>
  (value: string): T => {
    try {
      return check(value);
    } catch (error) {
      throw new InvalidArgumentError(error instanceof Error ? error.message : String(error));
    }
  };

// ---- trigger ----

const scenarios = [
  'checkout.completed',
  'checkout.failed',
  'deposit.completed',
  'withdrawal.completed',
  'withdrawal.failed',
  'refund.completed',
  'settlement.completed',
] as const;
type Scenario = (typeof scenarios)[number];

/** The event types the webhooks carry (shared/domain/event-types.ts), by outcome, to the scenario that sends one. */
const byEventType: Record<WebhookEventType, Partial<Record<string, Scenario>>> = {
  TransactionStatusChanged: { Completed: 'checkout.completed', Failed: 'checkout.failed' },
  RefundStatusChanged: { Completed: 'refund.completed' },
  SettlementStatusChanged: { Completed: 'settlement.completed' },
};

/** `trigger TransactionStatusChanged --status Failed` or `trigger checkout.failed`; undefined for anything else. */
export function scenarioFor(event: string, status = 'Completed'): Scenario | undefined {
  if ((scenarios as readonly string[]).includes(event)) return event as Scenario;
  return (byEventType as Record<string, Partial<Record<string, Scenario>>>)[event]?.[status];
}
const orderRef = (prefix: string) => `${prefix}${randomUUID().replaceAll('-', '').slice(0, 16)}`;
const bankAccount = (last4: string) => `PK36SCBL000000112345${last4}`;

/** Posts a form of the hosted checkout page (`card` or `cancel`), as a customer's browser would. */
async function postOnPage(baseUrl: string, checkoutUrl: string, action: 'card' | 'cancel', fields: Record<string, string>) {
  const page = new URL(checkoutUrl).pathname;
  const html = await (await fetch(baseUrl + page)).text();
  const csrf = /name="csrf" value="([^"]+)"/.exec(html)?.[1];
  if (!csrf) throw new Error('the hosted checkout page did not offer its forms');
  const answer = await fetch(`${baseUrl}${page}/${action}`, {
    method: 'POST',
    redirect: 'manual',
    headers: { 'Content-Type': 'application/x-www-form-urlencoded', 'Sec-Fetch-Site': 'same-origin' },
    body: new URLSearchParams({ csrf, ...fields }).toString(),
  });
  if (answer.status >= 400) throw new Error(`the ${action} form answered ${answer.status}`);
}

/** Pays a checkout through the hosted page's sandbox card form. */
const payByCard = (baseUrl: string, checkoutUrl: string, cardNumber: string) =>
  postOnPage(baseUrl, checkoutUrl, 'card', { name: 'Test Customer', number: cardNumber, expiry: '12/39', cvc: '123' });

/**
 * The operator's side of a trigger. Settlements wait for the operator's approval (a test refund does not: the sandbox
 * approves it, docs/merchant-guide.md, Refunds). `ready` runs before any money is held, so a trigger that cannot get its
 * settlement approved says why and creates nothing; `cancel` releases the hold of one it created when the approval fails.
 */
export interface Operator {
  ready(merchantId: string): Promise<void>;
  /** `waiting`: the merchant's payout-approvals setting is `both`, and the settlement waits for its dashboard approver too. */
  approve(kind: 'settlement', id: string): Promise<'approved' | 'waiting'>;
  cancel(kind: 'settlement', id: string): Promise<void>;
}

/** Runs `npm run ops -- <args> --json` and answers its JSON; a failure throws the tool's own message. */
export type OpsRunner = (...args: string[]) => Promise<Record<string, unknown>>;

/** The operator through the ops tool (the same commands an operator types): `merchant show`, `settlement approve|cancel`. */
export function opsOperator(ops: OpsRunner): Operator {
  return {
    async ready(merchantId) {
      let profile: Record<string, unknown>;
      try {
        profile = await ops('merchant', 'show', merchantId);
      } catch (error) {
        const why = errorMessage(error);
        throw new Error(
          /^no merchant /.test(why)
            ? `the ops tool does not find merchant ${merchantId}: it reads another stack than the gateway's ` +
                '(give npm run listen the PORT, DATA_DIR and DYNAMODB_PORT npm start runs with), or use --no-approve'
            : `the ops tool cannot approve the settlement (${why}); nothing was created. Use --no-approve to leave it to the operator`,
        );
      }
      if (profile.payoutApprovals === 'merchant')
        throw new Error(
          "this merchant's settlements are approved by its own approvers only (the dashboard's Settings): " +
            'run with --no-approve and approve it on the dashboard',
        );
    },
    async approve(kind, id) {
      return (await ops(kind, 'approve', id)).state === 'waiting' ? 'waiting' : 'approved';
    },
    async cancel(kind, id) {
      await ops(kind, 'cancel', id);
    },
  };
}

const loopback = (host: string) => ['localhost', '127.0.0.1', '[::1]'].includes(host);

/**
 * The environment the ops tool needs to read the stack serving `baseUrl`: a local stack is found by its PORT (DynamoDB
 * Local on PORT+5000), so a --base-url on 127.0.0.1 sets it; any DATA_DIR, DYNAMODB_PORT or OPS_TARGET given is kept.
 */
export function opsEnvFor(baseUrl: string, env: NodeJS.ProcessEnv = process.env): NodeJS.ProcessEnv {
  const url = new URL(baseUrl);
  if (!loopback(url.hostname)) return env;
  return { ...env, PORT: url.port || (url.protocol === 'https:' ? '443' : '80') };
}

/** The repository's ops tool (`npm run ops`) as a child process, for the stack at `baseUrl`. */
export function localOperator(baseUrl: string): Operator {
  const env = opsEnvFor(baseUrl);
  return opsOperator(async (...args) => {
    const run = promisify(execFile);
    const answer = await run(process.execPath, ['--import', 'tsx', resolve(import.meta.dirname, 'ops.ts'), ...args, '--json'], {
      env,
    }).catch((error: { stdout?: string; stderr?: string; message: string }) => {
      throw new Error(parseJson(error.stdout)?.error ?? (error.stderr?.trim() || error.message));
    });
    return parseJson(answer.stdout) ?? {};
  });
}

const parseJson = (text: string | undefined): Record<string, any> | undefined => {
  try {
    return JSON.parse(text ?? '');
  } catch {
    return undefined;
  }
};

/**
 * The operator approves the trigger's settlement; when that fails, the operator cancels it (Cancelled, the PKR 500 hold
 * released by its journal, as `npm run ops -- settlement cancel` does), so a failed trigger leaves nothing held.
 */
async function approveOrRelease(operator: Operator, id: string, print: (line: string) => void): Promise<void> {
  let state: 'approved' | 'waiting';
  try {
    state = await operator.approve('settlement', id);
  } catch (error) {
    const why = errorMessage(error);
    try {
      await operator.cancel('settlement', id);
    } catch (cancelling) {
      throw new Error(
        `the operator tool could not approve settlement ${id} (${why}) nor cancel it (${errorMessage(cancelling)}); ` +
          `it holds PKR 500 until the operator runs: npm run ops -- settlement cancel ${id}`,
      );
    }
    throw new Error(`the operator tool could not approve settlement ${id} (${why}); it was cancelled and its PKR 500 released`);
  }
  print(
    state === 'approved'
      ? `  settlement ${id} approved by the operator tool`
      : `  settlement ${id}: the operator's approval is recorded; it waits for the merchant's approver on the dashboard`,
  );
}

async function funded(gateway: Gateway, baseUrl: string, amount: number, print: (line: string) => void): Promise<void> {
  const balance = await gateway.account.balance();
  if (Number(balance.availableBalance) >= amount) return;
  print(`  funding the test wallet with a ${amount * 2} PKR card payment first`);
  const checkout = await gateway.checkouts.create({
    amount: amount * 2,
    currency: 'PKR',
    description: 'listen trigger funding',
    orderRef: { orderRef: orderRef('FUND') },
  });
  await payByCard(baseUrl, String(checkout.checkoutUrl), '4242424242424242');
}

export async function trigger(
  scenario: Scenario,
  options: { apiKey: string; secretKey: string; baseUrl: string; operator?: Operator; print?: (line: string) => void },
): Promise<Record<string, unknown>> {
  const print = options.print ?? ((line: string) => console.log(line));
  const gateway = new Gateway({ apiKey: options.apiKey, secretKey: options.secretKey, baseUrl: options.baseUrl });
  const checkout = async (card: string) => {
    const created = await gateway.checkouts.create({
      amount: 1500,
      currency: 'PKR',
      description: `Listen trigger ${scenario.replace('.', ' ')}`,
      orderRef: { orderRef: orderRef('TRG') },
    });
    await payByCard(options.baseUrl, String(created.checkoutUrl), card);
    return created;
  };
  let result: object;
  switch (scenario) {
    case 'checkout.completed':
      result = await checkout('4242424242424242');
      break;
    case 'checkout.failed':
      // A declined card is a failed attempt (the session stays payable); the customer then gives up: Failed, card_declined.
      result = await checkout('4000000000000002');
      await postOnPage(options.baseUrl, String((result as { checkoutUrl: unknown }).checkoutUrl), 'cancel', {});
      break;
    case 'deposit.completed':
      result = await gateway.deposits.create({
        amount: 500,
        currency: 'PKR',
        mobileNumber: '03001230000',
        walletProvider: 1,
        description: 'listen trigger',
        orderRef: { orderRef: orderRef('DEP') },
      });
      break;
    case 'withdrawal.completed':
    case 'withdrawal.failed': {
      await funded(gateway, options.baseUrl, 400, print);
      const last4 = scenario === 'withdrawal.completed' ? '0000' : '1111';
      result = await gateway.withdrawals.create({
        amount: 300,
        currency: 'PKR',
        description: 'listen trigger payout',
        autoProcessPayout: true,
        customerRef: { bankAccountNumber: bankAccount(last4), bankCode: 'MEEZAN', accountTitle: 'Test Customer' },
        orderRef: { orderRef: orderRef('WD') },
      });
      break;
    }
    case 'refund.completed': {
      const paid = await checkout('4242424242424242');
      await waitForStatus(gateway, String(paid.paymentIntentId), 'Completed');
      // Test mode: the sandbox approves and processes it within seconds (no operator).
      result = await gateway.refunds.create({ trxnRef: paid.paymentIntentId, amount: 500, reason: 'listen trigger' });
      break;
    }
    case 'settlement.completed': {
      const { operator } = options;
      if (operator) await operator.ready((await gateway.settlements.schedule()).merchantId);
      await funded(gateway, options.baseUrl, 600, print);
      const settlement = await gateway.settlements.create({
        amount: 500,
        currency: 'PKR',
        bankName: 'HBL',
        iban: 'PK36SCBL0000001123456702',
        accountTitle: 'Test Merchant Ltd',
      });
      if (operator) await approveOrRelease(operator, settlement.id, print);
      else print(`  settlement ${settlement.id} is Pending until the operator runs: npm run ops -- settlement approve ${settlement.id}`);
      result = settlement;
      break;
    }
  }
  print(`Triggered ${scenario}: ${JSON.stringify(pick(result))}`);
  return result as Record<string, unknown>;
}

async function waitForStatus(gateway: Gateway, paymentIntentId: string, status: string): Promise<void> {
  for (let i = 0; i < 60; i++) {
    const tx = await gateway.transactions.retrieve(paymentIntentId);
    if (tx.status === status) return;
    await new Promise((r) => setTimeout(r, 500));
  }
  throw new Error(`${paymentIntentId} did not reach ${status}`);
}

const pick = (answer: object) => {
  const r = answer as Record<string, unknown>;
  return Object.fromEntries(
    ['paymentIntentId', 'id', 'refundId', 'settlementId', 'status', 'amount', 'currency']
      .filter((k) => r[k] !== undefined)
      .map((k) => [k, r[k]]),
  );
};

// ---- command line ----

/** `trigger`: repository-only (it may approve through the local ops tool). */
async function triggerCommand(argv: string[]) {
  const program = new Command('listen')
    .description('create test-mode activity; forwarding events is the SDK bin svc-gateway-listen (npm run listen -- --help)')
    .option('--base-url <url>', 'the gateway (default: the local stack)', defaultBaseUrl());
  program
    .command('trigger <event>')
    .description(
      `create test-mode activity that sends the event: ${Object.keys(byEventType).join(', ')} (--status picks the outcome), ` +
        `or a scenario: ${scenarios.join(', ')}`,
    )
    .requiredOption('--api-key <key>', 'test-mode API key (pk_test_…)', asOption(testKey))
    .option('--status <status>', 'the outcome the event carries: Completed or Failed (TransactionStatusChanged)', 'Completed')
    .requiredOption('--secret-key <key>', 'the test secret key (sk_test_…) that signs request bodies')
    .option('--base-url <url>', 'the gateway (default: the local stack)')
    .option('--no-approve', 'do not approve settlements with the local ops tool (the default for a --base-url not on this machine)')
    .action(async (event: string, o, command: Command) => {
      const scenario = scenarioFor(event, o.status);
      if (!scenario)
        command.error(
          `unknown event or scenario ${event}${o.status === 'Completed' ? '' : ` with status ${o.status}`}; one of ` +
            `${Object.keys(byEventType).join(', ')} (with --status Completed or Failed where it applies), or ${scenarios.join(', ')}`,
        );
      const baseUrl: string = o.baseUrl ?? program.opts().baseUrl;
      // The local ops tool approves on a stack on this machine (or on AWS with OPS_TARGET=aws); elsewhere the operator does.
      const approves = o.approve && (loopback(new URL(baseUrl).hostname) || process.env.OPS_TARGET === 'aws');
      try {
        await trigger(scenario as Scenario, {
          apiKey: o.apiKey,
          secretKey: o.secretKey,
          baseUrl,
          ...(approves ? { operator: localOperator(baseUrl) } : {}),
        });
      } catch (error) {
        const unreachable = error instanceof GatewayConnectionError;
        const why = unreachable ? `cannot reach the gateway at ${baseUrl} (${errorMessage(error)}): is it running?` : errorMessage(error);
        command.error(`listen trigger ${event}: ${why}`);
      }
    });
  await program.parseAsync(argv);
}

/** `npm run listen -- trigger …` here; anything else is the SDK's forwarder, exactly as `npx svc-gateway-listen` runs it. */
async function main(argv: string[]) {
  if (argv.slice(2).includes('trigger')) return triggerCommand(argv);
  process.exitCode = await runForwarder(argv.slice(2));
}

if (process.argv[1] && resolve(process.argv[1]) === resolve(import.meta.filename)) await main(process.argv);
