/**
 * Where a hold (a withdrawal's, a settlement's, a refund's debit of `available`) is placed on a wallet that may be
 * spread over shards (docs/scaling.md), and what a refusal of it means. Pure: the store's `withFunds`
 * (shared/store/wallets.ts) does the I/O each step asks for and reports what it found; the decisions are all here.
 *
 * One shard: the hold is tried on shard 0 with no read before it; a refusal carries the shard's own read (the
 * refused update's ALL_OLD), which says whether the wallet is short. A sharded wallet: the shards are read (`hint`, an
 * eventually consistent read) and the hold goes to a shard that showed the amount, spread by the hold's reference; a
 * shard that refuses is not tried again, and the shards are read again before the next choice (the refusal showed the
 * view was stale). When no shard showed it, one `snapshot` of every shard decides: the whole wallet short, the hold is
 * tried once more on shard 0 and its refusal stands; otherwise just the missing part is `move`d into shard 0 from the
 * richest shards (one transaction, each move conditioned on its shard still having it) and the hold is tried there.
 * Contention (refusals while the wallet covers the hold) is tried again, after a backoff once it repeats, at most
 * `attempts` times; then a last snapshot (`settle`) decides: short (`insufficient_balance`), or a conflict to retry
 * (409 `concurrent_update`), never `insufficient_balance` while the wallet covers it.
 */

/** A shard's available moved into shard 0: `amount` leaves shard `n`, conditioned on the shard having it. */
export interface ShardMove {
  n: number;
  amount: number;
}

/** What the store does next for the hold; after the colon, the decision (below) it then tells what it found. */
export type HoldStep =
  /** Begin the next attempt of the business change (after a backoff when `backoff`): `onAttempt`. */
  | { do: 'attempt'; backoff: boolean }
  /** Read every shard's available (BatchGetItem: eventually consistent, a placement hint only): `onHint`. */
  | { do: 'hint' }
  /** Read every shard's available as one snapshot (TransactGetItems): `onSnapshot` (null: too busy to read). */
  | { do: 'snapshot' }
  /** Move `moves` out of their shards and their sum, `total`, into shard `into`, in one transaction: `onMoved`. */
  | { do: 'move'; moves: ShardMove[]; into: number; total: number }
  /** Take the hold from this shard (the business transaction, under the shard's no-overdraft condition): `onRefused` if refused. */
  | { do: 'try'; shard: number }
  /** The attempts are used up: read a snapshot of every shard: `onSnapshot` (null: too busy to read). */
  | { do: 'settle' }
  /** The refusal stands: the wallet does not cover the hold (`insufficient_balance`). */
  | { do: 'short' }
  /** Contention outlasted the attempts while the wallet covers the hold: 409 `concurrent_update`, nothing held. */
  | { do: 'contended' };

/** One hold's placement, across its attempts, with the step the store does next. */
export interface HoldPlacement {
  /** Attempts of the business change allowed in all (shared/retry.ts retryPolicies.hold). */
  attempts: number;
  /** Attempts begun. */
  attempt: number;
  /** This attempt's hold: the amount it takes and its business object's id. */
  need: number;
  reference: string;
  /** The wallet has one shard (this attempt). */
  single?: boolean;
  /** Shards' available as last hinted; absent: read them (again). */
  view?: readonly number[];
  /** Shards refused since the last snapshot. */
  tried: readonly number[];
  /** A snapshot found the whole wallet short: the next refusal is final. */
  final?: boolean;
  /** The last consolidation met concurrent writes: back off before the next attempt. */
  contended?: boolean;
  step: HoldStep;
}

export const startHold = (attempts: number): HoldPlacement => ({
  attempts,
  attempt: 0,
  need: 0,
  reference: '',
  tried: [],
  step: { do: 'attempt', backoff: false },
});

const sum = (xs: readonly number[]) => xs.reduce((a, b) => a + b, 0);

/** Stable shard of an object among `count`: FNV-1a of its id, modulo the count (the same id, the same shard). */
export function shardOf(id: string, count: number): number {
  if (count <= 1) return 0;
  let h = 0x811c9dc5;
  for (let i = 0; i < id.length; i++) h = Math.imul(h ^ id.charCodeAt(i), 0x01000193) >>> 0;
  return h % count;
}

/**
 * The consolidation a snapshot calls for: what shard 0 lacks for the hold, taken from the richest other shards
 * (each at most what it has), nothing more. Empty when shard 0 has it. The snapshot must cover the hold.
 */
export function consolidation(available: readonly number[], need: number): ShardMove[] {
  let missing = need - available[0]!;
  const moves: ShardMove[] = [];
  for (const n of available.map((_, n) => n).sort((a, b) => available[b]! - available[a]!)) {
    if (missing <= 0) break;
    if (n === 0 || available[n]! <= 0) continue;
    const amount = Math.min(available[n]!, missing);
    moves.push({ n, amount });
    missing -= amount;
  }
  return moves;
}

const onShard0: HoldStep = { do: 'try', shard: 0 };

/** The shard for this attempt: one the view showed the amount on and that has not refused, spread by the reference. */
function choose(p: HoldPlacement): HoldPlacement {
  if (p.single) return { ...p, step: onShard0 };
  if (!p.view) return { ...p, step: { do: 'hint' } };
  const candidates = p.view.flatMap((available, n) => (available >= p.need && !p.tried.includes(n) ? [n] : []));
  if (candidates.length) return { ...p, step: { do: 'try', shard: candidates[shardOf(p.reference, candidates.length)]! } };
  // None: a snapshot decides (the shards refused so far may have it by then).
  return { ...p, tried: [], contended: false, step: { do: 'snapshot' } };
}

/** An attempt asks where its hold goes: the wallet's shard count now, the amount and its business object's id. */
export function onAttempt(p: HoldPlacement, shards: number, need: number, reference: string): HoldPlacement {
  return choose({ ...p, attempt: p.attempt + 1, need, reference, single: shards <= 1 });
}

/** The shards' available as a hint showed them. */
export const onHint = (p: HoldPlacement, available: readonly number[]) => choose({ ...p, view: available });

/**
 * A snapshot of every shard (null: too busy to read), read when no shard was known to hold the amount, or to settle
 * once the attempts are used up: short (`insufficient_balance`) only when the whole wallet does not cover the hold.
 */
export function onSnapshot(p: HoldPlacement, available: readonly number[] | null): HoldPlacement {
  const short = available !== null && sum(available) < p.need;
  if (p.step.do === 'settle') return { ...p, step: { do: short ? 'short' : 'contended' } };
  // Too busy to read (it met writes until its retries ran out): try shard 0, back off before the next attempt.
  if (!available) return { ...p, contended: true, step: onShard0 };
  // The whole wallet is short: one more try on shard 0, whose refusal is final.
  if (short) return { ...p, final: true, step: onShard0 };
  const moves = consolidation(available, p.need);
  return { ...p, step: moves.length ? { do: 'move', moves, into: 0, total: sum(moves.map((m) => m.amount)) } : onShard0 };
}

/** The consolidation committed, or refused (another move or hold took a part first): shard 0 is tried either way. */
export const onMoved = (p: HoldPlacement, ok: boolean): HoldPlacement => ({ ...p, contended: p.contended || !ok, step: onShard0 });

/**
 * The shard tried refused the hold (`seen`: its available as the refused condition saw it, ALL_OLD; no item: 0). A
 * real shortfall? One shard: that read says. A sharded wallet: only after a snapshot found the whole wallet short.
 * Otherwise contention: the next attempt (the refused shard not tried again, the shards read again: the refusal
 * showed the view was stale), or, the attempts used up, a last snapshot decides (one shard: every refusal's own read
 * showed enough, so contended).
 */
export function onRefused(p: HoldPlacement, seen: number): HoldPlacement {
  if (p.single ? seen < p.need : p.final) return { ...p, step: { do: 'short' } };
  if (p.attempt >= p.attempts) return { ...p, step: { do: p.single ? 'contended' : 'settle' } };
  const tried = p.step.do === 'try' ? [...p.tried, p.step.shard] : p.tried;
  return { ...p, tried, view: undefined, step: { do: 'attempt', backoff: !!p.contended || p.attempt > 1 } };
}
