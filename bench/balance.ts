import { mkdirSync, writeFileSync } from 'node:fs';
import { cpus, loadavg } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Balances } from '#shared/domain/ledger-invariants.ts';
import type { Journal } from '#shared/domain/ledger.ts';
import { benchCleanups, startBenchStack, startLocalApi } from './local-stack.ts';

/**
 * `npm run bench -- balance`: GET /Gateway/v1/BalanceTransactions with 100,000 journals for ONE merchant
 * (issue 28 §1) on the local stack (DynamoDB Local in memory, the local API Gateway emulation, the real
 * Lambda handler), bounded: BENCH_BALANCE_JOURNALS (100000), BENCH_BALANCE_REQUESTS (100 per scenario).
 *
 * Seeding: journals built by the ledger (shared/domain/ledger.ts `journal`) and written as the Put item
 * postJournal makes (the journal with its GSI1/GSI3 index keys), with BatchWriteItem (25 per call), over
 * 90 days, kinds spread as in a busy shop; then one operator credit and one settlement through the real
 * services, so the settlement covers every journal (its window is the whole history).
 *
 * Measured (sequential, interleaved round by round, after untimed warm-up rounds): the first page, by
 * type (common and rare), by source, a date range, cursor paging, and `?settlement=` (what a settlement
 * covers); p50, p95 and max of the whole HTTP request, target p95 < 300 ms. Also the settlement's
 * breakdown computed once in the background steps the due sweeper runs (they read its whole window by Query
 * pages, then store it): its time is reported, not a target. Results: a table and bench/results/balance.json.
 */
const journals = Number(process.env.BENCH_BALANCE_JOURNALS ?? 100_000);
const requestsPerScenario = Number(process.env.BENCH_BALANCE_REQUESTS ?? 100);
const warmup = 20;
const p95TargetMs = 300;
const resultsDir = fileURLToPath(new URL('./results/', import.meta.url));
const percentile = (sorted: number[], p: number) => sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil(p * sorted.length) - 1))]!;
const round1 = (n: number) => Math.round(n * 10) / 10;

/** A shop's mix of movements: payments and deposits, payouts held and paid, a few refunds and failures. */
const kindOf = (i: number) => {
  const k = i % 100;
  if (k < 70) return 'checkout.completed';
  if (k < 82) return 'deposit.completed';
  if (k < 88) return 'withdrawal.hold';
  if (k < 93) return 'withdrawal.completed';
  if (k < 94) return 'withdrawal.released';
  if (k < 97) return 'refund.hold';
  if (k < 99) return 'refund.completed';
  return 'refund.failed';
};

export async function runBalanceBench(): Promise<number> {
  const { cleanups, cleanup } = benchCleanups();
  const started = performance.now();
  try {
    await startBenchStack('payment-gateway-balance-bench', cleanups);
    const { db, tableName } = await import('#shared/store/client.ts');
    cleanups.push(() => db().destroy());
    const { BatchWriteItemCommand } = await import('@aws-sdk/client-dynamodb');
    const { createMerchant, creditTestWallet } = await import('#shared/services/merchants.ts');
    const { journal } = await import('#shared/domain/ledger.ts');
    const { postJournal } = await import('#shared/store/wallets.ts');
    const { foldWindow, zeroBalances } = await import('#shared/domain/ledger-invariants.ts');
    const { putCheckpoint } = await import('#shared/store/balance-checkpoints.ts');
    const { dayBoundary, latestFinalBoundary } = await import('#shared/services/balance-checkpoints.ts');
    const { signBody } = await import('#shared/domain/body-signature.ts');
    const { routes } = await import('#functions/routes.ts');
    const { countDynamoCalls } = await import('./counter.ts');

    const baseUrl = await startLocalApi(cleanups);
    const merchant = await createMerchant({ name: 'Balance Bench' });
    const m = merchant.merchantId;
    const now = Date.now() - 60_000;
    const day = 86_400_000;
    const sources: string[] = [];
    const entryAt = (i: number) => {
      const kind = kindOf(i);
      const amount = 100_00 + (i % 500) * 100;
      const fee = Math.round(amount * 0.02);
      const reference = kind.startsWith('refund') ? `ref-${i}` : `txn-${Math.floor(i / 3)}`;
      if (i % 997 === 0) sources.push(reference);
      const at = new Date(now - 90 * day + Math.floor((i / journals) * 90 * day));
      const lines: Record<string, { account: any; amount: number }[]> = {
        'checkout.completed': [
          { account: { kind: 'external', name: 'card_network' }, amount: -amount },
          { account: { kind: 'available' }, amount: amount - fee },
          { account: { kind: 'fees' }, amount: fee },
        ],
        'withdrawal.hold': [
          { account: { kind: 'available' }, amount: -amount },
          { account: { kind: 'held', holdType: 'Withdrawal' }, amount },
        ],
        'withdrawal.completed': [
          { account: { kind: 'held', holdType: 'Withdrawal' }, amount: -amount },
          { account: { kind: 'external', name: 'bank_rail' }, amount: amount - fee },
          { account: { kind: 'fees' }, amount: fee },
        ],
      };
      const movements =
        lines[kind] ??
        (kind === 'deposit.completed'
          ? lines['checkout.completed']!
          : kind.endsWith('.hold')
            ? [
                { account: { kind: 'available' }, amount: -amount },
                { account: { kind: 'held', holdType: 'Refund' }, amount },
              ]
            : kind === 'refund.completed'
              ? [
                  { account: { kind: 'held', holdType: 'Refund' }, amount: -amount },
                  { account: { kind: 'external', name: 'card_network' }, amount },
                ]
              : [
                  { account: { kind: 'held', holdType: kind.startsWith('refund') ? 'Refund' : 'Withdrawal' }, amount: -amount },
                  { account: { kind: 'available' }, amount },
                ]);
      return journal({ merchantId: m, mode: 'test', currency: 'PKR', kind, reference, movements, now: at });
    };

    console.log(`seeding ${journals.toLocaleString('en')} journals in bulk (BatchWriteItem of postJournal's journal items)...`);
    const seedStarted = performance.now();
    const flush = async (items: Record<string, unknown>[]) => {
      let pending = items.map((Item) => ({ PutRequest: { Item } })) as { PutRequest: { Item: any } }[];
      for (let attempt = 0; pending.length; attempt++) {
        const out = await db().send(new BatchWriteItemCommand({ RequestItems: { [tableName()]: pending } }));
        pending = (out.UnprocessedItems?.[tableName()] ?? []) as typeof pending;
        if (pending.length) await new Promise((ok) => setTimeout(ok, Math.min(1000, 20 * 2 ** attempt)));
      }
    };
    const inFlight = new Set<Promise<void>>();
    let batch: Record<string, unknown>[] = [];
    // Balance checkpoints as real traffic has them: the daily job (checkpointWallets) stores one per final UTC day
    // boundary, the fold of every journal before it. The seed's journals bypass the wallet (so ensureCheckpoint,
    // which checks against the wallet, would refuse): the same fold (the verifier's foldWindow) is stored as the
    // seed goes, one checkpoint per day boundary that is final now.
    const lastFinal = latestFinalBoundary(new Date());
    let boundary = dayBoundary(new Date(now - 90 * day + day));
    let folded: Balances = zeroBalances();
    let dayJournals: Journal[] = [];
    let journalsBefore = 0;
    let feesBefore = 0;
    let checkpoints = 0;
    const closeDay = async () => {
      const f = foldWindow({ merchantId: m, mode: 'test', opening: new Map([['PKR', folded]]), journals: dayJournals });
      folded = f.folds.get('PKR') ?? folded;
      journalsBefore += dayJournals.length;
      feesBefore += f.feeLines.get('PKR') ?? 0;
      dayJournals = [];
      await putCheckpoint({
        merchantId: m,
        mode: 'test',
        currency: 'PKR',
        boundary,
        balances: { ...folded },
        journals: journalsBefore,
        feesMinor: feesBefore,
        basis: 'bench seed',
        verifiedAgainst: 'bench seed',
        computedAt: new Date().toISOString(),
      });
      checkpoints++;
      boundary = new Date(Date.parse(boundary) + day).toISOString();
    };
    for (let i = 0; i < journals; i++) {
      const entry = entryAt(i);
      while (entry.journal.createdAt >= boundary && boundary <= lastFinal) await closeDay();
      dayJournals.push(entry.journal);
      batch.push(postJournal(entry)[0]!.Put!.Item as Record<string, unknown>);
      if (batch.length < 25 && i < journals - 1) continue;
      const p: Promise<void> = flush(batch).then(() => {
        inFlight.delete(p);
      });
      inFlight.add(p);
      batch = [];
      if (inFlight.size >= 8) await Promise.race(inFlight);
      if ((i + 1) % 20_000 === 0)
        console.log(`  ${(i + 1).toLocaleString('en')} (${Math.round((performance.now() - seedStarted) / 1000)} s)`);
    }
    await Promise.all(inFlight);
    while (boundary <= lastFinal) await closeDay();
    console.log(`  ${checkpoints} balance checkpoints (one per final UTC day boundary)`);
    const seedSeconds = (performance.now() - seedStarted) / 1000;

    // A settlement through the services: its window is the whole history.
    await creditTestWallet(m, 'test', 1_000_000_00, 'PKR');
    const post = async (path: string, json: Record<string, unknown>) => {
      const body = routes.createSettlement.signature ? { ...json, signature: signBody(json, merchant.test.secretKey) } : json;
      const r = await fetch(`${baseUrl}${path}`, {
        method: 'POST',
        headers: { 'Svc-API-Key': merchant.test.apiKey, 'Content-Type': 'application/json' },
        body: JSON.stringify(body),
      });
      if (!r.ok) throw new Error(`${path}: ${r.status} ${await r.text()}`);
      return (await r.json()) as { id: string };
    };
    const settlement = await post('/Gateway/v1/Settlements', {
      amount: 1000,
      currency: 'PKR',
      bankName: 'HBL',
      iban: 'PK36SCBL0000001123456702',
      accountTitle: 'Balance Bench',
    });
    const get = async (path: string) => {
      const r = await fetch(`${baseUrl}${path}`, { headers: { 'Svc-API-Key': merchant.test.apiKey } });
      return { status: r.status, text: await r.text() };
    };
    console.log(`seeded in ${Math.round(seedSeconds)} s`);

    const counter = countDynamoCalls();
    cleanups.push(() => counter.remove());
    const from = new Date(now - 30 * day).toISOString().slice(0, 10);
    const to = new Date(now - 20 * day).toISOString().slice(0, 10);
    const list = '/Gateway/v1/BalanceTransactions';
    let cursor = '';
    const scenarios: { name: string; path: () => string; after?: (text: string) => void }[] = [
      { name: 'first page', path: () => list },
      { name: 'type = payment', path: () => `${list}?type=payment` },
      { name: 'type = refund_failure (rare)', path: () => `${list}?type=refund_failure` },
      { name: 'sourceId (one transaction)', path: () => `${list}?sourceId=${sources[7]}` },
      { name: `created ${from}..${to}`, path: () => `${list}?from=${from}&to=${to}` },
      { name: 'settlement = <id> (its whole history)', path: () => `${list}?settlement=${settlement.id}` },
      {
        name: 'cursor paging (startingAfter)',
        path: () => `${list}${cursor ? `?startingAfter=${cursor}` : ''}`,
        after: (text) => {
          const page = JSON.parse(text) as { items: { id: string }[]; hasMore: boolean };
          cursor = page.hasMore ? page.items.at(-1)!.id : '';
        },
      },
    ];
    const state = scenarios.map(() => ({ times: [] as number[], calls: [] as number[], rows: [] as number[], read: [] as number[] }));
    console.log(`measuring ${scenarios.length} scenarios, ${requestsPerScenario} requests each (after ${warmup} untimed rounds)...`);
    for (let round = 0; round < warmup + requestsPerScenario; round++) {
      for (const [i, s] of scenarios.entries()) {
        const path = s.path();
        counter.reset();
        const t0 = performance.now();
        const r = await get(path);
        const ms = performance.now() - t0;
        if (r.status !== 200) throw new Error(`${s.name}: ${path} answered ${r.status}: ${r.text.slice(0, 300)}`);
        s.after?.(r.text);
        if (round < warmup) continue;
        state[i]!.times.push(ms);
        state[i]!.calls.push(counter.calls);
        state[i]!.read.push(counter.itemsRead);
        state[i]!.rows.push((JSON.parse(r.text) as { items: unknown[] }).items.length);
      }
    }
    const results = scenarios.map((s, i) => {
      const sorted = [...state[i]!.times].sort((a, b) => a - b);
      const { calls, rows, read } = state[i]!;
      const sortedRead = [...read].sort((a, b) => a - b);
      return {
        scenario: s.name,
        p50Ms: round1(percentile(sorted, 0.5)),
        p95Ms: round1(percentile(sorted, 0.95)),
        maxMs: round1(sorted.at(-1)!),
        dynamoCalls: `${Math.min(...calls)}-${Math.max(...calls)}`,
        rows: `${Math.min(...rows)}-${Math.max(...rows)}`,
        itemsRead: `${sortedRead[0]}/${percentile(sortedRead, 0.5)}/${sortedRead.at(-1)}`,
        met: percentile(sorted, 0.95) < p95TargetMs,
      };
    });
    const table = [
      `| Scenario | p50 ms | p95 ms | max ms | DynamoDB calls | Items read min/p50/max | Rows | p95 < ${p95TargetMs} ms |`,
      '|---|---:|---:|---:|---:|---:|---:|---|',
      ...results.map(
        (r) =>
          `| ${r.scenario} | ${r.p50Ms} | ${r.p95Ms} | ${r.maxMs} | ${r.dynamoCalls} | ${r.itemsRead} | ${r.rows} | ` +
          `${r.met ? 'met' : 'MISSED'} |`,
      ),
    ].join('\n');
    console.log(
      `\n${journals.toLocaleString('en')} journals for one merchant, load average ${loadavg().map(round1).join(' ')}\n\n${table}`,
    );
    // After the list scenarios (it can take minutes on DynamoDB Local): the lookup queues the breakdown (more than
    // BREAKDOWN_REQUEST_CAP movements) and the due sweeper's steps sum the whole window (here: all history) by Query
    // pages, then store it; measured through the service, reported, not a target. BENCH_BALANCE_BREAKDOWN=0 skips it.
    let breakdownMs: number | null = null;
    if (process.env.BENCH_BALANCE_BREAKDOWN !== '0') {
      const { getSettlement } = await import('#shared/store/settlements.ts');
      const { advanceBreakdown, settlementBreakdown } = await import('#shared/services/settlement-breakdown.ts');
      const b0 = performance.now();
      const queued = await settlementBreakdown((await getSettlement(settlement.id))!);
      let steps = 0;
      while (queued === 'computing' && (await advanceBreakdown(settlement.id)) === 'pending') steps++;
      breakdownMs = performance.now() - b0;
      const first = await get(`/Gateway/v1/Settlements/${settlement.id}`);
      if (first.status !== 200) throw new Error(`settlement lookup: ${first.status} ${first.text.slice(0, 200)}`);
      console.log(
        `the settlement's breakdown (${JSON.parse(first.text).breakdown?.count} movements) computed in ${Math.round(breakdownMs)} ms, ` +
          `${steps + 1} steps`,
      );
    }
    mkdirSync(resultsDir, { recursive: true });
    const report = {
      generatedAt: new Date().toISOString(),
      node: process.version,
      journals,
      seedSeconds: Math.round(seedSeconds),
      breakdownFirstComputationMs: breakdownMs === null ? null : Math.round(breakdownMs),
      loadAverage: loadavg().map(round1),
      cpus: cpus().length,
      durationMs: Math.round(performance.now() - started),
      results,
    };
    writeFileSync(join(resultsDir, 'balance.json'), `${JSON.stringify(report, null, 2)}\n`);
    return 0;
  } finally {
    await cleanup();
  }
}
