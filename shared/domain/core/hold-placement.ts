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

/** A shard's available moved into the hold's shard: `amount` leaves shard `n`, conditioned on the shard having it. */
export interface ShardMove {
  n: number;
  amount: number;
}

/** What the store does next for the hold. */
export type HoldStep =
  /** Read every shard's available (BatchGetItem: eventually consistent, a placement hint only); report `hint`. */
  | { do: 'hint' }
  /** Read every shard's available as one snapshot (TransactGetItems); report `snapshot` (null: too busy to read). */
  | { do: 'snapshot' }
  /** Move `moves` out of their shards and their sum into shard `into`, in one transaction; report `moved`. */
  | { do: 'move'; moves: ShardMove[]; into: number; total: number }
  /** Take the hold from this shard (the business transaction, under the shard's no-overdraft condition). */
  | { do: 'try'; shard: number }
  /** Contention: the next attempt (a new decision of the business change), after a backoff when `backoff`. */
  | { do: 'retry'; backoff: boolean }
  /** The attempts are used up: read a snapshot of every shard (null: too busy) and report `settled`. */
  | { do: 'settle' }
  /** The refusal stands: the wallet does not cover the hold (`insufficient_balance`). */
  | { do: 'short' }
  /** Contention outlasted the attempts while the wallet covers the hold: 409 `concurrent_update`, nothing held. */
  | { do: 'contended' };

/** What the store found, for the step it was asked to do. */
export type HoldEvent =
  /** An attempt of the business change asks where its hold goes: the wallet's shard count now, the need, its object. */
  | { t: 'attempt'; shards: number; need: number; reference: string }
  | { t: 'hint'; available: readonly number[] }
  | { t: 'snapshot'; available: readonly number[] | null }
  | { t: 'moved'; ok: boolean }
  /** The shard refused the hold; `seen`: its available as the refused condition saw it (ALL_OLD; absent item: 0). */
  | { t: 'refused'; seen: number }
  | { t: 'settled'; available: readonly number[] | null };

/** One hold's placement, across its attempts. */
export interface HoldPlacement {
  /** Attempts of the business change allowed in all (shared/retry.ts retryPolicies.hold). */
  attempts: number;
  /** Attempts begun. */
  attempt: number;
  need: number;
  reference: string;
  /** The wallet has one shard (this attempt). */
  single: boolean;
  /** Shards' available as last seen (a hint, or the snapshot after a consolidation); null: read again. */
  view: readonly number[] | null;
  /** Shards refused since the last snapshot. */
  tried: readonly number[];
  /** A snapshot found the whole wallet short: the next refusal is final. */
  final: boolean;
  /** The last consolidation met concurrent writes: back off before the next attempt. */
  contended: boolean;
  /** The shard this attempt's hold was placed on (null: not yet decided). */
  shard: number | null;
  /** The consolidation this attempt is moving (between `move` and `moved`). */
  moving: readonly ShardMove[] | null;
}

export const startHold = (attempts: number): HoldPlacement => ({
  attempts,
  attempt: 0,
  need: 0,
  reference: '',
  single: true,
  view: null,
  tried: [],
  final: false,
  contended: false,
  shard: null,
  moving: null,
});

export interface HoldDecision {
  placement: HoldPlacement;
  step: HoldStep;
}

const sum = (xs: readonly number[]) => xs.reduce((a, b) => a + b, 0);

/** Stable shard of an object among `count`: FNV-1a of its id, modulo the count (the same id, the same shard). */
export function shardOf(id: string, count: number): number {
  if (count <= 1) return 0;
  let h = 0x811c9dc5;
  for (let i = 0; i < id.length; i++) h = Math.imul(h ^ id.charCodeAt(i), 0x01000193) >>> 0;
  return h % count;
}

const tryOn = (p: HoldPlacement, shard: number): HoldDecision => ({ placement: { ...p, shard, moving: null }, step: { do: 'try', shard } });

/** The shard for this attempt: one that showed the amount and has not refused, spread by the reference; else a snapshot. */
function choose(p: HoldPlacement): HoldDecision {
  if (p.single) return tryOn(p, 0);
  if (!p.view) return { placement: p, step: { do: 'hint' } };
  const candidates = p.view.flatMap((available, n) => (available >= p.need && !p.tried.includes(n) ? [n] : []));
  if (candidates.length) return tryOn(p, candidates[shardOf(p.reference, candidates.length)]!);
  return { placement: { ...p, tried: [], contended: false }, step: { do: 'snapshot' } };
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

/** A snapshot of every shard, read when no shard was known to hold the amount. */
function afterSnapshot(p: HoldPlacement, available: readonly number[] | null): HoldDecision {
  // Shards busy (the snapshot met writes until its retries ran out): try shard 0, read again next time, back off.
  if (!available) return tryOn({ ...p, view: null, contended: true }, 0);
  // The whole wallet is short: one more try on shard 0, whose refusal is final.
  if (sum(available) < p.need) return tryOn({ ...p, view: available, final: true }, 0);
  const moves = consolidation(available, p.need);
  if (moves.length === 0) return tryOn({ ...p, view: available }, 0);
  return {
    placement: { ...p, view: available, moving: moves },
    step: { do: 'move', moves, into: 0, total: sum(moves.map((m) => m.amount)) },
  };
}

/** The consolidation committed (the view follows it) or refused (another move or hold took a part first: read again). */
function afterMove(p: HoldPlacement, ok: boolean): HoldDecision {
  const moves = p.moving ?? [];
  if (!ok || !p.view) return tryOn({ ...p, view: null, contended: true }, 0);
  const view = [...p.view];
  for (const m of moves) {
    view[m.n]! -= m.amount;
    view[0]! += m.amount;
  }
  return tryOn({ ...p, view }, 0);
}

/**
 * Is the refusal a real shortfall? One shard: the refused item's own read says. A sharded wallet: only after a
 * snapshot found the whole wallet short. Otherwise contention: the next attempt (the refused shard not tried again,
 * the shards read again), or, the attempts used up, the last snapshot decides (one shard: every refusal's own read
 * showed enough, so contended).
 */
function afterRefusal(p: HoldPlacement, seen: number): HoldDecision {
  const short = p.single ? seen < p.need : p.final;
  if (short) return { placement: p, step: { do: 'short' } };
  if (p.attempt >= p.attempts) return { placement: p, step: p.single ? { do: 'contended' } : { do: 'settle' } };
  const tried = p.shard === null || p.tried.includes(p.shard) ? p.tried : [...p.tried, p.shard];
  return { placement: { ...p, tried, view: null, shard: null }, step: { do: 'retry', backoff: p.contended || p.attempt > 1 } };
}

/** The placement's next step after `event`. */
export function decideHold(p: HoldPlacement, event: HoldEvent): HoldDecision {
  switch (event.t) {
    case 'attempt':
      return choose({
        ...p,
        attempt: p.attempt + 1,
        need: event.need,
        reference: event.reference,
        single: event.shards <= 1,
        shard: null,
        moving: null,
      });
    case 'hint':
      return choose({ ...p, view: event.available });
    case 'snapshot':
      return afterSnapshot(p, event.available);
    case 'moved':
      return afterMove(p, event.ok);
    case 'refused':
      return afterRefusal(p, event.seen);
    case 'settled':
      return { placement: p, step: event.available && sum(event.available) < p.need ? { do: 'short' } : { do: 'contended' } };
  }
}
