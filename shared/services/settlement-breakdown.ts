import { balanceMovement } from '#shared/domain/balance-transaction.ts';
import { addMovements, breakdownOf, finishBreakdown, type SettlementBreakdown } from '#shared/domain/settlement-breakdown.ts';
import type { Settlement } from '#shared/domain/settlement.ts';
import { logger } from '#shared/logger.ts';
import { journalsBetween, windowChunk, windowDone } from '#shared/store/balance-transactions.ts';
import { readShards } from '#shared/store/shards.ts';
import {
  dropBreakdownJob,
  getBreakdownJob,
  getSettlement,
  queueBreakdownJob,
  saveBreakdownProgress,
  saveSettlementBreakdown,
} from '#shared/store/settlements.ts';

/**
 * Settlement breakdowns (docs/merchant-guide.md, Settlement breakdowns; the rule in
 * shared/domain/settlement-breakdown.ts; the cut-off each settlement's hold sets: settlement-hold.ts).
 *
 * A request (a lookup, the dashboard, an operator's decision) sums a window of at most BREAKDOWN_REQUEST_CAP movements
 * itself (default 20,000). A larger one is queued as a breakdown job in the money due index and summed by the due
 * sweeper a step at a time (each step reads Query pages for at most BREAKDOWN_STEP_MS, default 8 s, and saves where it
 * stands), so no request waits for it and no run times out however long the window; until it is stored, a lookup
 * answers 'computing'.
 */
export const requestBreakdownCap = () => Number(process.env.BREAKDOWN_REQUEST_CAP ?? 20_000);
const stepMs = () => Number(process.env.BREAKDOWN_STEP_MS ?? 8_000);
/** Journals one Query page of a step evaluates per wallet shard (a page also stops at DynamoDB's 1 MB). */
const pageLimit = () => Number(process.env.BREAKDOWN_PAGE_LIMIT ?? 5_000);

/** A breakdown, `computing` while a large window is summed in the background, or null (a settlement from before breakdowns). */
export type BreakdownState = SettlementBreakdown | 'computing' | null;

async function queue(s: Settlement, now: Date): Promise<void> {
  if (await queueBreakdownJob(s.id, await readShards(s.merchantId, s.mode), now))
    logger.info('settlement breakdown queued', { settlementId: s.id, merchantId: s.merchantId });
}

/**
 * A settlement's breakdown: stored on the settlement once computed (its window is closed since its hold committed, so
 * it never changes); else the previous settlement's carriedForward (computed first when it has none) and the journals
 * of the window, read by Query when there are at most `cap`; more (anywhere in the chain): queued, 'computing'.
 */
export async function settlementBreakdown(s: Settlement, cap = requestBreakdownCap(), now = new Date()): Promise<BreakdownState> {
  if (s.breakdown) return s.breakdown;
  if (s.cutoff === undefined) return null;
  // The chain back to the newest stored breakdown (each settlement's carriedIn is the previous one's carriedForward).
  const chain: Settlement[] = [s];
  let carriedIn = 0;
  for (let at = s; at.previousSettlementId; ) {
    const previous = await getSettlement(at.previousSettlementId);
    if (!previous || previous.cutoff === undefined) break;
    if (previous.breakdown) {
      carriedIn = previous.breakdown.carriedForwardMinor;
      break;
    }
    chain.push(previous);
    at = previous;
  }
  let last: SettlementBreakdown | undefined;
  for (const item of chain.reverse()) {
    const journals = (await getBreakdownJob(item.id))
      ? undefined
      : await journalsBetween(item.merchantId, item.mode, item.currency, item.previousCutoff ?? null, item.cutoff!, cap);
    if (!journals) {
      // Too many to sum in a request (or being summed): the sweep sums it; this settlement's own job waits for it.
      await queue(item, now);
      if (item !== s) await queue(s, now);
      return 'computing';
    }
    last = breakdownOf(journals.map(balanceMovement), carriedIn, item.amountMinor);
    await saveSettlementBreakdown(item.id, last);
    carriedIn = last.carriedForwardMinor;
  }
  return last!;
}

/** The settlement with its breakdown (stored, or computed and stored now when small): what status changes and their events carry. */
export async function withBreakdown(s: Settlement | undefined): Promise<Settlement | undefined> {
  if (!s || s.breakdown || s.cutoff === undefined) return s;
  const breakdown = await settlementBreakdown(s);
  return breakdown && breakdown !== 'computing' ? { ...s, breakdown } : s;
}

/**
 * One step of a queued breakdown (the due sweeper, functions/jobs.ts): read each wallet shard's window on from where
 * it stands, for at most BREAKDOWN_STEP_MS, and save the sums, conditioned on the step read (overlapping sweeps add
 * each page once). Once every shard is read and the previous settlement's breakdown is known: stored, job dropped.
 */
export async function advanceBreakdown(id: string, now = new Date()): Promise<'stored' | 'pending'> {
  const job = await getBreakdownJob(id);
  if (!job) return 'stored';
  const s = await getSettlement(id);
  if (!s || s.breakdown || s.cutoff === undefined) {
    await dropBreakdownJob(id);
    return 'stored';
  }
  const window = { after: s.previousCutoff ?? null, before: s.cutoff };
  const cursors = [...job.cursors];
  let sums = job.sums;
  const started = Date.now();
  do {
    const pages = await Promise.all(
      cursors.map((c, shard) =>
        c === windowDone ? undefined : windowChunk(s.merchantId, s.mode, s.currency, window, shard, c, pageLimit()),
      ),
    );
    pages.forEach((page, shard) => {
      if (!page) return;
      sums = addMovements(sums, page.journals.map(balanceMovement));
      cursors[shard] = page.cursor;
    });
  } while (cursors.some((c) => c !== windowDone) && Date.now() - started < stepMs());
  if (cursors.every((c) => c === windowDone)) {
    const previous = s.previousSettlementId ? await getSettlement(s.previousSettlementId) : undefined;
    const before = previous?.cutoff === undefined ? null : await settlementBreakdown(previous, requestBreakdownCap(), now);
    if (before !== 'computing') {
      await saveSettlementBreakdown(s.id, finishBreakdown(sums, before?.carriedForwardMinor ?? 0, s.amountMinor));
      await dropBreakdownJob(s.id);
      logger.info('settlement breakdown stored', { settlementId: s.id, count: sums.count, steps: job.step + 1 });
      return 'stored';
    }
  }
  // Due again at once (the sweep's next pass), or a little later while the previous settlement's is summed.
  const waiting = cursors.every((c) => c === windowDone);
  await saveBreakdownProgress(job, cursors, sums, new Date(now.getTime() + (waiting ? 5_000 : 0)).toISOString());
  return 'pending';
}
