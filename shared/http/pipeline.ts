import type { APIGatewayProxyEvent, APIGatewayProxyResult, Context } from 'aws-lambda';
import type * as z from 'zod/mini';
import type { RouteDefinition } from './route.ts';
import {
  apiKeyAuth,
  jsonBody,
  problemDetails,
  validateAndVerify,
  versionGuard,
  type Auth,
  type GatewayResponse,
  type Schemas,
} from './middlewares.ts';
import { authLogKeys, httpBase } from './observability.ts';
import { idempotency, type IdempotencyScope } from './idempotency.ts';

export { commit } from './idempotency.ts';

/**
 * Every HTTP handler is `httpHandler(routes.x, schemas, fn)`. The pipeline, in order:
 *   traceAndLog      trace id, Svc-Trace-Id on every response, access log
 *   requestMetrics   log keys traceId/route (+ merchantId/mode after auth), request metrics (./observability.ts)
 *   versionGuard     unknown /Gateway/v{version} → 404
 *   apiKeyAuth       Svc-API-Key → merchant, mode, scopes (401/403)
 *   jsonBody         413 / 415 / 400 for the raw body
 *   idempotency      Idempotency-Key claim, replay, 409, 422 (./idempotency.ts, with commit())
 *   problemDetails   results and errors → JSON / problem+json
 *   validateAndVerify  MD5 signature (400/401) and zod schemas (400 with `errors`)
 * then `fn`, which calls a domain service and returns { statusCode, body }.
 */
type Infer<S, K extends keyof Schemas> = S extends Record<K, infer T extends z.ZodMiniType> ? z.infer<T> : undefined;

export interface GatewayRequest<S extends Schemas> {
  traceId: string;
  auth: Auth;
  body: Infer<S, 'body'>;
  query: Infer<S, 'query'>;
  path: Infer<S, 'path'>;
  headers: Record<string, string>;
  /** The body exactly as received (for handlers that verify a third party's own signature). */
  rawBody: string;
  /** Present when the request carries an Idempotency-Key: pass it to the service's transaction. */
  idempotency?: IdempotencyScope;
}

export type { Auth, GatewayResponse };

/** A route's Lambda handler, carrying its route row and zod schemas (the OpenAPI generator reads them). */
export type HttpHandler = ((event: APIGatewayProxyEvent, context: Context) => Promise<APIGatewayProxyResult>) & {
  readonly route: RouteDefinition;
  readonly schemas: Schemas;
};

export function httpHandler<S extends Schemas>(
  route: RouteDefinition,
  schemas: S,
  fn: (request: GatewayRequest<S>) => Promise<GatewayResponse>,
): HttpHandler {
  const handler = httpBase<GatewayResponse>(route)
    .use(versionGuard())
    .use(apiKeyAuth(route))
    .use(authLogKeys())
    .use(jsonBody({ formBody: route.formBody === true }))
    .use(idempotency())
    .use(problemDetails())
    .use(validateAndVerify(route, schemas))
    .handler(async (_event, context) => {
      const gw = context.gateway;
      return fn({
        traceId: gw.traceId,
        auth: gw.auth!,
        body: gw.parsed!.body as Infer<S, 'body'>,
        query: gw.parsed!.query as Infer<S, 'query'>,
        path: gw.parsed!.path as Infer<S, 'path'>,
        headers: gw.headers,
        rawBody: gw.rawBody,
        ...(gw.idempotency ? { idempotency: gw.idempotency } : {}),
      });
    }) as unknown as (event: APIGatewayProxyEvent, context: Context) => Promise<APIGatewayProxyResult>;
  return Object.assign(handler, { route, schemas });
}

export const ok = (body: unknown): GatewayResponse => ({ statusCode: 200, body });
