import { balanceMovement } from '#shared/domain/balance-transaction.ts';
import { again, retry, retryOr, retryPolicies } from '#shared/retry.ts';
import type { Mode } from '#shared/domain/credentials.ts';
import { DomainError } from '#shared/domain/errors.ts';
import { holdTypes, type Journal } from '#shared/domain/ledger.ts';
import { checkWindow, foldWindow, zeroBalances, type Balances, type Discrepancy } from '#shared/domain/ledger-invariants.ts';
import type { Currency } from '#shared/domain/money.ts';
import { logger } from '#shared/logger.ts';
import { emitMetric, metricNames } from '#shared/metrics.ts';
import {
  checkpointAfter,
  checkpointAtOrBefore,
  journalPagesBetween,
  putCheckpoint,
  type BalanceCheckpoint,
} from '#shared/store/balance-checkpoints.ts';
import { getWallet, type WalletRecord } from '#shared/store/wallets.ts';

/**
 * Balance checkpoints (docs/ledger-verification.md, Balance checkpoints): a merchant's balances in
 * one mode and currency at a UTC day boundary, stored once, so a statement has its opening and
 * closing balances and a balance transaction its running balance at any depth without folding the
 * whole journal.
 *
 * Exact by construction: a checkpoint is the fold of every journal positioned before its boundary
 * (`<createdAt>#<journalId>`, on every shard), and it is only computed once no such journal can
 * still commit: a journal commits within one invocation of the function that built it (at most
 * 15 minutes), so a boundary is final `settleMs` after it. Before it is stored it is checked, with
 * the ledger verifier's own rules (checkWindow: zero-sum, wallet-fold, negative), against the next
 * anchor: the next stored checkpoint (the fold of the journals between must lead to it), or, for
 * the newest, the live wallet read as a snapshot of every shard before and after the fold (both
 * equal: no journal committed meanwhile, so the fold and the wallet describe the same moment: a
 * balance that existed). Two writers compute the same figures; the second compares (never overwrites).
 */
export const settleMs = 60 * 60_000;

/** The UTC day boundary at or before a time. */
export const dayBoundary = (t: Date | string) => `${new Date(t).toISOString().slice(0, 10)}T00:00:00.000Z`;
/** The latest boundary whose journals are final at `now`. */
export const latestFinalBoundary = (now: Date) => dayBoundary(new Date(now.getTime() - settleMs));

/** Journals a request may fold to make a missing checkpoint (the daily job has no such bound). */
export const requestFoldCap = 100_000;

/**
 * The books do not add up: the refusal a statement or checkpoint gives instead of figures (409), logged with every
 * discrepancy and counted in LedgerDiscrepancies (Scope checkpoints).
 */
export class LedgerRefusal extends DomainError {
  constructor(
    readonly discrepancies: Discrepancy[],
    what: string,
  ) {
    super(
      'conflict',
      `The ${what} cannot be produced: the ledger does not add up (${discrepancies.map((d) => d.rule).join(', ')}). ` +
        'Operations have been alerted; quote the traceId to support.',
      { code: 'ledger_unbalanced' },
    );
    logger.error('ledger refusal', { what, discrepancies });
    // The LedgerDiscrepancy alarm (infra/observability.ts) counts these beside the verifier's runs.
    emitMetric(metricNames.ledgerDiscrepancies, discrepancies.length, { Scope: 'checkpoints' });
  }
}

const notReady = (detail: string, retryAfterSeconds = 60) =>
  new DomainError('unavailable', detail, { code: 'balance_not_ready', retryAfterSeconds });

/** 503 balance_not_ready: a journal committed between every two reads of the wallet. */
export const walletTooBusy = () => notReady('The balance is changing too fast to be checked now; try again shortly.', 5);

/** A wallet record as balances by attribute (available, held, held_<HoldType>). */
export const walletBalances = (w: WalletRecord): Balances => ({
  available: w.available,
  held: w.held,
  ...Object.fromEntries(holdTypes.map((t) => [`held_${t}`, w.heldByType[t] ?? 0])),
});

interface Folded {
  balances: Balances;
  journals: number;
  feesMinor: number;
}

/** Opening balances plus the journals of one currency in [from, to), page by page; a journal that does not sum to zero refuses. */
async function foldBetween(
  ref: { merchantId: string; mode: Mode; currency: string },
  opening: Folded,
  from: string,
  to: string | undefined,
  cap: number,
): Promise<Folded> {
  let { balances, journals, feesMinor } = opening;
  for await (const page of journalPagesBetween(ref.merchantId, ref.mode, ref.currency, from, to)) {
    const f = foldWindow({ merchantId: ref.merchantId, mode: ref.mode, opening: new Map([[ref.currency, balances]]), journals: page });
    if (f.discrepancies.length) throw new LedgerRefusal(f.discrepancies, 'balance');
    balances = f.folds.get(ref.currency)!;
    journals += page.length;
    feesMinor += f.feeLines.get(ref.currency) ?? 0;
    if (journals - opening.journals > cap) throw notReady('The balance history is still being summarised; try again in a few minutes.');
  }
  return { balances, journals, feesMinor };
}

/** wallet-fold between two ends, as the ledger verifier checks it (refuses when they differ). */
function compare(
  ref: { merchantId: string; mode: Mode; currency: string },
  folded: Balances,
  closing: Balances,
  labels: { closing: string; fold: string },
) {
  const { discrepancies } = checkWindow({
    merchantId: ref.merchantId,
    mode: ref.mode,
    opening: new Map([[ref.currency, folded]]),
    journals: [],
    closing: [{ currency: ref.currency, ...closing }],
    labels,
  });
  if (discrepancies.length) throw new LedgerRefusal(discrepancies, 'balance');
}

const sameWallet = (a: WalletRecord, b: WalletRecord) =>
  a.updatedAt === b.updatedAt && JSON.stringify(walletBalances(a)) === JSON.stringify(walletBalances(b));

/** Checks a new checkpoint against the next anchor; returns what it was checked against. */
async function verify(c: BalanceCheckpoint, cap: number): Promise<string> {
  const start: Folded = { balances: c.balances, journals: c.journals, feesMinor: c.feesMinor };
  const next = await checkpointAfter(c.merchantId, c.mode, c.currency, c.boundary);
  if (next) {
    const folded = await foldBetween(c, start, c.boundary, next.boundary, cap);
    compare(c, folded.balances, next.balances, {
      closing: `checkpoint ${next.boundary}`,
      fold: `checkpoint ${c.boundary} and the journals between add up to`,
    });
    return `checkpoint ${next.boundary}`;
  }
  return retry(
    { ...retryPolicies.consistentRead, attempts: 5 },
    async () => {
      const before = await getWallet(c.merchantId, c.mode, c.currency as Currency, true);
      const folded = await foldBetween(c, start, c.boundary, undefined, cap);
      const after = await getWallet(c.merchantId, c.mode, c.currency as Currency, true);
      if (!sameWallet(before, after)) return again; // a journal committed meanwhile: fold again
      compare(c, folded.balances, walletBalances(after), {
        closing: 'wallet',
        fold: `checkpoint ${c.boundary} and the journals since add up to`,
      });
      return `wallet ${after.updatedAt ?? 'empty'}`;
    },
    walletTooBusy,
  );
}

/**
 * Every journal of one currency positioned at or after `from` (a final boundary) and the live wallet, read as one
 * moment: the wallet (every shard) before and after the journals, equal (no journal committed meanwhile), so
 * the journals and the wallet describe the same balance. What a provisional statement runs to the present
 * with. More than `cap` journals: `tooMany()` is thrown; undefined when a journal committed between the two
 * reads each of `attempts` times (a wallet that never pauses).
 */
export async function journalsToWallet(
  merchantId: string,
  mode: Mode,
  currency: string,
  from: string,
  cap: number,
  tooMany: () => Error,
  attempts = 3,
): Promise<{ journals: Journal[]; wallet: Balances } | undefined> {
  return retryOr(
    { ...retryPolicies.consistentRead, attempts },
    async () => {
      const before = await getWallet(merchantId, mode, currency as Currency, true);
      const journals: Journal[] = [];
      for await (const page of journalPagesBetween(merchantId, mode, currency, from, undefined)) {
        journals.push(...page);
        if (journals.length > cap) throw tooMany();
      }
      const after = await getWallet(merchantId, mode, currency as Currency, true);
      return sameWallet(before, after) ? { journals, wallet: walletBalances(after) } : again;
    },
    () => undefined,
  );
}

/**
 * The checkpoint at a boundary: the stored one, or computed from the latest earlier one (or the
 * empty wallet), checked against the next anchor, and stored. The newest final boundary is made
 * first when nothing after `boundary` is stored yet, so the live wallet is only ever compared with
 * the journals of the last day or so.
 */
export async function ensureCheckpoint(
  merchantId: string,
  mode: Mode,
  currency: string,
  boundary: string,
  options: { now?: Date; cap?: number } = {},
): Promise<BalanceCheckpoint> {
  const now = options.now ?? new Date();
  const cap = options.cap ?? requestFoldCap;
  const latest = latestFinalBoundary(now);
  if (boundary > latest) {
    const wait = Math.ceil((Date.parse(boundary) + settleMs - now.getTime()) / 1000);
    throw notReady(`The balance at ${boundary} is final ${Math.round(settleMs / 60_000)} minutes after it; try again later.`, wait);
  }
  const base = await checkpointAtOrBefore(merchantId, mode, currency, boundary);
  if (base?.boundary === boundary) return base;
  if (boundary !== latest && !(await checkpointAfter(merchantId, mode, currency, boundary)))
    await ensureCheckpoint(merchantId, mode, currency, latest, options);
  const ref = { merchantId, mode, currency };
  const start: Folded = base ?? { balances: zeroBalances(), journals: 0, feesMinor: 0 };
  const folded = await foldBetween(ref, start, base?.boundary ?? '', boundary, cap);
  const checkpoint: BalanceCheckpoint = {
    merchantId,
    mode,
    currency,
    boundary,
    ...folded,
    basis: base ? base.boundary : 'origin',
    verifiedAgainst: '',
    computedAt: now.toISOString(),
  };
  checkpoint.verifiedAgainst = await verify(checkpoint, cap);
  const stored = await putCheckpoint(checkpoint);
  if (stored !== checkpoint) {
    compare(ref, checkpoint.balances, stored.balances, { closing: `stored checkpoint ${boundary}`, fold: 'its journals add up to' });
    if (stored.journals !== checkpoint.journals || stored.feesMinor !== checkpoint.feesMinor)
      throw new LedgerRefusal(
        [{ rule: 'wallet-fold', merchantId, mode, subject: currency, message: `checkpoint ${boundary} counts differ from its journals` }],
        'balance',
      );
  }
  return stored;
}

/** The stored checkpoint at or before a time (a read path's anchor; nothing is computed). */
export const storedCheckpointBefore = (merchantId: string, mode: Mode, currency: string, at: string) =>
  checkpointAtOrBefore(merchantId, mode, currency, dayBoundary(at));

/** Journals a running balance may fold forward from a checkpoint (a day's worth for most merchants). */
export const checkpointWalk = 5000;

/** The journals of one currency in [from, to) read for a running balance (at most checkpointWalk; undefined: more). */
async function walk(merchantId: string, mode: Mode, currency: string, from: string, to: string): Promise<Journal[] | undefined> {
  const between: Journal[] = [];
  for await (const part of journalPagesBetween(merchantId, mode, currency, from, to)) {
    between.push(...part);
    if (between.length > checkpointWalk) return undefined;
  }
  return between;
}

/**
 * The available balance after each journal of a page too deep for a walk from the present: per currency, from
 * the nearer of the two stored checkpoints around the page (docs/access-patterns.md B1/B2), so a request reads
 * at most about half a day of journals beyond the page's own span:
 *   forward   the checkpoint at or before the page's oldest journal plus every journal from it to the page's newest;
 *   backward  the first checkpoint after the page's newest journal less every journal after the page's oldest up to it
 *             (a checkpoint is the fold of every journal before its boundary, all final: exact either way).
 * Which is nearer is judged by time (the journals between are what is read). Journals with no stored checkpoint on
 * either side, or more than checkpointWalk journals from it, get none.
 */
export async function availableAfterFromCheckpoints(
  merchantId: string,
  mode: Mode,
  page: readonly Journal[],
): Promise<Map<string, number>> {
  const out = new Map<string, number>();
  const position = (j: Journal) => `${j.createdAt}#${j.journalId}`;
  const newestFirst = (a: Journal, b: Journal) => (position(a) < position(b) ? 1 : -1);
  for (const currency of new Set(page.map((j) => j.currency))) {
    const mine = page.filter((j) => j.currency === currency);
    const newest = mine[0]!;
    const oldest = mine.at(-1)!;
    const [before, after] = await Promise.all([
      storedCheckpointBefore(merchantId, mode, currency, oldest.createdAt),
      checkpointAfter(merchantId, mode, currency, dayBoundary(newest.createdAt)),
    ]);
    const forwardMs = before ? Date.parse(newest.createdAt) - Date.parse(before.boundary) : Infinity;
    const backwardMs = after ? Date.parse(after.boundary) - Date.parse(oldest.createdAt) : Infinity;
    if (forwardMs === Infinity && backwardMs === Infinity) continue;
    if (backwardMs < forwardMs) {
      // Journals after the oldest (excluded by the read's lower bound) up to the boundary, newest first.
      const later = await walk(merchantId, mode, currency, position(oldest), after!.boundary);
      if (!later) continue;
      let running = after!.balances.available ?? 0;
      for (const j of later.sort(newestFirst)) {
        out.set(j.journalId, running);
        running -= balanceMovement(j).availableChangeMinor;
      }
      out.set(oldest.journalId, running);
      continue;
    }
    const between = await walk(merchantId, mode, currency, before!.boundary, position(newest));
    if (!between) continue;
    let running = before!.balances.available ?? 0;
    for (const j of between.sort(newestFirst).reverse()) {
      running += balanceMovement(j).availableChangeMinor;
      out.set(j.journalId, running);
    }
  }
  return out;
}
