import { PutItemCommand, ConditionalCheckFailedException } from '@aws-sdk/client-dynamodb';
import type { Mode } from '#shared/domain/credentials.ts';
import { db, ttlIn, type TxItem } from './client.ts';
import { deleteEntry, get, putEntry, type When } from './entity.ts';
import * as keys from './keys.ts';

/**
 * Idempotency records (docs/merchant-guide.md, Idempotency): scoped to merchant and mode, kept 24 hours. A record is
 * written optimistically: inside the business transaction when there is one (commitRequest,
 * shared/store/request.ts), or alone for
 * responses that changed nothing (validation errors, reads). A failed condition means a twin got
 * there first; the caller then reads the record and replays it, or answers 409/422.
 */
export const idempotencyRetentionSeconds = 24 * 60 * 60;

export interface StoredResponse {
  statusCode: number;
  body: string;
  traceId: string;
}

export interface IdempotencyRecord {
  requestHash: string;
  state: 'in_flight' | 'completed';
  response?: StoredResponse;
  /**
   * In-flight claims only: after this instant the claiming request is presumed dead (a Lambda that
   * stopped between its two commits), and a retry may recover the operation instead of getting 409.
   */
  leaseExpiresAt?: string;
}

/** How long a two-step request may hold its in-flight claim (the Lambda itself times out in 10 s). */
export const inFlightLeaseMs = 60_000;

export interface IdempotencyScope {
  mode: Mode;
  merchantId: string;
  key: string;
  requestHash: string;
  /** A twin claimed this key and died mid-way (its lease lapsed): the handler should recover its operation. */
  recovering?: boolean;
}

const write = (scope: IdempotencyScope, record: IdempotencyRecord, when: When) =>
  putEntry(
    'Idempotency',
    keys.idempotency(scope.mode, scope.merchantId, scope.key),
    { ...record, createdAt: new Date().toISOString(), ttl: ttlIn(idempotencyRetentionSeconds) },
    { when },
  );

/** No live record exists (TTL deletion lags, so an expired one counts as absent). */
const vacant = (): When => ({
  expr: 'attribute_not_exists(PK) OR #ttl < :nowSeconds',
  names: { '#ttl': 'ttl' },
  values: { ':nowSeconds': Math.floor(Date.now() / 1000) },
});

/** A Put for a business transaction: claims the key, failing if a live record exists. */
export const claimWrite = (scope: IdempotencyScope, record: IdempotencyRecord): TxItem => write(scope, record, vacant());

/** Writes a completed record alone. Returns false if a record already existed. */
export async function putCompleted(scope: IdempotencyScope, response: StoredResponse): Promise<boolean> {
  try {
    await db().send(new PutItemCommand(write(scope, { requestHash: scope.requestHash, state: 'completed', response }, vacant()).Put!));
    return true;
  } catch (error) {
    if (error instanceof ConditionalCheckFailedException) return false;
    throw error;
  }
}

/**
 * Replaces an in-flight record with its final response (two-step flows, and a retry recovering a dead twin's claim). Only
 * while it is still in flight: a response once stored is the key's answer for good, so a second retry that recovered the
 * same claim at the same time (or a request outliving its lease) fails here (IdempotencyKeyTaken) and replays it.
 */
export const completeWrite = (scope: IdempotencyScope, response: StoredResponse): TxItem =>
  write(
    scope,
    { requestHash: scope.requestHash, state: 'completed', response },
    { eq: { requestHash: scope.requestHash, state: 'in_flight' } },
  );

/**
 * Gives back an in-flight claim (two-step flows whose second step refused the request and undid the first): the
 * refusal is then recorded as any one-step refusal is (the pipeline's putCompleted), instead of a key stuck in flight.
 */
export const releaseWrite = (scope: IdempotencyScope): TxItem =>
  deleteEntry(keys.idempotency(scope.mode, scope.merchantId, scope.key), { eq: { requestHash: scope.requestHash, state: 'in_flight' } });

/** Access pattern: the record for a merchant, mode and key (strongly consistent GetItem). */
export async function getRecord(scope: Omit<IdempotencyScope, 'requestHash'>): Promise<IdempotencyRecord | undefined> {
  const record = await get<IdempotencyRecord & { ttl?: number }>(keys.idempotency(scope.mode, scope.merchantId, scope.key));
  // TTL deletion lags; an expired record no longer counts.
  return record?.ttl !== undefined && record.ttl * 1000 < Date.now() ? undefined : record;
}
