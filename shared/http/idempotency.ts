import { createHash } from 'node:crypto';
import type { APIGatewayProxyEvent, APIGatewayProxyResult } from 'aws-lambda';
import { IdempotencyKeyTaken } from '#shared/store/client.ts';
import { getRecord, putCompleted, type IdempotencyRecord, type IdempotencyScope, type StoredResponse } from '#shared/store/idempotency.ts';
import { commitRequest, type Decide, type Funds, type RequestChange } from '#shared/store/request.ts';
import {
  isSerialised,
  jsonType,
  problemType,
  securityHeaders,
  serialise,
  state,
  type GatewayResponse,
  type GwRequest,
  type Middleware,
} from './middlewares.ts';
import { problems } from './problem.ts';

/**
 * Idempotency-Key, all of it (docs/merchant-guide.md, Idempotency): the request's fingerprint, the
 * pipeline's middleware (an answer from an existing record before the handler runs, the record
 * written after it) and commit(), which writes the record in the handler's own transaction and
 * recovers a twin that died between its commits. Handlers only call commit(); the store keeps the
 * record (shared/store/idempotency.ts).
 */
export type { IdempotencyScope };

const idempotencyKeyShape = /^[\x21-\x7e]{1,255}$/;

/**
 * Answers that never claim or store an Idempotency-Key: 409 (a twin is in flight), and refusals by
 * authentication, authorisation or rate limiting (401 including `signature mismatch`, 403, 429),
 * so that someone holding only the API key cannot burn a merchant's predictable keys.
 */
const notRecorded = new Set([401, 403, 409, 429]);

/**
 * What an Idempotency-Key is bound to: the method, the full path with its parameters, the query
 * string (sorted, so parameter order does not matter) and the body as received.
 */
export function requestFingerprint(
  event: Pick<APIGatewayProxyEvent, 'httpMethod' | 'path' | 'multiValueQueryStringParameters' | 'queryStringParameters'>,
  rawBody: string,
): string {
  const query = Object.entries(
    event.multiValueQueryStringParameters ??
      Object.fromEntries(Object.entries(event.queryStringParameters ?? {}).map(([k, v]) => [k, [v]])),
  )
    .flatMap(([k, vs]) => (vs ?? []).map((v) => [k, v ?? ''] as const))
    .sort(([a, x], [b, y]) => (a < b ? -1 : a > b ? 1 : x < y ? -1 : x > y ? 1 : 0));
  return createHash('sha256')
    .update(JSON.stringify([event.httpMethod, event.path, query]))
    .update('\n')
    .update(rawBody)
    .digest('hex');
}

/**
 * Idempotency-Key (docs/merchant-guide.md, Idempotency), optimistic: the record is written with the response, either in
 * the handler's own transaction (idempotencyRecorded) or here; if a twin's record is already
 * there, the twin's response is replayed (same body) or the request gets a 409 (twin in flight)
 * or 422 (same key, different body). 5xx and 409 responses are never recorded.
 */
export function idempotency(): Middleware {
  /** The answer a stored record gives this request: its replay, or a 422 / 409 problem. Never throws. */
  const answer = (record: IdempotencyRecord | undefined, scope: IdempotencyScope, traceId: string): APIGatewayProxyResult => {
    const problem = !record
      ? problems.conflict('A request with this Idempotency-Key is being processed; retry shortly.', 'idempotency_in_flight')
      : record.requestHash !== scope.requestHash
        ? problems.unprocessable('This Idempotency-Key was already used with a different request (method, path, query or body).', {
            code: 'idempotency_key_reused',
          })
        : record.state !== 'completed' || !record.response
          ? problems.conflict('A request with this Idempotency-Key is still being processed; retry shortly.', 'idempotency_in_flight')
          : undefined;
    return problem ? serialise(problem.status, problem.body(traceId)) : replay(record!.response!);
  };
  const record = async (request: GwRequest) => {
    const gw = state(request);
    const response = request.response as APIGatewayProxyResult | GatewayResponse | undefined;
    if (!gw.idempotency || gw.idempotencyAnswered || !response || !isSerialised(response)) return;
    if (response.statusCode >= 500 || notRecorded.has(response.statusCode)) return;
    const stored: StoredResponse = { statusCode: response.statusCode, body: response.body, traceId: gw.traceId };
    if (!(await putCompleted(gw.idempotency, stored)))
      request.response = answer(await getRecord(gw.idempotency), gw.idempotency, gw.traceId);
  };
  return {
    // A retry whose first request already has a record is answered from it before the handler runs
    // (no side effect such as a provider call happens twice). Concurrent twins that both get past
    // here are settled by the claim inside the business transaction (IdempotencyKeyTaken).
    before: async (request) => {
      const gw = state(request);
      const key = gw.headers['idempotency-key'];
      if (request.event.httpMethod !== 'POST' || key === undefined || !gw.auth) return;
      if (!idempotencyKeyShape.test(key)) {
        throw problems.badRequest(
          'Idempotency-Key must be 1-255 printable ASCII characters.',
          { 'Idempotency-Key': ['must be 1-255 printable ASCII characters'] },
          'invalid_idempotency_key',
        );
      }
      const requestHash = requestFingerprint(request.event, gw.rawBody);
      gw.idempotency = { mode: gw.auth.mode, merchantId: gw.auth.merchantId, key, requestHash };
      const existing = await getRecord(gw.idempotency);
      const lapsed =
        existing?.state === 'in_flight' &&
        existing.requestHash === requestHash &&
        existing.leaseExpiresAt !== undefined &&
        Date.parse(existing.leaseExpiresAt) < Date.now();
      if (lapsed) {
        gw.idempotency.recovering = true; // the handler recovers the dead twin's operation
      } else if (existing) {
        gw.idempotencyAnswered = answer(existing, gw.idempotency, gw.traceId);
        throw new IdempotencyKeyTaken();
      }
    },
    after: async (request) => {
      if (!state(request).idempotencyRecorded) await record(request);
    },
    onError: async (request) => {
      const gw = state(request);
      if (request.error instanceof IdempotencyKeyTaken && gw.idempotency) {
        request.response = gw.idempotencyAnswered ?? answer(await getRecord(gw.idempotency), gw.idempotency, gw.traceId);
        return;
      }
      await record(request);
    },
  };
}

function replay(stored: StoredResponse): APIGatewayProxyResult {
  return {
    statusCode: stored.statusCode,
    headers: {
      'Content-Type': stored.statusCode >= 400 ? problemType : jsonType,
      ...securityHeaders,
      'Idempotent-Replayed': 'true',
      'Svc-Trace-Id': stored.traceId,
    },
    body: stored.body,
  };
}

/** What commit() needs of a handler's request. */
export interface Committable {
  traceId: string;
  idempotency?: IdempotencyScope;
}

/**
 * For handlers that change something: the service decides (shared/store/request.ts, RequestChange)
 * and this commits its writes with the request's Idempotency-Key record in the same
 * TransactWriteItems, so a retry replays exactly this response. A twin that committed first
 * surfaces as IdempotencyKeyTaken and is answered by replay, 409 or 422 (idempotency() above).
 * `recover`: for operations committed in two steps, what the first request with this key created
 * when it stopped between them (its record's lease lapsed); that is the answer, if there is one.
 * `funds`: withFunds (shared/store/wallets.ts), passed by a handler whose decision holds funds.
 */
export async function commit<R>(
  request: Committable,
  statusCode: number,
  decide: Decide<R>,
  options: { recover?: () => Promise<RequestChange<R> | undefined>; funds?: Funds } = {},
): Promise<GatewayResponse> {
  const scope = request.idempotency;
  const recovered = scope?.recovering && options.recover ? await options.recover() : undefined;
  const decision: Decide<R> = recovered !== undefined ? async () => recovered : decide;
  const body = await commitRequest(decision, scope && { scope, statusCode, traceId: request.traceId }, options.funds);
  return { statusCode, body, ...(scope ? { idempotencyRecorded: true } : {}) };
}
