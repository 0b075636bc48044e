import { randomUUID } from 'node:crypto';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { cpus, loadavg } from 'node:os';
import { fileURLToPath } from 'node:url';
import type { IntentStatus, IntentType, PaymentIntent } from '#shared/domain/intent.ts';
import { benchCleanups, startBenchStack, startLocalApi } from './local-stack.ts';

/**
 * `npm run bench -- dashboard`: the merchant dashboard's payments list with 100,000 transactions
 * for ONE merchant on the local stack (DynamoDB Local in memory, the local API Gateway emulation,
 * the real dashboard Lambda handler), signed in as a dashboard user with a real session cookie.
 *
 * Seeding: a sample of checkouts through the real services (initiate-checkout over HTTP, then the
 * card payment), and the rest in bulk: PaymentIntent objects written as the Put items of the store
 * module's createIntentWrites (intent with its GSI1/GSI3 listing keys, orderRef and
 * transactionReference pointers, customer-index pointers), sent with BatchWriteItem (25 per call)
 * instead of one TransactWriteItems each. Every intent item is written; the pointer items for the
 * searched customer's intents and every 10th other only (a search reads one pointer partition, so
 * the others change nothing measured, and DynamoDB Local writes ~4x fewer items). Statuses, types, customers and 90 days of createdAt are
 * spread as in a busy shop. The bench checks that a bulk item has the same attributes as a real one.
 *
 * Measured (sequential, scenarios interleaved round by round, after untimed warm-up rounds): the first page, filtered first pages (status,
 * type + status, date range), cursor paging (following "Next page" links deep into the list, plain
 * and filtered), and the search box (orderRef, customer e-mail, customer phone). Per scenario: p50,
 * p95 and max latency of the whole HTTP request and the DynamoDB calls per request; target p95 <
 * 300 ms. Results: a table, and bench/results/dashboard.json. Knobs: BENCH_DASHBOARD_TRANSACTIONS
 * (100000), BENCH_DASHBOARD_REQUESTS (100 per scenario).
 */
const transactions = Number(process.env.BENCH_DASHBOARD_TRANSACTIONS ?? 100_000);
const requestsPerScenario = Number(process.env.BENCH_DASHBOARD_REQUESTS ?? 100);
const warmup = 20;
const p95TargetMs = 300;
/** Real checkouts through the services (HTTP + card payment) before the bulk load. */
const realSample = 20;
const customers = 2_000;
/** The customer the search scenarios look for (about transactions / customers payments). */
const searchedCustomer = 1234;
const resultsDir = fileURLToPath(new URL('./results/', import.meta.url));

const percentile = (sorted: number[], p: number) => sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil(p * sorted.length) - 1))]!;
const round1 = (n: number) => Math.round(n * 10) / 10;

interface ScenarioResult {
  scenario: string;
  path: string;
  requests: number;
  p50Ms: number;
  p95Ms: number;
  maxMs: number;
  dynamoCallsPerRequest: { min: number; max: number };
  rowsPerPage: { min: number; max: number };
  met: boolean;
}

/** A deterministic spread of statuses and types (weights as in a busy shop). */
function shapeOf(i: number): { intentType: IntentType; status: IntentStatus } {
  const t = i % 10;
  const intentType: IntentType = t < 7 ? 'checkout' : t < 9 ? 'deposit' : 'withdrawal';
  // Not a function of i mod customers alone, so each customer's payments have every status.
  const s = (i * 7 + Math.floor(i / customers)) % 20;
  const status: IntentStatus =
    s < 14 ? 'Completed' : s < 17 ? 'Failed' : s < 18 ? 'Pending' : intentType === 'withdrawal' ? 'Processing' : 'Expired';
  return { intentType, status };
}

export const customerEmail = (k: number) => `customer${k}@example.com`;
export const customerPhone = (k: number) => `0300${String(1_000_000 + k).slice(1)}`;

export async function runDashboardBench(): Promise<number> {
  const { cleanups, cleanup } = benchCleanups();
  const started = performance.now();
  try {
    await startBenchStack('payment-gateway-dashboard-bench', cleanups);
    const { db, tableName, toItem } = await import('#shared/store/client.ts');
    cleanups.push(() => db().destroy());
    const { BatchWriteItemCommand, GetItemCommand } = await import('@aws-sdk/client-dynamodb');
    const { routes } = await import('#functions/routes.ts');
    const { createMerchant } = await import('#shared/services/merchants.ts');
    const { payByCard } = await import('#shared/services/checkout.ts');
    const { inviteUser, operatorActor } = await import('#shared/services/dashboard-auth.ts');
    const { createIntentWrites, getIntent } = await import('#shared/store/intents.ts');
    const keys = await import('#shared/store/keys.ts');
    const { totpCode } = await import('#shared/crypto/totp.ts');
    const { countDynamoCalls } = await import('./counter.ts');
    const { send } = await import('./requests.ts');
    const { signBody } = await import('#shared/domain/body-signature.ts');

    const baseUrl = await startLocalApi(cleanups);
    const merchant = await createMerchant({ name: 'Dashboard Bench' });

    // 1. A sample through the real services: hosted checkouts created over HTTP, paid by card.
    const realIds: string[] = [];
    for (let i = 0; i < realSample; i++) {
      const json = {
        amount: 1500,
        description: 'Sample order',
        orderRef: { orderRef: `SAMPLE${String(i).padStart(4, '0')}` },
        customerRef: { name: 'Sample Customer', email: customerEmail(i), phone: customerPhone(i) },
      };
      const signed = routes.initiateCheckout.signature ? { ...json, signature: signBody(json, merchant.test.secretKey) } : json;
      const sent = await send(baseUrl, {
        method: 'POST',
        path: '/Gateway/v1/Payment/initiate-checkout',
        headers: { 'Svc-API-Key': merchant.test.apiKey, 'Content-Type': 'application/json' },
        body: JSON.stringify(signed),
      });
      if (!sent.ok) throw new Error(`initiate-checkout: ${sent.status} ${sent.text.slice(0, 200)}`);
      const id = JSON.parse(sent.text).paymentIntentId as string;
      realIds.push(id);
      if (i % 2 === 0) await payByCard(id, { name: 'Sample Customer', number: '4242 4242 4242 4242', expiry: '12/34', cvc: '123' });
    }

    // 2. The bulk load: the store module's create items, BatchWriteItem 25 at a time, 8 in flight.
    const bulk = transactions - realSample;
    const now = Date.now();
    const day = 86_400_000;
    const intentAt = (i: number): PaymentIntent => {
      const createdAt = new Date(now - 90 * day + Math.floor((i / bulk) * 90 * day)).toISOString();
      const k = i % customers;
      return {
        paymentIntentId: randomUUID(),
        merchantId: merchant.merchantId,
        mode: 'test',
        ...shapeOf(i),
        amountMinor: 100_00 + (i % 500) * 100,
        currency: 'PKR',
        feeMinor: 0,
        refundedMinor: 0,
        orderRef: { orderRef: `BULK${String(i).padStart(7, '0')}` },
        customerRef: { name: `Customer ${k}`, email: customerEmail(k), ...(i % 2 === 0 ? { phone: customerPhone(k) } : {}) },
        description: 'Bulk-seeded order',
        metadataJson: null,
        callbackUrl: null,
        transactionReference: `TRXBULK${String(i).padStart(9, '0')}`,
        reason: null,
        traceId: 'bench',
        createdAt,
        updatedAt: createdAt,
        expiresAt: null,
        version: 1,
        details: {},
      };
    };
    console.log(`seeding ${bulk.toLocaleString('en')} transactions in bulk (BatchWriteItem of the store's create items)...`);
    const seedStarted = performance.now();
    let queue: Record<string, unknown>[] = [];
    let written = 0;
    const inFlight = new Set<Promise<void>>();
    const flush = async (items: Record<string, unknown>[]) => {
      let pending = items.map((Item) => ({ PutRequest: { Item } })) as { PutRequest: { Item: any } }[];
      for (let attempt = 0; pending.length; attempt++) {
        const out = await db().send(new BatchWriteItemCommand({ RequestItems: { [tableName()]: pending } }));
        pending = (out.UnprocessedItems?.[tableName()] ?? []) as typeof pending;
        if (pending.length) await new Promise((ok) => setTimeout(ok, Math.min(1000, 20 * 2 ** attempt)));
      }
    };
    for (let i = 0; i < bulk; i++) {
      // Every intent item (with its listing keys: what the list reads). Its pointers (orderRef,
      // transactionReference, customer) for the searched customer's intents and every 10th other:
      // a search reads one pointer partition, whose size does not depend on how many others exist.
      const writes = createIntentWrites(intentAt(i));
      const withPointers = i % 10 === 0 || i % customers === searchedCustomer;
      for (const w of withPointers ? writes : writes.slice(0, 1)) queue.push(w.Put!.Item as Record<string, unknown>);
      while (queue.length >= 25) {
        const batch = queue.slice(0, 25);
        queue = queue.slice(25);
        const p: Promise<void> = flush(batch).then(() => {
          inFlight.delete(p);
        });
        inFlight.add(p);
        if (inFlight.size >= 8) await Promise.race(inFlight);
      }
      written++;
      if (written % 10_000 === 0)
        console.log(`  ${written.toLocaleString('en')} (${Math.round((performance.now() - seedStarted) / 1000)} s)`);
    }
    if (queue.length) await flush(queue);
    await Promise.all(inFlight);
    const seedSeconds = (performance.now() - seedStarted) / 1000;
    console.log(`seeded in ${Math.round(seedSeconds)} s`);

    // Same item shape: a bulk intent item has exactly the attributes of a real one (values aside).
    const attributesOf = async (id: string) =>
      Object.keys((await db().send(new GetItemCommand({ TableName: tableName(), Key: toItem(keys.intent(id)) }))).Item ?? {})
        .filter((a) => !['dueAt', 'GSI2PK', 'GSI2SK'].includes(a)) // only while something is due (the real ones expire)
        .sort();
    const realIntent = await getIntent(realIds[1]!); // unpaid: Pending
    const sampleBulk = (
      await db().send(
        new GetItemCommand({ TableName: tableName(), Key: toItem(keys.orderRef('test', merchant.merchantId, 'BULK0000000')) }),
      )
    ).Item;
    const bulkId = String(sampleBulk?.paymentIntentId?.S);
    const realAttributes = await attributesOf(realIntent!.paymentIntentId);
    const bulkAttributes = await attributesOf(bulkId);
    const shapeDifference = [
      ...realAttributes.filter((a) => !bulkAttributes.includes(a)).map((a) => `-${a}`),
      ...bulkAttributes.filter((a) => !realAttributes.includes(a)).map((a) => `+${a}`),
    ];
    console.log(
      shapeDifference.length
        ? `item shape differs from a real intent: ${shapeDifference.join(' ')}`
        : 'bulk items have the same shape as real ones',
    );

    // 3. A signed-in dashboard user (viewer), enrolled over HTTP like a browser.
    const cookie = await signedInCookie(baseUrl, merchant.merchantId, inviteUser, operatorActor, totpCode);

    // 4. The scenarios.
    const counter = countDynamoCalls();
    cleanups.push(() => counter.remove());
    const get = async (path: string) => {
      const response = await fetch(`${baseUrl}${path}`, { headers: { Cookie: cookie }, redirect: 'manual' });
      return { status: response.status, html: await response.text() };
    };
    const rowsOf = (html: string) => (/<tbody>([\s\S]*?)<\/tbody>/.exec(html)?.[1]?.match(/<tr/g) ?? []).length;
    const nextOf = (html: string) => {
      const href = /href="([^"]+)" rel="next"/.exec(html)?.[1];
      return href?.replaceAll('&amp;', '&');
    };
    const from = new Date(now - 30 * day).toISOString().slice(0, 10);
    const to = new Date(now - 20 * day).toISOString().slice(0, 10);
    const fixed = (path: string) => () => path;
    /** Follows "Next page" links from `start`, one per request (back to the start when the list ends). */
    const paging = (start: string) => {
      let next = start;
      return (previous?: string) => {
        const link = previous ? nextOf(previous) : undefined;
        next = link ?? (previous ? start : next);
        return next;
      };
    };
    const scenarios: { name: string; path: (previousHtml?: string) => string; rows?: 'page' | 'some' }[] = [
      { name: 'first page', path: fixed('/dashboard/payments'), rows: 'page' },
      { name: 'status = Completed', path: fixed('/dashboard/payments?status=Completed'), rows: 'page' },
      { name: 'type = deposit, status = Failed', path: fixed('/dashboard/payments?status=Failed&type=deposit'), rows: 'page' },
      { name: 'status = Pending (rare)', path: fixed('/dashboard/payments?status=Pending'), rows: 'page' },
      { name: `date range ${from}..${to}`, path: fixed(`/dashboard/payments?from=${from}&to=${to}`), rows: 'page' },
      { name: 'cursor paging (Next page links)', path: paging('/dashboard/payments'), rows: 'page' },
      { name: 'cursor paging, status = Completed', path: paging('/dashboard/payments?status=Completed'), rows: 'page' },
      { name: 'search orderRef', path: fixed(`/dashboard/payments?q=BULK${String(Math.floor(bulk / 2)).padStart(7, '0')}`), rows: 'some' },
      {
        name: 'search customer e-mail (~50 payments)',
        path: fixed(`/dashboard/payments?q=${encodeURIComponent(customerEmail(searchedCustomer))}`),
        rows: 'page',
      },
      {
        name: 'search customer phone (~50 payments)',
        path: fixed(`/dashboard/payments?q=${customerPhone(searchedCustomer)}`),
        rows: 'page',
      },
      {
        name: 'search e-mail + status = Completed',
        path: fixed(`/dashboard/payments?q=${encodeURIComponent(customerEmail(searchedCustomer))}&status=Completed`),
        rows: 'some',
      },
    ];
    // Interleaved: each round sends one request of every scenario, so DynamoDB Local's JIT warm-up
    // and the machine's load at any moment fall on all scenarios alike.
    const state = scenarios.map(() => ({
      previous: undefined as string | undefined,
      firstPath: '',
      times: [] as number[],
      calls: [] as number[],
      rows: [] as number[],
    }));
    console.log(
      `\nmeasuring ${scenarios.length} scenarios interleaved, ${requestsPerScenario} sequential requests each ` +
        `(after ${warmup} untimed rounds)...`,
    );
    for (let round = 0; round < warmup + requestsPerScenario; round++) {
      for (const [index, s] of scenarios.entries()) {
        const st = state[index]!;
        const path = s.path(st.previous);
        if (!st.firstPath) st.firstPath = path;
        counter.reset();
        const t0 = performance.now();
        const r = await get(path);
        const ms = performance.now() - t0;
        if (r.status !== 200) throw new Error(`${s.name}: ${path} answered ${r.status}: ${r.html.slice(0, 300)}`);
        const n = rowsOf(r.html);
        if (s.rows === 'page' && n !== 25) throw new Error(`${s.name}: ${path} showed ${n} rows, not a full page of 25`);
        if (s.rows === 'some' && n === 0) throw new Error(`${s.name}: ${path} found nothing`);
        st.previous = r.html;
        if (round < warmup) continue;
        st.times.push(ms);
        st.calls.push(counter.calls);
        st.rows.push(n);
      }
    }
    const results: ScenarioResult[] = scenarios.map((s, index) => {
      const { times, calls, rows, firstPath } = state[index]!;
      const sorted = [...times].sort((a, b) => a - b);
      return {
        scenario: s.name,
        path: firstPath,
        requests: times.length,
        p50Ms: round1(percentile(sorted, 0.5)),
        p95Ms: round1(percentile(sorted, 0.95)),
        maxMs: round1(sorted.at(-1)!),
        dynamoCallsPerRequest: { min: Math.min(...calls), max: Math.max(...calls) },
        rowsPerPage: { min: Math.min(...rows), max: Math.max(...rows) },
        met: percentile(sorted, 0.95) < p95TargetMs,
      };
    });

    const table = [
      `| Scenario | Requests | p50 ms | p95 ms | max ms | DynamoDB calls | Rows | p95 < ${p95TargetMs} ms |`,
      '|---|---:|---:|---:|---:|---:|---:|---|',
      ...results.map(
        (r) =>
          `| ${r.scenario} | ${r.requests} | ${r.p50Ms} | ${r.p95Ms} | ${r.maxMs} | ` +
          `${range(r.dynamoCallsPerRequest)} | ${range(r.rowsPerPage)} | ${r.met ? 'met' : 'MISSED'} |`,
      ),
    ].join('\n');
    console.log(`\n${transactions.toLocaleString('en')} transactions for one merchant (${realSample} through the services)\n\n${table}`);
    const report = {
      generatedAt: new Date().toISOString(),
      node: process.version,
      platform: `${process.platform}-${process.arch}`,
      durationMs: Math.round(performance.now() - started),
      transactions,
      loadAverage: loadavg().map(round1),
      cpus: cpus().length,
      seeding: {
        throughServices: realSample,
        bulk,
        method: "BatchWriteItem of createIntentWrites' Put items (shared/store/intents.ts)",
        pointers: 'orderRef, transactionReference and customer pointers for the searched customer and every 10th intent',
        seconds: Math.round(seedSeconds),
        shapeDifference,
      },
      customers,
      requestsPerScenario,
      warmup,
      target: { p95Ms: p95TargetMs },
      scenarios: results,
      missed: results.filter((r) => !r.met).map((r) => r.scenario),
    };
    mkdirSync(resultsDir, { recursive: true });
    writeFileSync(join(resultsDir, 'dashboard.json'), `${JSON.stringify(report, null, 2)}\n`);
    console.log('\nwrote bench/results/dashboard.json');
    return shapeDifference.length ? 1 : 0;
  } finally {
    await cleanup();
  }
}

const range = ({ min, max }: { min: number; max: number }) => (min === max ? String(min) : `${min}-${max}`);

/** Invite a viewer, accept the invitation, set a password and enrol TOTP over HTTP: the session cookie. */
async function signedInCookie(
  baseUrl: string,
  merchantId: string,
  inviteUser: typeof import('#shared/services/dashboard-auth.ts').inviteUser,
  actor: typeof import('#shared/services/dashboard-auth.ts').operatorActor,
  totpCode: typeof import('#shared/crypto/totp.ts').totpCode,
): Promise<string> {
  const invited = await inviteUser({ merchantId, email: 'bench-viewer@example.com', role: 'viewer' }, actor);
  const path = new URL(invited.inviteUrl).pathname;
  const csrfIn = (html: string) => /name="csrf" value="([^"]+)"/.exec(html)![1]!;
  const cookieOf = (response: Response) => response.headers.get('set-cookie')!.split(';')[0]!;
  const post = (to: string, fields: Record<string, string>, cookie?: string) =>
    fetch(`${baseUrl}${to}`, {
      method: 'POST',
      redirect: 'manual',
      headers: {
        'Content-Type': 'application/x-www-form-urlencoded',
        'Sec-Fetch-Site': 'same-origin',
        ...(cookie ? { Cookie: cookie } : {}),
      },
      body: new URLSearchParams(fields).toString(),
    });
  const password = 'bench passphrase long enough';
  const form = await (await fetch(`${baseUrl}${path}`)).text();
  const accepted = await post(path, { csrf: csrfIn(form), password, confirm: password });
  if (accepted.status !== 303) throw new Error(`invitation: ${accepted.status}`);
  const enrolCookie = cookieOf(accepted);
  const enrol = await (await fetch(`${baseUrl}/dashboard/enrol`, { headers: { Cookie: enrolCookie } })).text();
  const secret = /id="totp-secret">([A-Z2-7]+)</.exec(enrol)![1]!;
  const done = await post('/dashboard/enrol', { csrf: csrfIn(enrol), code: totpCode(secret, Date.now()) }, enrolCookie);
  if (done.status !== 200) throw new Error(`enrolment: ${done.status}`);
  return cookieOf(done);
}
