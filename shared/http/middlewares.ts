import { randomUUID } from 'node:crypto';
import type { MiddlewareObj, Request } from '@middy/core';
import type { APIGatewayProxyEvent, APIGatewayProxyResult, Context } from 'aws-lambda';
import type { ZodMiniType as ZodType } from 'zod/mini';
import { parseApiKey } from '#shared/domain/credentials.ts';
import { NotFoundError } from '#shared/domain/errors.ts';
import { defaultFees } from '#shared/domain/merchant.ts';
import { signatureShape, verifyBodySignature } from '#shared/domain/body-signature.ts';
import { jsonNestingDepth, maxJsonDepth } from '#shared/domain/json-depth.ts';
import { masterKey, open } from '#shared/crypto/seal.ts';
import { logger } from '#shared/logger.ts';
import { IdempotencyKeyTaken } from '#shared/store/client.ts';
import type { IdempotencyScope } from '#shared/store/idempotency.ts';
import { getApiKeyByHash, keyUseDue, recordKeyUse, secretAssociatedData, type ApiKeyRecord } from '#shared/store/merchants.ts';
import { keyHasScope } from '#shared/domain/scopes.ts';
import { supportedVersions, type RouteDefinition } from './route.ts';
import { apiProblems, problems, type FieldErrors } from './problem.ts';
import { presentProblem } from './presenter.ts';

/**
 * The request pipeline's middlewares. Each is a small middy factory; shared/http/pipeline.ts
 * composes them once, in the order documented there.
 */
export interface Auth {
  keyId: string;
  merchantId: string;
  mode: ApiKeyRecord['mode'];
  scopes: ApiKeyRecord['scopes'];
  merchantCurrency: ApiKeyRecord['merchantCurrency'];
  merchantFees: ApiKeyRecord['merchantFees'];
  merchantAllowInsecureWebhooks: boolean;
  secretSealed: string;
  /**
   * The maker of what this key creates (payouts, settlements, refunds): the dashboard user who
   * minted it, with the key's id; absent for keys no dashboard user minted (maker-checker has no one to refuse).
   */
  maker?: { userId: string; email: string; keyId: string };
}

export interface PipelineState {
  traceId: string;
  startedAt: number;
  headers: Record<string, string>;
  auth?: Auth;
  rawBody: string;
  json?: unknown;
  idempotency?: IdempotencyScope;
  /** The handler committed the Idempotency-Key record in its own transaction. */
  idempotencyRecorded?: boolean;
  /** The response an existing Idempotency-Key record gave this request (replay, 409 or 422). */
  idempotencyAnswered?: APIGatewayProxyResult;
  parsed?: { body: unknown; query: unknown; path: unknown };
  /** The key's last-used write, running beside the handler (apiKeyAuth); awaited, never failing, before the response. */
  keyUse?: Promise<void>;
}

/** What a handler returns; the pipeline serialises it. */
export interface GatewayResponse {
  statusCode: number;
  body: unknown;
  headers?: Record<string, string>;
  /** The handler committed the Idempotency-Key record in its own transaction. */
  idempotencyRecorded?: boolean;
  /** The response an existing Idempotency-Key record gave this request (replay, 409 or 422). */
  idempotencyAnswered?: APIGatewayProxyResult;
}

export type GatewayContext = Context & { gateway: PipelineState };
export type GwRequest = Request<APIGatewayProxyEvent, APIGatewayProxyResult | GatewayResponse, Error, GatewayContext>;
export type Middleware = MiddlewareObj<APIGatewayProxyEvent, APIGatewayProxyResult | GatewayResponse, Error, GatewayContext>;

export const maxBodyBytes = 64 * 1024;
export const jsonType = 'application/json';
export const problemType = 'application/problem+json';

/** On every JSON and problem response (docs/security-and-limits.md). */
export const securityHeaders = { 'Cache-Control': 'no-store', 'X-Content-Type-Options': 'nosniff' } as const;

export const serialise = (statusCode: number, body: unknown, headers: Record<string, string> = {}): APIGatewayProxyResult => ({
  statusCode,
  headers: { 'Content-Type': statusCode >= 400 ? problemType : jsonType, ...securityHeaders, ...headers },
  body: JSON.stringify(body),
});

export const state = (request: GwRequest) => request.context.gateway;
export const isSerialised = (r: unknown): r is APIGatewayProxyResult => typeof (r as APIGatewayProxyResult)?.body === 'string';

/** Outermost: trace id, Svc-Trace-Id on every response, one access log line per request. */
export function traceAndLog(route: RouteDefinition): Middleware {
  const finish = (request: GwRequest) => {
    const gw = state(request);
    const response = (request.response ?? serialise(500, problems.internal().body(gw.traceId))) as APIGatewayProxyResult;
    response.headers = { ...response.headers, 'Svc-Trace-Id': String(response.headers?.['Svc-Trace-Id'] ?? gw.traceId) };
    request.response = response;
    logger.info('request', {
      route: route.id,
      method: request.event.httpMethod,
      status: response.statusCode,
      durationMs: Date.now() - gw.startedAt,
      traceId: gw.traceId,
      merchantId: gw.auth?.merchantId,
      mode: gw.auth?.mode,
      keyId: gw.auth?.keyId,
      replayed: response.headers?.['Idempotent-Replayed'] === 'true' || undefined,
    });
  };
  return {
    before: (request) => {
      const headers: Record<string, string> = Object.fromEntries(
        Object.entries(request.event.headers ?? {}).flatMap(([k, v]) => (v === undefined ? [] : [[k.toLowerCase(), v]])),
      );
      const raw = request.event.body ?? '';
      request.context.gateway = {
        traceId: request.event.requestContext?.requestId || randomUUID(),
        startedAt: Date.now(),
        headers,
        rawBody: request.event.isBase64Encoded ? Buffer.from(raw, 'base64').toString('utf8') : raw,
      };
    },
    after: finish,
    onError: finish,
  };
}

/** Innermost: handler results and thrown problems become serialised responses. */
export function problemDetails(): Middleware {
  return {
    after: (request) => {
      const r = request.response as GatewayResponse;
      if (isSerialised(r)) return;
      if (r.idempotencyRecorded) state(request).idempotencyRecorded = true;
      request.response = serialise(r.statusCode, r.body, r.headers);
    },
    onError: (request) => {
      if (request.error instanceof IdempotencyKeyTaken) return; // answered by idempotency()
      const { traceId } = state(request);
      const problem = presentProblem(request.error, traceId);
      request.response = serialise(problem.status, problem.body(traceId), problem.extensions.headers);
    },
  };
}

/** `/Gateway/v{version}`: only supported versions exist. */
export function versionGuard(): Middleware {
  return {
    before: (request) => {
      const version = request.event.pathParameters?.version;
      if (version !== undefined && !(supportedVersions as readonly string[]).includes(version)) {
        throw new NotFoundError(`API version v${version} does not exist. Supported: ${supportedVersions.map((v) => `v${v}`).join(', ')}.`);
      }
    },
  };
}

/** Svc-API-Key: looked up by SHA-256; mode, scopes and merchant status come from the key item. */
export function apiKeyAuth(route: RouteDefinition): Middleware {
  return {
    before: async (request) => {
      if (route.auth === 'none') return;
      const gw = state(request);
      const parsed = parseApiKey(gw.headers['svc-api-key']);
      if (!parsed) throw problems.unauthorized();
      const key = await getApiKeyByHash(parsed.hash);
      const expired = key?.expiresAt ? Date.parse(key.expiresAt) <= Date.now() : false;
      if (!key || key.status !== 'active' || expired || key.mode !== parsed.mode) throw problems.unauthorized();
      gw.auth = {
        keyId: key.keyId,
        merchantId: key.merchantId,
        mode: key.mode,
        scopes: key.scopes,
        merchantCurrency: key.merchantCurrency,
        merchantFees: key.merchantFees ?? defaultFees,
        // The local-development switch never applies inside a deployed Lambda (docs/operator-guide.md).
        merchantAllowInsecureWebhooks: (key.merchantAllowInsecureWebhooks ?? false) && !process.env.AWS_LAMBDA_FUNCTION_NAME,
        secretSealed: key.secretSealed,
        ...(key.mintedBy ? { maker: { userId: key.mintedBy.userId, email: key.mintedBy.email, keyId: key.keyId } } : {}),
      };
      if (key.merchantStatus !== 'active') throw apiProblems.merchantSuspended();
      if (route.scope && !keyHasScope(key.scopes, route.scope)) {
        throw problems.forbidden(`This API key lacks the "${route.scope}" scope.`, 'missing_scope');
      }
      // Last-used time (the Developers page): a write only when the stored value is older than the
      // interval, started now and run beside the handler; a failure is logged and changes nothing else.
      const now = new Date();
      if (keyUseDue(key, now)) {
        gw.keyUse = recordKeyUse(parsed.hash, now).then(
          () => undefined,
          (error: unknown) => logger.warn('api key last-used not recorded', { keyId: key.keyId, error: String(error) }),
        );
      }
    },
    after: async (request) => {
      await state(request).keyUse;
    },
    onError: async (request) => {
      await state(request).keyUse;
    },
  };
}

/** JSON bodies: 413 over 64 KiB, 415 without application/json (or a form post where the route takes one), 400 when unparseable. */
export function jsonBody(options: { formBody?: boolean } = {}): Middleware {
  return {
    before: (request) => {
      const gw = state(request);
      if (request.event.httpMethod !== 'POST') return;
      if (Buffer.byteLength(gw.rawBody, 'utf8') > maxBodyBytes) throw problems.tooLarge(maxBodyBytes);
      if (gw.rawBody.trim() === '') return;
      const contentType = (gw.headers['content-type'] ?? '').split(';')[0]!.trim().toLowerCase();
      if (options.formBody && contentType === 'application/x-www-form-urlencoded') return; // read raw by the handler
      if (contentType !== jsonType) throw problems.unsupportedMediaType();
      if (jsonNestingDepth(gw.rawBody) > maxJsonDepth) {
        throw problems.badRequest(
          `The request body is nested deeper than ${maxJsonDepth} levels.`,
          { '(root)': [`nested deeper than ${maxJsonDepth} levels`] },
          'body_too_deep',
        );
      }
      try {
        gw.json = JSON.parse(gw.rawBody);
      } catch {
        throw problems.badRequest('The request body is not valid JSON.', { '(root)': ['not valid JSON'] }, 'invalid_json');
      }
    },
  };
}

export interface Schemas {
  body?: ZodType;
  query?: ZodType;
  path?: ZodType;
}

/** The value at a zod issue's path in the input, to tell a missing member from a mistyped one. */
function valueAt(input: unknown, path: readonly PropertyKey[]): unknown {
  let value = input;
  for (const key of path) {
    if (typeof value !== 'object' || value === null || !Object.hasOwn(value, key)) return undefined;
    value = (value as Record<PropertyKey, unknown>)[key];
  }
  return value;
}

const kindOf = (value: unknown) => (value === null ? 'null' : Array.isArray(value) ? 'an array' : `a ${typeof value}`);

/**
 * One message per field a newcomer can act on: a missing member is "required" (whatever the schema's own wording),
 * a mistyped one "must be a number, not a string"; a format rule keeps the specification's wording from the schema.
 */
function fieldMessage(issue: { path: readonly PropertyKey[]; message: string; code?: string }, input: unknown): string {
  if (issue.code !== 'invalid_type') return issue.message;
  const value = valueAt(input, issue.path);
  if (value === undefined) return 'required';
  const expected = /^Invalid input: expected (\w+)/.exec(issue.message)?.[1];
  if (!expected) return issue.message;
  return `must be ${/^[aeiou]/.test(expected) ? 'an' : 'a'} ${expected}, not ${kindOf(value)}`;
}

/**
 * zod issues → field errors, collected in a Map: a member named `__proto__`, `constructor` or
 * `toString` is a field name like any other (a plain object would read Object.prototype's members).
 */
function collectFieldErrors(
  issues: readonly { path: readonly PropertyKey[]; message: string; code?: string; keys?: readonly string[] }[],
  input: unknown,
  prefix: string,
  errors: Map<string, string[]>,
  unknown: string[],
): void {
  const add = (name: string, message: string) => errors.set(name, [...(errors.get(name) ?? []), message]);
  for (const issue of issues) {
    if (issue.code === 'unrecognized_keys' && issue.keys) {
      // Each unknown member by name, so a typo in an optional field is never silently ignored.
      for (const key of issue.keys) {
        const name = prefix + [...issue.path.map(String), key].join('.');
        unknown.push(name);
        add(name, 'unknown parameter');
      }
      continue;
    }
    add(prefix + (issue.path.map(String).join('.') || '(root)'), fieldMessage(issue, input));
  }
}

/** "amount (required), orderRef.orderRef (letters and digits only)": the detail names every field at fault (the first five). */
export function describeFieldErrors(errors: FieldErrors): string {
  const fields = Object.entries(errors).map(([field, messages]) => `${field} (${messages.join('; ')})`);
  return fields.length > 5 ? `${fields.slice(0, 5).join(', ')} and ${fields.length - 5} more` : fields.join(', ');
}

/**
 * The MD5 body signature (docs/merchant-guide.md, Signing a request body) on routes that carry one, then zod validation of body,
 * query and path. 400 with `errors` for malformed input, 401 "signature mismatch".
 */
const isRecord = (value: unknown): value is Record<string, unknown> => typeof value === 'object' && value !== null && !Array.isArray(value);

export function validateAndVerify(route: RouteDefinition, schemas: Schemas): Middleware {
  return {
    before: async (request) => {
      const gw = state(request);
      const signed = route.signature === 'ifPresent' ? isRecord(gw.json) && gw.json.signature !== undefined : route.signature;
      if (signed) {
        const body = gw.json;
        if (body === undefined) throw problems.badRequest('A JSON body is required.', { '(root)': ['required'] });
        if (typeof body !== 'object' || body === null || Array.isArray(body)) {
          throw problems.badRequest('The request body must be a JSON object.', { '(root)': ['must be an object'] });
        }
        const signature = (body as Record<string, unknown>).signature;
        if (signature === undefined || signature === null || signature === '') throw apiProblems.signatureRequired();
        if (typeof signature !== 'string' || !signatureShape.test(signature)) {
          throw problems.badRequest(
            'The signature field must be 32 lowercase hexadecimal characters.',
            {
              signature: ['must be 32 lowercase hexadecimal characters (MD5, see the signature recipe)'],
            },
            'invalid_signature',
          );
        }
        const secret = open(await masterKey(), gw.auth!.secretSealed, secretAssociatedData(gw.auth!.keyId));
        if (!verifyBodySignature(body as Record<string, unknown>, signature, secret)) throw apiProblems.signatureMismatch();
      }
      const parsed: Record<'body' | 'query' | 'path', unknown> = {
        body: gw.json,
        query: request.event.queryStringParameters ?? {},
        path: request.event.pathParameters ?? {},
      };
      const found = new Map<string, string[]>();
      const unknown: string[] = [];
      for (const part of ['body', 'query', 'path'] as const) {
        const schema = schemas[part];
        if (!schema) continue;
        const result = schema.safeParse(parsed[part]);
        if (result.success) parsed[part] = result.data;
        else collectFieldErrors(result.error.issues, parsed[part], part === 'body' ? '' : `${part}.`, found, unknown);
      }
      // Object.fromEntries defines own members, so a `__proto__` field name stays a plain member.
      const errors: FieldErrors = Object.fromEntries(found);
      if (unknown.length) {
        // Stripe's rule: a typo in an optional member is refused, never silently ignored.
        throw problems.badRequest(`Unknown parameter${unknown.length > 1 ? 's' : ''}: ${unknown.join(', ')}.`, errors, 'unknown_parameter');
      }
      if (found.size) throw problems.badRequest(`The request has invalid or missing fields: ${describeFieldErrors(errors)}.`, errors);
      gw.parsed = parsed;
    },
  };
}
