import { execFile } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { resolve } from 'node:path';
import { promisify } from 'node:util';
import { Command, InvalidArgumentError } from 'commander';
import { Gateway, GatewayError } from '../sdk/node/src/index.ts';
import { signedHeaders } from '#shared/webhooks/signing.ts';
import type { WebhookEventType } from '#shared/domain/event-types.ts';

/**
 * `npm run listen`: follow a gateway's events feed (GET /Gateway/v1/Events) with a test-mode key and
 * forward each new event to a local URL, signed with the given endpoint secret exactly as the
 * dispatcher signs real deliveries, so a receiver on a laptop sees what the deployed endpoint would.
 * `npm run listen -- trigger <scenario>` creates test-mode activity on demand.
 * Guide: docs/merchant-guide.md, "Developing webhooks locally".
 */

interface FeedItem {
  eventId: string;
  type: string;
  /** Unix seconds, as the envelope's `created`. */
  created: number;
  deliveryState: string;
  event: unknown;
}

const testKey = (value: string) => {
  if (!/^pk_test_/.test(value)) throw new InvalidArgumentError('listen and trigger work with test-mode API keys (pk_test_…) only');
  return value;
};
const positive = (value: string) => {
  const n = Number(value);
  if (!Number.isInteger(n) || n <= 0) throw new InvalidArgumentError('must be a positive whole number');
  return n;
};
const defaultBaseUrl = () => process.env.GATEWAY_BASE_URL ?? `http://localhost:${process.env.PORT ?? 3000}`;

/**
 * --since: an ISO 8601 date or date-time, or a time ago (`30m`, `2h`, `7d`); the feed keeps 30 days. Anything else is
 * refused at once instead of a 400 from the feed on every poll.
 */
export function sinceOption(value: string, now = Date.now()): string {
  const ago = /^(\d+)([smhd])$/.exec(value.trim());
  const at = ago
    ? now - Number(ago[1]) * { s: 1_000, m: 60_000, h: 3_600_000, d: 86_400_000 }[ago[2] as 's' | 'm' | 'h' | 'd']
    : /^\d{4}-\d{2}-\d{2}([T ][\d:.]+(Z|[+-]\d{2}:?\d{2})?)?$/.test(value.trim())
      ? Date.parse(value.trim())
      : Number.NaN;
  if (Number.isNaN(at))
    throw new InvalidArgumentError('give a date or date-time (2026-11-25, 2026-11-25T09:00:00Z) or a time ago (30m, 2h, 7d)');
  if (at > now) throw new InvalidArgumentError('is in the future: events are forwarded from a time in the past');
  if (at < now - 30 * 86_400_000) throw new InvalidArgumentError('is more than 30 days ago: the events feed keeps 30 days');
  return new Date(at).toISOString();
}

/**
 * One read of the feed before "Ready": a key the gateway refuses, or a gateway that does not answer, ends listen at once
 * with the reason (and what to check) instead of an error line every poll.
 */
export async function checkAccess(gateway: Gateway, baseUrl: string): Promise<void> {
  try {
    await gateway.request('GET', '/Gateway/v1/Events', { query: { limit: 1 } });
  } catch (error) {
    if (error instanceof GatewayError && (error.status === 401 || error.status === 403))
      throw new Error(
        `the gateway at ${baseUrl} refused the API key (${error.status} ${error.code ?? ''}: ${error.message}). ` +
          'Use a test-mode key (pk_test_…) of this gateway with the read scope: the dashboard shows them under Developers.',
      );
    if (error instanceof GatewayError) throw new Error(`the events feed at ${baseUrl} answered ${error.status}: ${error.message}`);
    throw new Error(`cannot reach the gateway at ${baseUrl} (${error instanceof Error ? error.message : String(error)}): is it running?`);
  }
}

/** Reads every feed page newer than `since` (the feed is newest first), oldest first. */
async function readFeed(gateway: Gateway, since: string, types: string | undefined): Promise<FeedItem[]> {
  const items: FeedItem[] = [];
  let startingAfter: string | undefined;
  for (let page = 0; page < 50; page++) {
    const answer = await gateway.request<{ items: FeedItem[]; hasMore: boolean }>('GET', '/Gateway/v1/Events', {
      query: { since, limit: 100, type: types, startingAfter },
    });
    items.push(...answer.items);
    if (!answer.hasMore || answer.items.length === 0) break;
    startingAfter = answer.items.at(-1)!.eventId;
  }
  return items.reverse();
}

/**
 * Forwards one event as a real delivery: the same body bytes and every signature header the
 * dispatcher sends (X-Svc-* and Standard Webhooks), with a fresh delivery id.
 */
export async function forward(
  url: string,
  secret: string,
  item: FeedItem,
  timeoutMs = 10_000,
): Promise<{ status: number | string; ms: number }> {
  const body = JSON.stringify(item.event);
  const headers = signedHeaders({
    body,
    secrets: [secret],
    eventId: item.eventId,
    eventType: item.type,
    deliveryId: `dlv_listen_${randomUUID()}`,
    timestamp: Math.floor(Date.now() / 1000),
  });
  const started = Date.now();
  try {
    const response = await fetch(url, { method: 'POST', headers, body, signal: AbortSignal.timeout(timeoutMs) });
    await response.arrayBuffer();
    return { status: response.status, ms: Date.now() - started };
  } catch (error) {
    return { status: error instanceof Error ? error.name : 'error', ms: Date.now() - started };
  }
}

export interface ListenOptions {
  apiKey: string;
  secret: string;
  forwardTo: string;
  baseUrl: string;
  events?: string;
  since?: string;
  pollMs: number;
  /** Stop after this many forwarded events (tests, scripts). */
  max?: number;
  print?: (line: string) => void;
}

/** The listen loop: poll the feed, forward what is new, print one line per event. */
export async function listen(options: ListenOptions, signal?: AbortSignal): Promise<number> {
  const print = options.print ?? ((line: string) => console.log(line));
  const gateway = new Gateway({ apiKey: options.apiKey, baseUrl: options.baseUrl });
  const seen = new Map<string, number>(); // eventId → created (ms), pruned as the window moves
  let since = options.since ?? new Date().toISOString();
  let forwarded = 0;
  await checkAccess(gateway, options.baseUrl);
  print(`Ready. Forwarding ${options.events ?? 'all'} events of ${options.baseUrl} to ${options.forwardTo} (Ctrl-C stops).`);
  while (!signal?.aborted) {
    let fresh: FeedItem[] = [];
    try {
      fresh = (await readFeed(gateway, since, options.events)).filter((item) => !seen.has(item.eventId));
    } catch (error) {
      print(`feed: ${error instanceof GatewayError ? `${error.status} ${error.message}` : String(error)}`);
    }
    for (const item of fresh) {
      seen.set(item.eventId, item.created * 1000);
      const { status, ms } = await forward(options.forwardTo, options.secret, item);
      print(`${new Date(item.created * 1000).toISOString()}  ${item.type.padEnd(26)} ${item.eventId}  → ${status} (${ms} ms)`);
      forwarded++;
      if (options.max !== undefined && forwarded >= options.max) return forwarded;
    }
    // Events can commit a little out of order: re-read a minute back, the seen set drops repeats.
    const newest = Math.max(Date.parse(since), ...[...seen.values()]);
    since = new Date(newest - 60_000).toISOString();
    for (const [id, created] of seen) if (created < newest - 120_000) seen.delete(id);
    await new Promise((resolveSleep) => setTimeout(resolveSleep, options.pollMs));
  }
  return forwarded;
}

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

async function main(argv: string[]) {
  const program = new Command('listen')
    .description('forward a gateway’s test-mode events to a local URL, signed like real deliveries')
    .requiredOption('--api-key <key>', 'test-mode API key (pk_test_…)', testKey)
    .option('--secret <whsec>', 'endpoint secret the forwarded events are signed with (whsec_…)')
    .option('--forward-to <url>', 'where to POST each event, e.g. http://localhost:4000/hooks')
    .option('--base-url <url>', 'the gateway (default: the local stack)', defaultBaseUrl())
    .option('--events <types>', 'comma-separated event types (default: all)')
    .option(
      '--since <when>',
      'also forward events created since then: 2026-11-25T09:00:00Z, 2026-11-25 or 30m, 2h, 7d (default: now)',
      (v) => sinceOption(v),
    )
    .option('--poll-ms <ms>', 'how often to read the feed', positive, 1000)
    .option('--max <n>', 'exit after forwarding n events', positive)
    .action(async (o) => {
      if (!o.secret || !/^whsec_/.test(o.secret))
        program.error('--secret whsec_… is required (the endpoint secret your receiver verifies with)');
      if (!o.forwardTo) program.error('--forward-to <url> is required');
      const controller = new AbortController();
      process.once('SIGINT', () => controller.abort());
      await listen(
        {
          apiKey: o.apiKey,
          secret: o.secret,
          forwardTo: o.forwardTo,
          baseUrl: o.baseUrl,
          events: o.events,
          since: o.since,
          pollMs: o.pollMs,
          max: o.max,
        },
        controller.signal,
      ).catch((error: Error) => program.error(`listen: ${error.message}`));
    });
  program
    .command('trigger <event>')
    .description(
      `create test-mode activity that sends the event: ${Object.keys(byEventType).join(', ')} (--status picks the outcome), ` +
        `or a scenario: ${scenarios.join(', ')}`,
    )
    .option('--status <status>', 'the outcome the event carries: Completed or Failed (TransactionStatusChanged)', 'Completed')
    .requiredOption('--secret-key <key>', 'the test secret key (sk_test_…) that signs request bodies')
    .option('--no-approve', 'do not approve settlements with the local ops tool')
    .action(async (event: string, o, command: Command) => {
      const scenario = scenarioFor(event, o.status);
      if (!scenario)
        command.error(
          `unknown event or scenario ${event}${o.status === 'Completed' ? '' : ` with status ${o.status}`}; one of ` +
            `${Object.keys(byEventType).join(', ')} (with --status Completed or Failed where it applies), or ${scenarios.join(', ')}`,
        );
      const parent = program.opts();
      try {
        await trigger(scenario as Scenario, {
          apiKey: parent.apiKey,
          secretKey: o.secretKey,
          baseUrl: parent.baseUrl,
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

if (process.argv[1] && resolve(process.argv[1]) === resolve(import.meta.filename)) await main(process.argv);
