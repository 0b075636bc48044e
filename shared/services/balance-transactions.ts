import {
  balanceMovement,
  balanceTransactionId,
  balanceTransactionPosition,
  type BalanceTransactionType,
} from '#shared/domain/balance-transaction.ts';
import { again, retryOr, retryPolicies } from '#shared/retry.ts';
import type { Mode } from '#shared/domain/credentials.ts';
import type { Journal } from '#shared/domain/ledger.ts';
import { fromMinor, type Currency } from '#shared/domain/money.ts';
import { availableAfterFromCheckpoints, latestFinalBoundary } from './balance-checkpoints.ts';
import { journalsSince, pageJournals } from '#shared/store/balance-transactions.ts';
import { getWallet } from '#shared/store/wallets.ts';
import { getIntent } from '#shared/store/intents.ts';
import { getSettlement } from '#shared/store/settlements.ts';

/**
 * GET /Gateway/v1/BalanceTransactions (docs/merchant-guide.md, Balance transactions): the journals
 * that moved the merchant's wallet, newest first, as balance transactions in decimal units.
 */
export interface BalanceTransactionQuery {
  type?: BalanceTransactionType;
  sourceId?: string;
  /** The balance transactions a settlement covers, its own hold included (merchant guide, Settlement breakdowns). */
  settlement?: string;
  /** A payout's (withdrawal's) own: its hold, and its payment or release; a payout pays out exactly that. */
  payout?: string;
  from?: string;
  to?: string;
  startingAfter?: string;
  limit: number;
}

/**
 * How many journals a running balance may walk (from the newest to the page's last item) before it
 * is given up for that page (availableBalanceAfter null): pages near the present always have it.
 */
export const runningBalanceWalk = 1000;

export function balanceTransactionView(j: Journal, availableAfterMinor: number | null) {
  const m = balanceMovement(j);
  const c = j.currency as Currency;
  return {
    id: balanceTransactionId(j.createdAt, j.journalId),
    type: m.type,
    source: m.source,
    amount: fromMinor(m.amountMinor, c),
    fee: fromMinor(m.feeMinor, c),
    net: fromMinor(m.netMinor, c),
    availableChange: fromMinor(m.availableChangeMinor, c),
    pendingChange: fromMinor(m.pendingChangeMinor, c),
    currency: c,
    createdAt: j.createdAt,
    availableBalanceAfter: availableAfterMinor === null ? null : fromMinor(availableAfterMinor, c),
  };
}

export async function listBalanceTransactions(merchantId: string, mode: Mode, q: BalanceTransactionQuery) {
  const before = q.startingAfter === undefined ? undefined : balanceTransactionPosition(q.startingAfter);
  if (q.startingAfter !== undefined && before === undefined) return 'invalid_cursor' as const;
  const window = q.settlement === undefined ? {} : await settlementWindow(merchantId, mode, q.settlement);
  if (window === 'unknown_settlement') return window;
  const payout = q.payout === undefined ? undefined : await payoutOf(merchantId, mode, q.payout);
  if (payout === 'unknown_payout') return payout;
  if (payout !== undefined && q.sourceId !== undefined && q.sourceId !== payout) return { items: [], hasMore: false };
  const reference = payout ?? q.sourceId;
  const page = await pageJournals(merchantId, mode, {
    ...window,
    ...(q.type !== undefined ? { type: q.type } : {}),
    ...(reference !== undefined ? { reference } : {}),
    ...(q.from !== undefined ? { from: q.from } : {}),
    ...(q.to !== undefined ? { to: q.to } : {}),
    ...(before !== undefined ? { before } : {}),
    limit: q.limit,
  });
  const after = await availableAfter(merchantId, mode, page.items);
  return { items: page.items.map((j) => balanceTransactionView(j, after.get(j.journalId) ?? null)), hasMore: page.hasMore };
}

/** The positions and currency a settlement covers (its window and its own hold), or 'unknown_settlement'. */
async function settlementWindow(merchantId: string, mode: Mode, id: string) {
  const s = await getSettlement(id);
  if (!s || s.merchantId !== merchantId || s.mode !== mode) return 'unknown_settlement' as const;
  // A settlement from before breakdowns covers nothing it can name: only its own movements.
  if (s.cutoff === undefined) return { reference: s.id };
  return { ...(s.previousCutoff ? { after: s.previousCutoff } : {}), until: s.cutoff, currency: s.currency };
}

/** A payout's id (a withdrawal's paymentIntentId), or 'unknown_payout'. */
async function payoutOf(merchantId: string, mode: Mode, id: string) {
  const intent = await getIntent(id.toLowerCase());
  if (!intent || intent.merchantId !== merchantId || intent.mode !== mode || intent.intentType !== 'withdrawal')
    return 'unknown_payout' as const;
  return intent.paymentIntentId;
}

/**
 * The available balance after each journal of a page: the wallet now (an exact read: a snapshot of
 * every shard) minus what every newer journal moved, in journal order (`<createdAt>#<id>`). The
 * wallet is read before and after the journals; if it moved meanwhile, everything is read again
 * (at most 3 times, then the page has no running balance). Beyond runningBalanceWalk journals: from
 * the stored balance checkpoints around the page instead (shared/services/balance-checkpoints.ts). A page
 * older than the newest final day boundary has at least a day of journals after it, while a checkpoint
 * is at most half a day of journals away (the nearer of the two around it): the checkpoints are asked
 * first, so a deep page does not read runningBalanceWalk journals from the present only to give up.
 */
async function availableAfter(merchantId: string, mode: Mode, page: Journal[], now = new Date()): Promise<Map<string, number>> {
  const out = new Map<string, number>();
  const oldest = page.at(-1);
  if (!oldest) return out;
  if (oldest.createdAt < latestFinalBoundary(now)) {
    const anchored = await availableAfterFromCheckpoints(merchantId, mode, page);
    if (anchored.size) return anchored; // none stored yet (a merchant before its first daily job): the walk below
  }
  const currencies = [...new Set(page.map((j) => j.currency))];
  const read = () => Promise.all(currencies.map(async (c) => (await getWallet(merchantId, mode, c, true)).available));
  return retryOr(
    retryPolicies.consistentRead,
    async () => {
      const before = await read();
      const newer = await journalsSince(merchantId, mode, `${oldest.createdAt}#${oldest.journalId}`, runningBalanceWalk);
      if (!newer) return availableAfterFromCheckpoints(merchantId, mode, page);
      const now = await read();
      if (now.some((v, i) => v !== before[i])) return again;
      const running = new Map(currencies.map((c, i) => [c, now[i]!]));
      for (const j of newer) {
        const balance = running.get(j.currency);
        if (balance === undefined) continue;
        out.set(j.journalId, balance);
        running.set(j.currency, balance - balanceMovement(j).availableChangeMinor);
      }
      return out;
    },
    () => out,
  );
}
