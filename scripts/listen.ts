import { execFile } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { resolve } from 'node:path';
import { promisify } from 'node:util';
import { Command, InvalidArgumentError } from 'commander';
import { Gateway, GatewayError } from '../sdk/node/src/index.ts';
import { defaultBaseUrl, listen, main as runForwarder, sinceOption, testKey } from '../sdk/node/src/listen.ts';
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

export type Approver = (kind: 'settlement', id: string) => Promise<void>;

/**
 * Settlements wait for the operator's approval (a test refund does not: the sandbox approves it,
 * docs/merchant-guide.md, Refunds). On the local stack the trigger approves them with the ops tool
 * (`npm run ops -- settlement approve <id>`); with --no-approve (a deployed gateway) it prints what
 * the operator runs.
 */
const localOps: Approver = async (kind, id) => {
  await promisify(execFile)(process.execPath, ['--import', 'tsx', resolve(import.meta.dirname, 'ops.ts'), kind, 'approve', id, '--json'], {
    env: process.env,
  });
};

async function operatorApproves(
  kind: 'settlement',
  id: string,
  approver: Approver | undefined,
  print: (line: string) => void,
): Promise<void> {
  if (!approver) {
    print(`  ${kind} ${id} is Pending until the operator runs: npm run ops -- ${kind} approve ${id}`);
    return;
  }
  await approver(kind, id);
  print(`  ${kind} ${id} approved by the operator tool`);
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
  options: { apiKey: string; secretKey: string; baseUrl: string; approver?: Approver; print?: (line: string) => void },
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
      await funded(gateway, options.baseUrl, 600, print);
      const settlement = await gateway.settlements.create({
        amount: 500,
        currency: 'PKR',
        bankName: 'HBL',
        iban: 'PK36SCBL0000001123456702',
        accountTitle: 'Test Merchant Ltd',
      });
      await operatorApproves('settlement', settlement.id, options.approver, print);
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
    .option('--no-approve', 'do not approve settlements with the local ops tool')
    .action(async (event: string, o, command: Command) => {
      const scenario = scenarioFor(event, o.status);
      if (!scenario)
        command.error(
          `unknown event or scenario ${event}${o.status === 'Completed' ? '' : ` with status ${o.status}`}; one of ` +
            `${Object.keys(byEventType).join(', ')} (with --status Completed or Failed where it applies), or ${scenarios.join(', ')}`,
        );
      try {
        await trigger(scenario as Scenario, {
          apiKey: o.apiKey,
          secretKey: o.secretKey,
          baseUrl: o.baseUrl ?? program.opts().baseUrl,
          ...(o.approve ? { approver: localOps } : {}),
        });
      } catch (error) {
        command.error(
          error instanceof GatewayError ? `the gateway answered ${error.status} ${error.code ?? ''}: ${error.message}` : String(error),
        );
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
