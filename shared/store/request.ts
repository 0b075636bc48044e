import { ConflictError } from '#shared/domain/errors.ts';
import { logger } from '#shared/logger.ts';
import { again, retry, retryPolicies } from '#shared/retry.ts';
import { cutoffRefused, transact, TransactionFailed, type TxItem } from './client.ts';
import { claimWrite, completeWrite, inFlightLeaseMs, type IdempotencyScope } from './idempotency.ts';
import type { PlaceHold } from './wallets.ts';

/**
 * THE shape of a state-changing request (docs/architecture.md, Idempotency): a service decides and
 * returns the writes of ONE TransactWriteItems with the response that answers it; it never commits.
 * `commitRequest` commits them, adding the request's Idempotency-Key record to the same transaction
 * (the HTTP pipeline's `commit` passes the key; the dashboard, the bench and tests pass none).
 */
export type RequestChange<R> = FinalChange<R> | (ChangeWrites & TwoStep<R>);
/** A change whose response is known when it is decided. */
export type FinalChange<R> = ChangeWrites & Final<R>;
/**
 * A two-step request's second step that refuses it after all (a deposit's charge the provider refused): its writes undo
 * the first commit and give back the Idempotency-Key's claim; then `refusal` is thrown, answered and recorded as any
 * refusal of a one-step request. `release` is idempotency.ts's releaseWrite, passed in by the flow that refuses (so only
 * that flow's bundle holds a DeleteItem and is granted one: test/infra/code-grants.test.ts).
 */
type RefusedChange = ChangeWrites & { refusal: Error; release: (scope: IdempotencyScope) => TxItem };

type Refusal = Error | 'again' | undefined;

interface ChangeWrites {
  writes: TxItem[];
  /**
   * A refused condition of one of `writes` (`failed.on('orderRef')`): the error to answer with, or
   * 'again' to decide again from fresh reads (a lost race). Anything else is rethrown as is.
   */
  refused?: (failed: TransactionFailed) => Refusal | Promise<Refusal>;
  /** The writes were not committed (refused, a twin won, an error): undo what happened outside the table. */
  abandoned?: () => Promise<void>;
  /** After the commit (outcome metrics). */
  committed?: () => void;
}

interface Final<R> {
  response: R;
}

/**
 * A request with a provider call between two commits (the withdrawal): `writes` commit with the key
 * claimed in flight (a twin gets 409 and never reaches the provider); `next`, called once they are
 * committed (and again on 'again'), makes the call and decides the final change, committed with
 * the key's response. If that fails, `fallback` answers from what is stored.
 */
interface TwoStep<R> {
  next: () => Promise<FinalChange<R> | RefusedChange>;
  fallback: () => Promise<FinalChange<R>>;
}

/** The request's Idempotency-Key and how its response is stored. */
export interface RequestKey {
  scope: IdempotencyScope;
  statusCode: number;
  traceId: string;
}

/**
 * Decides the change. A change that takes a hold from a wallet asks `place` for the wallet shard
 * (withFunds, docs/scaling.md) and records it on its business item and hold journal; a refused
 * hold decides again on another shard.
 */
export type Decide<R> = (place: PlaceHold) => Promise<RequestChange<R>>;

/**
 * How `decide` is given `place`: wallets.ts withFunds, passed in by the requests that hold funds (a payout, a
 * settlement), so every other Lambda that commits a request leaves the wallet's shard placement out of its bundle.
 */
export type Funds = <T>(run: (place: PlaceHold) => Promise<T>) => Promise<T>;

/** The requests that hold no funds: asking for a shard is a programming error (pass withFunds). */
const noFunds: Funds = (run) =>
  run(() => {
    throw new Error('request: this request was committed without withFunds, so it cannot place a hold');
  });

/** Decide → commit (with `record`) → on 'again' decide again. */
async function commitOne<R, C extends RequestChange<R> | RefusedChange>(
  decide: (place: PlaceHold) => Promise<C>,
  record: (change: C) => TxItem | undefined,
  withFunds: Funds,
): Promise<C> {
  const tooMany = () => new ConflictError('Too many concurrent requests changed the same item; retry with the same Idempotency-Key.');
  return retry<C>(
    retryPolicies.versionRace,
    async () => {
      let change: C | undefined;
      try {
        await withFunds(async (place) => {
          change = undefined;
          change = await decide(place);
          await transact(change.writes, { idempotency: record(change) });
        });
      } catch (error) {
        if (!change) throw error;
        // Positioned before a settlement's cut-off that committed meanwhile (wallets.ts postJournal): decide again, later.
        if (error instanceof TransactionFailed && error.on(cutoffRefused)) return again;
        const answer = error instanceof TransactionFailed ? await change.refused?.(error) : undefined;
        if (answer === 'again') return again;
        await change.abandoned?.();
        throw answer ?? error;
      }
      change!.committed?.();
      return change!;
    },
    tooMany,
  );
}

/**
 * Commits what a service decided, with the Idempotency-Key record when there is a key: the
 * completed response in the same transaction; for a two-step request an in-flight claim with the
 * first commit and the response with the last. A retry after a claim lapsed (`scope.recovering`)
 * completes the dead twin's claim. Returns the response. `funds`: withFunds for a request that holds funds.
 */
export async function commitRequest<R>(decide: Decide<R>, key?: RequestKey, funds: Funds = noFunds): Promise<R> {
  const stored = (response: R) => ({ statusCode: key!.statusCode, body: JSON.stringify(response), traceId: key!.traceId });
  const complete = (change: Final<R>) => key && completeWrite(key.scope, stored(change.response));
  const first = await commitOne(
    decide,
    (change) => {
      if (!key) return undefined;
      const { scope } = key;
      if ('next' in change) {
        const leaseExpiresAt = new Date(Date.now() + inFlightLeaseMs).toISOString();
        return claimWrite(scope, { requestHash: scope.requestHash, state: 'in_flight', leaseExpiresAt });
      }
      if (scope.recovering) return complete(change);
      return claimWrite(scope, { requestHash: scope.requestHash, state: 'completed', response: stored(change.response) });
    },
    funds,
  );
  if (!('next' in first)) return first.response;
  let last: FinalChange<R> | RefusedChange;
  try {
    last = await commitOne(first.next, (change) => ('refusal' in change ? key && change.release(key.scope) : complete(change)), funds);
  } catch (error) {
    // After the first commit the operation exists: answer from what is stored, so the key is
    // never left in flight by a passing fault (the sweeps finish the operation).
    logger.error('request: fault after its first commit', { error });
    return (await commitOne(first.fallback, complete, funds)).response;
  }
  if ('refusal' in last) throw last.refusal;
  return last.response;
}

/** The same request with more writes in its (first) transaction: an audit entry, a maker record. */
export const withWrites =
  <C extends RequestChange<unknown>>(decide: (place: PlaceHold) => Promise<C>, extra: (change: C) => TxItem[]) =>
  async (place: PlaceHold): Promise<C> => {
    const change = await decide(place);
    return { ...change, writes: [...change.writes, ...extra(change)] };
  };
