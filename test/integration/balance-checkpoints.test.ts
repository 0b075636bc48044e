import { describe, expect, it } from 'vitest';
import { routeList } from '#functions/routes.ts';
import { balanceMovement } from '#shared/domain/balance-transaction.ts';
import { journal } from '#shared/domain/ledger.ts';
import { fromMinor } from '#shared/domain/money.ts';
import { dayBoundary, ensureCheckpoint, latestFinalBoundary, LedgerRefusal } from '#shared/services/balance-checkpoints.ts';
import { checkpointAtOrBefore } from '#shared/store/balance-checkpoints.ts';
import { addDbMiddleware, transact } from '#shared/store/client.ts';
import { raiseShards } from '#shared/store/shards.ts';
import { getWallet, listJournals, postJournal, rebalanceWallet } from '#shared/store/wallets.ts';
import { seedJournals } from '../support/bulk-seed.ts';
import { call, newMerchant, useGateway, type TestMerchant } from '../support/gateway.ts';

/**
 * Balance checkpoints (issue 28 §3): the balances at a UTC day boundary, stored once, equal to the
 * fold of every journal before the boundary on every shard, never to one written meanwhile; they
 * give deep pages of GET /BalanceTransactions their running balance.
 */
const day = 86_400_000;

/** A journal moving the wallet as a paid payment or an operator credit does, at a chosen time. */
function credit(m: TestMerchant, amountMinor: number, at: Date, feeMinor = 0) {
  return postJournal(
    journal({
      merchantId: m.merchantId,
      mode: 'test',
      currency: 'PKR',
      kind: feeMinor ? 'checkout.completed' : 'wallet.credit',
      reference: `operator:ckpt-${at.getTime()}-${Math.random()}`,
      movements: [
        { account: { kind: 'external', name: 'sandbox_funding' }, amount: -amountMinor },
        { account: { kind: 'available' }, amount: amountMinor - feeMinor },
        { account: { kind: 'fees' }, amount: feeMinor },
      ],
      now: at,
    }),
  );
}

async function inBatches(writes: ReturnType<typeof credit>[], size = 20) {
  for (let i = 0; i < writes.length; i += size) await Promise.all(writes.slice(i, i + size).map((w) => transact(w)));
}

describe('balance checkpoints', () => {
  const gw = useGateway(routeList);

  for (const shards of [1, 4]) {
    it(`is the fold of the journals before its boundary, under concurrent postings and moves (${shards} shard(s))`, async () => {
      const m = await newMerchant();
      if (shards > 1) await raiseShards(m.merchantId, 'test', shards, { immediate: true });
      const now = new Date();
      const boundary = dayBoundary(new Date(now.getTime() - day)); // yesterday 00:00: final
      const before = new Date(Date.parse(boundary) - 3 * 3_600_000);
      await inBatches(Array.from({ length: 30 }, (_, i) => credit(m, 100_00 + i, new Date(before.getTime() + i), i % 3 ? 2_50 : 0)));
      const atBoundary = await getWallet(m.merchantId, 'test', 'PKR', true); // every journal so far is before the boundary
      // While checkpoints are computed (twice at once), journals after the boundary commit and shards rebalance.
      const later = Array.from({ length: 20 }, (_, i) => credit(m, 7_00 + i, new Date(now.getTime() - 1000 + i)));
      const [a, b] = await Promise.all([
        ensureCheckpoint(m.merchantId, 'test', 'PKR', boundary, { now }),
        ensureCheckpoint(m.merchantId, 'test', 'PKR', boundary, { now }),
        inBatches(later, 4),
        shards > 1 ? rebalanceWallet(m.merchantId, 'test', 'PKR') : Promise.resolve(0),
      ]);
      // A balance that existed: the wallet as it was when every journal before the boundary had committed.
      expect(a!.balances).toMatchObject({ available: atBoundary.available, held: atBoundary.held });
      expect(b).toEqual(a);
      expect(a!.journals).toBe(30);
      const journals = await listJournals(m.merchantId, 'test');
      const fold = journals.filter((j) => j.createdAt < boundary).reduce((s, j) => s + balanceMovement(j).availableChangeMinor, 0);
      expect(a!.balances.available).toBe(fold);
      expect(a!.feesMinor).toBe(20 * 2_50);
      expect(await checkpointAtOrBefore(m.merchantId, 'test', 'PKR', boundary)).toEqual(a);
    }, 60_000);
  }

  it('gives GET /BalanceTransactions a running balance deeper than 1,000 movements', async () => {
    const m = await newMerchant();
    const boundary = dayBoundary(new Date(Date.now() - day));
    const start = Date.parse(boundary) - 2 * day;
    // The depth seeded in bulk (postJournal's own items, few requests); the newest through real transactions.
    await seedJournals(Array.from({ length: 1010 }, (_, i) => credit(m, 1_00 + i, new Date(start + i * 1000))));
    await inBatches(Array.from({ length: 5 }, (_, i) => credit(m, 50_00, new Date(Date.now() - 5000 + i))));
    const journals = await listJournals(m.merchantId, 'test'); // oldest first
    const oldestPage = async () => {
      const to = journals[49]!.createdAt;
      const r = await call(gw.baseUrl, 'GET', `/Gateway/v1/BalanceTransactions?limit=50&to=${encodeURIComponent(to)}`, {
        key: m.test.apiKey,
      });
      expect(r.status).toBe(200);
      return r.json.items as { availableBalanceAfter: number | null }[];
    };
    expect((await oldestPage()).every((b) => b.availableBalanceAfter === null)).toBe(true); // 1,015 movements deep
    await ensureCheckpoint(m.merchantId, 'test', 'PKR', dayBoundary(new Date(start)));
    let running = 0;
    const expected = journals.slice(0, 50).map((j) => fromMinor((running += balanceMovement(j).availableChangeMinor), 'PKR'));
    expect((await oldestPage()).map((b) => b.availableBalanceAfter)).toEqual(expected.reverse());
  }, 120_000);

  it('gives a deep page its running balance from the nearer checkpoint, reading about its own span, not 1,000 journals', async () => {
    const m = await newMerchant();
    const d0 = dayBoundary(new Date(Date.now() - 3 * day));
    const d1 = new Date(Date.parse(d0) + day).toISOString();
    const spread = (n: number, from: string) => Array.from({ length: n }, (_, i) => new Date(Date.parse(from) + ((i + 0.5) * day) / n));
    // The depth seeded in bulk (postJournal's own items, few requests); the newest through real transactions.
    await seedJournals(spread(200, d0).map((at, i) => credit(m, 10_00 + i, at, i % 4 ? 0 : 25)));
    await seedJournals(spread(1100, d1).map((at, i) => credit(m, 1_00 + i, at)));
    await inBatches(Array.from({ length: 5 }, (_, i) => credit(m, 50_00, new Date(Date.now() - 5000 + i))));
    await ensureCheckpoint(m.merchantId, 'test', 'PKR', d1); // and the newest final boundary before it
    await ensureCheckpoint(m.merchantId, 'test', 'PKR', d0);
    const journals = await listJournals(m.merchantId, 'test'); // oldest first
    let running = 0;
    const after = new Map(journals.map((j) => [j.journalId, (running += balanceMovement(j).availableChangeMinor)]));
    // Query items evaluated while the request runs (the local server is this process: the same client).
    let read = 0;
    const name = 'countBalanceReads';
    const removeMiddleware = addDbMiddleware(name, (stack) =>
      stack.add(
        (next, context) => async (args) => {
          const out = await next(args);
          if (context.commandName === 'QueryCommand') read += (out.output as { ScannedCount?: number }).ScannedCount ?? 0;
          return out;
        },
        { step: 'initialize', name },
      ),
    );
    try {
      const pageTo = async (j: (typeof journals)[number]) => {
        read = 0;
        const r = await call(gw.baseUrl, 'GET', `/Gateway/v1/BalanceTransactions?limit=10&to=${encodeURIComponent(j.createdAt)}`, {
          key: m.test.apiKey,
        });
        expect(r.status).toBe(200);
        return { items: r.json.items as { id: string; availableBalanceAfter: number | null }[], read };
      };
      // Late on day 0 (1,105 journals after it): backward from the checkpoint at day 1, the 13 journals up to it.
      // Early on day 1 (1,095 after it): forward from the checkpoint at day 1. Before: 1,001 journals read from the
      // present to find it too deep, then the walk from the checkpoint before the page (up to a day).
      for (const last of [journals[195]!, journals[209]!]) {
        const page = await pageTo(last);
        const mine = journals.slice(journals.indexOf(last) - 9, journals.indexOf(last) + 1).reverse();
        expect(page.items.map((b) => b.availableBalanceAfter)).toEqual(mine.map((j) => fromMinor(after.get(j.journalId)!, 'PKR')));
        expect(page.read).toBeLessThan(60); // the page (12), two checkpoint reads, the journals to the nearer one
      }
    } finally {
      removeMiddleware();
    }
  }, 180_000);

  it('gives a page after the last final boundary its running balance from the checkpoint past 1,000 newer journals', async () => {
    // The page is newer than every final boundary, so its running balance is walked from the present; with over
    // runningBalanceWalk journals after it the walk gives up and the checkpoint before the page answers instead.
    const m = await newMerchant();
    const boundary = latestFinalBoundary(new Date()); // at least an hour before now: room for 1,010 journals a second apart
    await seedJournals(Array.from({ length: 1010 }, (_, i) => credit(m, 1_00 + i, new Date(Date.parse(boundary) + (i + 1) * 1000))));
    await inBatches(Array.from({ length: 5 }, (_, i) => credit(m, 50_00, new Date(Date.now() - 5000 + i))));
    await ensureCheckpoint(m.merchantId, 'test', 'PKR', boundary); // no journal before it: all zero
    const journals = await listJournals(m.merchantId, 'test'); // oldest first
    let running = 0;
    const expected = journals.slice(0, 50).map((j) => fromMinor((running += balanceMovement(j).availableChangeMinor), 'PKR'));
    const r = await call(gw.baseUrl, 'GET', `/Gateway/v1/BalanceTransactions?limit=50&to=${encodeURIComponent(journals[49]!.createdAt)}`, {
      key: m.test.apiKey,
    });
    expect(r.status).toBe(200);
    expect((r.json.items as { availableBalanceAfter: number | null }[]).map((b) => b.availableBalanceAfter)).toEqual(expected.reverse());
  }, 120_000);

  it('refuses a checkpoint whose journals do not add up to the wallet', async () => {
    const m = await newMerchant();
    const boundary = dayBoundary(new Date(Date.now() - day));
    await inBatches([credit(m, 10_00, new Date(Date.parse(boundary) - 60_000))]);
    // A wallet moved without its journal (as a lost or altered journal would leave it).
    await transact(credit(m, 5_00, new Date()).slice(1)); // postJournal's writes: [journal, wallet]
    const refused = await ensureCheckpoint(m.merchantId, 'test', 'PKR', boundary).catch((e: unknown) => e);
    expect(refused).toBeInstanceOf(LedgerRefusal);
    expect((refused as LedgerRefusal).discrepancies.map((d) => d.rule)).toContain('wallet-fold');
    expect(await checkpointAtOrBefore(m.merchantId, 'test', 'PKR', boundary)).toBeUndefined();
  }, 30_000);
});
