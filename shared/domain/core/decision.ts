import type { ErrorCode } from '../error-codes.ts';
import { walletDelta, type Movement, type WalletDelta } from '../ledger.ts';

/**
 * The money core's one shape (docs/architecture.md, The money core): `decide(state, command, now)` returns the
 * state after the command with the journal lines and events it implies, or a typed refusal. No I/O, no clock reads,
 * no randomness: ids, times and amounts come in with the command; the commit path (shared/services/commit.ts) turns
 * a decision into its ONE TransactWriteItems (business item version-conditioned, journals on the wallet shards with
 * their no-overdraft condition, outbox event, idempotency record) and gives journals and events their ids.
 */

/** A journal as the core decides it: what moves, on whose behalf; its id and time are the commit path's. */
export interface JournalDraft {
  kind: string;
  /** The business object it belongs to. */
  reference: string;
  movements: Movement[];
  /** Its checked effect on the merchant's wallet (available and held buckets). */
  delta: WalletDelta;
  /** The wallet shard a hold was taken from, and so the shard its release or pay-out moves (absent = 0). */
  walletShard?: number;
}

/** A status change the interface announces (a webhook event, built with its id by the commit path). */
export interface StatusEvent {
  object: 'transaction' | 'settlement' | 'refund';
  id: string;
  from: string | number | null;
  to: string | number;
}

/** Why a command changes nothing: a stable code and the sentence the merchant or operator reads. */
export interface Refusal {
  refused: ErrorCode | 'invalid_status' | 'unchanged';
  message: string;
}

export interface Decided<S> {
  state: S;
  journals: JournalDraft[];
  events: StatusEvent[];
}

export type Decision<S> = Decided<S> | Refusal;

export const isRefusal = <S>(d: Decision<S>): d is Refusal => 'refused' in d;

export const refuse = (refused: Refusal['refused'], message: string): Refusal => ({ refused, message });

/** A journal draft from movements, checked (zero sum, integer amounts) before anything is written. */
export function draft(kind: string, reference: string, movements: Movement[], walletShard?: number): JournalDraft {
  const checked = walletDelta(kind, movements);
  return { kind, reference, movements: checked.movements, delta: checked.delta, ...(walletShard ? { walletShard } : {}) };
}

export const decided = <S>(state: S, journals: JournalDraft[] = [], events: StatusEvent[] = []): Decided<S> => ({
  state,
  journals,
  events,
});

/**
 * A changed item's `updatedAt`: the decision's time, never earlier than the item's own (a decision re-made on a
 * fresh read after a lost race, or a request whose `now` was taken before another request's write, never moves a
 * merchant's `updatedAt` backwards).
 */
export function touchedAt(previous: string | undefined, now: Date): string {
  const at = now.toISOString();
  return previous && previous > at ? previous : at;
}
