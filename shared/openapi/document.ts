import { resolve } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { z } from 'zod';
import { signBody } from '#shared/domain/body-signature.ts';
import type { Schemas } from '#shared/http/middlewares.ts';
import { supportedVersions, type Route } from '#shared/http/route.ts';
import { defaultCodes } from '#shared/http/problem.ts';
import { errorCodes } from '#shared/domain/error-codes.ts';
import { responseExamples, responseSchemas, type ResponseSchemaName } from './responses.ts';
import { webhookEvents, webhookHeaders } from './webhooks.ts';

/**
 * THE OpenAPI 3.1 document, built from the route table its caller passes (functions/routes.ts, which
 * this layer does not import: paths, auth, scopes, signature, `doc`) and the very zod schemas the
 * handlers validate with (`handler.schemas`, via zod 4's JSON Schema conversion), plus the response
 * bodies of ./responses.ts and the webhook events of ./webhooks.ts. Deterministic: the same inputs
 * give the same bytes, so docs/openapi.json (written by `npm run docs`, served by GET /Gateway/v1/openapi.json) is checked for staleness.
 */
type Json = Record<string, unknown>;
export type RouteSchemas = Readonly<Record<string, Schemas | undefined>>;

const repoRoot = fileURLToPath(new URL('../..', import.meta.url));
const version = supportedVersions[supportedVersions.length - 1]!;
/** The example secret key the request examples are signed with (docs/merchant-guide.md, Signing a request body). */
export const exampleSecretKey = 'sk_test_EXAMPLEexampleEXAMPLEexampleEXAMPLE12';

/** Every route's request schemas, read from its handler module (the handler carries them). */
export async function loadRouteSchemas(routes: readonly Route[]): Promise<RouteSchemas> {
  const out: Record<string, Schemas | undefined> = {};
  for (const route of routes) {
    const module = (await import(pathToFileURL(resolve(repoRoot, route.handler)).href)) as { handler?: { schemas?: Schemas } };
    out[route.id] = module.handler?.schemas;
  }
  return out;
}

/** zod → JSON Schema 2020-12 (what OpenAPI 3.1 uses), as the request side sees it. */
function jsonSchema(schema: z.core.$ZodType, io: 'input' | 'output' = 'input'): Json {
  const { $schema: _drop, ...rest } = z.toJSONSchema(schema, { target: 'draft-2020-12', io, unrepresentable: 'any' }) as Json;
  return rest;
}

/** Query schemas that rename case-insensitive names first (`pipe(transform, object)`): the object. */
function objectOf(schema: z.core.$ZodType): z.core.$ZodType {
  const def = schema._zod.def as { type: string; in?: z.core.$ZodType; out?: z.core.$ZodType; innerType?: z.core.$ZodType };
  if (def.type === 'pipe' && def.in?._zod.def.type === 'transform') return objectOf(def.out!);
  if (def.type === 'optional' && def.innerType) return objectOf(def.innerType);
  return schema;
}

/** The document's path: `/Gateway/v{version}/x` → `/Gateway/v1/x` (the version is not a parameter). */
export const documentPath = (route: Route) => route.path.replace('{version}', version);

/** Pages, and the dashboard's downloads: their errors are HTML pages too. */
const isPage = (route: Route) =>
  route.doc.success.schema === 'html' || route.doc.success.schema === 'static' || route.path.startsWith('/dashboard');

/** Every status a route can answer besides its success: the pipeline's, then the route's own. */
export function problemStatuses(route: Route, schemas: Schemas | undefined): number[] {
  const s = new Set<number>([429, 500]);
  const post = route.method === 'POST';
  if (route.path.includes('{version}')) s.add(404); // unknown versions
  if (/\{(?!version\})/.test(route.path)) s.add(400); // a malformed percent-escape in a path parameter
  if (route.auth === 'apiKey') s.add(401).add(403);
  if (post) s.add(413).add(415);
  if (post && !isPage(route)) s.add(400); // unparseable JSON
  if (post && route.auth === 'apiKey') s.add(400).add(409).add(422); // Idempotency-Key: malformed, in flight, reused
  if (post && route.permissions.table === 'readWrite' && !isPage(route)) s.add(409); // a concurrent change
  if (schemas?.body || schemas?.query || schemas?.path) s.add(400);
  if (route.signature) s.add(400).add(401);
  for (const status of route.doc.problems ?? []) s.add(status);
  return [...s].sort((a, b) => a - b);
}

const statusText: Record<number, string> = {
  400: 'Malformed or missing fields (`errors` names each), unknown body members (`unknown_parameter`), unparseable JSON.',
  401: 'Missing, unknown, revoked or expired Svc-API-Key (one body for all), or `signature mismatch`.',
  403: 'The key lacks the route’s scope (`missing_scope`) or the merchant is suspended (`merchant_suspended`).',
  404: 'No such object for this merchant and mode (never 403), or an unsupported API version.',
  409: 'A request with the same Idempotency-Key is still in flight, or a concurrent change: retry with the same key.',
  410: 'The checkout session has ended.',
  413: 'The body is larger than 64 KiB.',
  415: 'A POST without Content-Type: application/json.',
  422:
    'A well-formed request that breaks a business rule (amount limits, currency, duplicate ' +
    'orderRef, balance, …), or an Idempotency-Key reused with a different request.',
  429: 'Rate limited: retry after the Retry-After seconds.',
  500: 'An internal error; nothing internal is shown. Quote the traceId.',
};

const traceHeader = { 'Svc-Trace-Id': { $ref: '#/components/headers/SvcTraceId' } };

function problemComponents(): { schemas: Json; responses: Json } {
  const problem = {
    type: 'object',
    description: 'Problem details (RFC 9457). `code` is stable: branch on it, not on `detail`.',
    required: ['type', 'title', 'status', 'detail', 'code', 'traceId'],
    additionalProperties: false,
    properties: {
      type: { type: 'string', format: 'uri', description: 'The RFC 9110 section of the status.' },
      title: { type: 'string' },
      status: { type: 'integer' },
      detail: { type: 'string' },
      code: {
        type: 'string',
        description: `Stable machine-readable code. Defaults per status: ${Object.entries(defaultCodes)
          .map(([status, code]) => `${status} \`${code}\``)
          .join(', ')}; the specific ones: ${Object.keys(errorCodes)
          .filter((code) => !Object.values(defaultCodes).includes(code as never))
          .map((code) => `\`${code}\``)
          .join(', ')}. What each means: the Errors guide (/docs/errors).`,
      },
      traceId: { type: 'string', description: 'Equal to the Svc-Trace-Id header.' },
      errors: { $ref: '#/components/schemas/FieldErrors' },
      hint: { type: 'string', description: 'What to check next, with a link to the guide (e.g. on `signature_mismatch`).' },
    },
  };
  const schemas: Json = {
    FieldErrors: {
      type: 'object',
      description:
        'Field path (`orderRef.orderRef`, `query.limit`, `(root)`) → messages: `required` for a missing member, ' +
        '`must be a number, not a string` for a mistyped one, otherwise the rule the value breaks.',
      additionalProperties: { type: 'array', items: { type: 'string' } },
    },
    Problem: problem,
    ValidationProblem: {
      ...problem,
      required: [...problem.required, 'errors'],
      description: 'A 400: `errors` names every field at fault.',
    },
  };
  const responses: Json = {};
  for (const [status, text] of Object.entries(statusText)) {
    const code = Number(status);
    const title = {
      400: 'Bad Request',
      401: 'Unauthorized',
      403: 'Forbidden',
      404: 'Not Found',
      409: 'Conflict',
      410: 'Gone',
      413: 'Content Too Large',
      415: 'Unsupported Media Type',
      422: 'Unprocessable Content',
      429: 'Too Many Requests',
      500: 'Internal Server Error',
    }[code]!;
    const example: Json = {
      type: `https://www.rfc-editor.org/rfc/rfc9110#section-15.${code >= 500 ? 6 : 5}.1`,
      title,
      status: code,
      detail: code === 400 ? 'Unknown parameter: orderRef.orderReff.' : text,
      code: code === 400 ? 'unknown_parameter' : (defaultCodes[code] ?? 'gone'),
      traceId: '1b2c3d4e-5f60-4718-9a0b-1c2d3e4f5a6b',
      ...(code === 400 ? { errors: { 'orderRef.orderReff': ['unknown parameter'] } } : {}),
    };
    responses[`Problem${status}`] = {
      description: text,
      headers: { ...traceHeader, ...(code === 429 ? { 'Retry-After': { $ref: '#/components/headers/RetryAfter' } } : {}) },
      content: {
        'application/problem+json': { schema: { $ref: `#/components/schemas/${code === 400 ? 'ValidationProblem' : 'Problem'}` }, example },
      },
    };
    // Hosted checkout pages answer errors as HTML pages (the local gateway's own 413/429 stay problem+json).
    responses[`Page${status}`] = {
      description: text,
      headers: traceHeader,
      content: {
        'text/html': { schema: { type: 'string' }, example: '<!doctype html><html lang="en">…</html>' },
        'application/problem+json': { schema: { $ref: '#/components/schemas/Problem' } },
      },
    };
  }
  return { schemas, responses };
}

const signatureRule = [
  'The body carries `signature` (docs/merchant-guide.md, Signing a request ' +
    'body): remove `signature`; flatten nested objects into dotted keys',
  '(`customerRef.name`, `orderRef.orderRef`; array items by index); drop members whose value is null or "";',
  'render strings as they are, numbers in their shortest round-trip form (`100.5`), booleans `true`/`false`;',
  'sort by key (UTF-16 code units); join as `k1=v1&k2=v2&…`, append `&key=<secret key>`; MD5 of the UTF-8 bytes,',
  '32 lowercase hex characters. A malformed signature is a 400 (`invalid_signature`), a wrong one a 401 `signature mismatch`.',
].join(' ');

function parameters(route: Route, schemas: Schemas | undefined): Json[] {
  const out: Json[] = [];
  const example = route.doc.example ?? {};
  for (const where of ['path', 'query'] as const) {
    const schema = schemas?.[where];
    if (!schema) {
      if (where === 'path') {
        for (const [, name] of documentPath(route).matchAll(/\{(\w+)\}/g)) {
          out.push({
            name,
            in: 'path',
            required: true,
            schema: { type: 'string' },
            ...(example.path?.[name!] ? { example: example.path[name!] } : {}),
          });
        }
      }
      continue;
    }
    const object = jsonSchema(objectOf(schema));
    const properties = (object.properties ?? {}) as Record<string, Json>;
    const required = new Set((object.required ?? []) as string[]);
    for (const [name, property] of Object.entries(properties)) {
      const value = example[where]?.[name];
      out.push({
        name,
        in: where,
        required: where === 'path' || required.has(name),
        ...(typeof property.description === 'string' ? { description: property.description } : {}),
        schema: property,
        ...(value !== undefined ? { example: value } : {}),
      });
    }
  }
  if (route.method === 'POST' && route.auth === 'apiKey') out.push({ $ref: '#/components/parameters/IdempotencyKey' });
  return out;
}

function requestBody(route: Route, schemas: Schemas | undefined): Json | undefined {
  if (!schemas?.body) return undefined;
  const optional = schemas.body._zod.def.type === 'optional';
  const body = route.doc.example?.body;
  const example = body
    ? route.signature === true
      ? { ...body, signature: signBody(body as Record<string, unknown>, exampleSecretKey) }
      : body
    : undefined;
  return {
    required: !optional,
    description:
      route.signature === true
        ? signatureRule
        : 'Optional. A body that carries `signature` is checked like a signed body (docs/merchant-guide.md, Signing a request body).',
    content: { 'application/json': { schema: jsonSchema(objectOf(schemas.body)), ...(example ? { example } : {}) } },
  };
}
function successResponse(route: Route): Json {
  const { status, schema: name } = route.doc.success;
  const htmlPage = { 'text/html': { schema: { type: 'string' }, example: '<!doctype html><html lang="en">…</html>' } };
  if (name === 'static') {
    const text = { schema: { type: 'string' } };
    return {
      [status]: {
        description: 'A guide page, or a file of the reference page.',
        headers: traceHeader,
        content: { ...htmlPage, 'text/css': text, 'text/javascript': text },
      },
    };
  }
  if (name === 'image') {
    // A payment link's QR code (functions/links/qr.ts): SVG by default, PNG with ?format=png.
    return {
      [status]: {
        description: 'The image: SVG (`?format=svg`, the default) or PNG (`?format=png`, 512 × 512 pixels).',
        headers: traceHeader,
        content: {
          'image/svg+xml': { schema: { type: 'string' }, example: '<svg xmlns="http://www.w3.org/2000/svg" …></svg>' },
          'image/png': { schema: { type: 'string', format: 'binary' } },
        },
      },
    };
  }
  if (name === 'html') {
    return {
      [status]: { description: 'An HTML page.', headers: traceHeader, content: htmlPage },
      ...(route.path.startsWith('/pay/')
        ? {
            303: {
              description: 'Redirect (POST-redirect-GET, or to the merchant’s callbackUrl).',
              headers: { ...traceHeader, Location: { schema: { type: 'string' } } },
            },
          }
        : {}),
    };
  }
  if (name === 'csv' || name === 'pdf') {
    const file =
      name === 'csv'
        ? { 'text/csv': { schema: { type: 'string' }, example: 'section,type,id,createdAt,…\r\n' } }
        : { 'application/pdf': { schema: { type: 'string', format: 'binary' }, example: '%PDF-1.7 …' } };
    return {
      [status]: {
        description: `The statement as ${name.toUpperCase()} (an attachment).`,
        headers: {
          ...traceHeader,
          'Statement-Digest': {
            description: 'sha256=<hex>: SHA-256 of the statement’s canonical CSV rows (docs/merchant-guide.md, Statements).',
            schema: { type: 'string' },
          },
        },
        content: file,
      },
    };
  }
  if (!(name in responseSchemas)) throw new Error(`route ${route.id}: unknown response schema ${name}`);
  return {
    [status]: {
      description: route.summary,
      headers: {
        ...traceHeader,
        ...(route.method === 'POST' ? { 'Idempotent-Replayed': { $ref: '#/components/headers/IdempotentReplayed' } } : {}),
      },
      content: {
        'application/json': { schema: { $ref: `#/components/schemas/${name}` }, example: responseExamples[name as ResponseSchemaName] },
      },
    },
  };
}

/** `summary` is the first clause of the row's summary; the whole sentence is the description. */
function shortSummary(text: string): string {
  const plain = text.replace(/ \([^)]*\)/g, '');
  const [head, rest] = plain.split(/: (.*)/s) as [string, string | undefined];
  // "Hosted checkout: pay by card" → "Pay by card" (the tag already says where it is).
  const clause = head.split(' ').length <= 2 && rest ? rest : head;
  const short = clause.split(/: |; |\. /)[0]!.replace(/\.$/, '');
  return short.charAt(0).toUpperCase() + short.slice(1);
}

function operation(route: Route, schemas: Schemas | undefined): Json {
  const responses: Json = successResponse(route);
  for (const status of problemStatuses(route, schemas))
    responses[status] = { $ref: `#/components/responses/${isPage(route) ? 'Page' : 'Problem'}${status}` };
  const body = requestBody(route, schemas);
  const scope = route.scope ? ` Scope: \`${route.scope}\`.` : '';
  return {
    operationId: route.id,
    summary: shortSummary(route.summary),
    description: `${route.summary}${scope}${route.signature === true ? ' The body is signed (see the request body).' : ''}`,
    tags: [route.doc.tag],
    security: route.auth === 'apiKey' ? [{ SvcApiKey: [] }] : [],
    ...(route.scope ? { 'x-scope': route.scope } : {}),
    parameters: parameters(route, schemas),
    ...(body ? { requestBody: body } : {}),
    responses,
  };
}

const tags: { name: Route['doc']['tag']; description: string }[] = [
  { name: 'Payments', description: 'Hosted checkout sessions and mobile-wallet charges (deposits).' },
  { name: 'Payouts', description: 'Withdrawals to bank and wallet accounts.' },
  { name: 'Transactions', description: 'Look up and list checkouts, deposits and withdrawals.' },
  { name: 'Refunds', description: 'Refund completed checkouts and deposits (the operator approves).' },
  { name: 'Settlements', description: 'Move wallet funds to a bank account or a USDT address.' },
  { name: 'Account', description: 'Wallet balance.' },
  { name: 'Webhooks', description: 'Events of a transaction, their delivery attempts, resends.' },
  { name: 'Hosted checkout', description: 'The customer-facing HTML pages behind checkoutUrl (not called by merchants).' },
  {
    name: 'Dashboard',
    description:
      'The merchant dashboard (docs/dashboard.md): server-rendered pages and form ' +
      'posts behind a session cookie with a CSRF token (not an API).',
  },
  { name: 'Providers', description: 'Wallet providers’ signed notifications (provider-facing, not for merchants).' },
  { name: 'Reference', description: 'This document.' },
];

/**
 * Who a document is for: `merchant` (docs/openapi.json, served at /Gateway/v1/openapi.json and rendered at /docs) leaves out
 * the dashboard's pages and form posts, which are the dashboard's own and no integration calls; `all` (the contract
 * checker's copy, test/fixtures/openapi-all.json) keeps every route of the table.
 */
export type Audience = 'merchant' | 'all';
export const inAudience = (route: Route, audience: Audience) => audience === 'all' || route.doc.tag !== 'Dashboard';

export function buildOpenApiDocument(routeSchemas: RouteSchemas, allRoutes: readonly Route[], audience: Audience = 'merchant'): Json {
  const routes = allRoutes.filter((route) => inAudience(route, audience));
  const registry = z.registry<{ id: string }>();
  for (const [name, s] of Object.entries(responseSchemas)) registry.add(s, { id: name });
  for (const event of webhookEvents) registry.add(event.schema, { id: event.type });
  const generated = z.toJSONSchema(registry, { target: 'draft-2020-12', io: 'output', uri: (id) => `#/components/schemas/${id}` })
    .schemas as Record<string, Json>;
  const componentSchemas: Json = {};
  for (const [name, s] of Object.entries(generated).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))) {
    const { $schema: _drop, $id: _id, ...rest } = s;
    componentSchemas[name] = rest;
  }
  const problemsPart = problemComponents();

  const paths: Record<string, Json> = {};
  for (const route of routes) {
    const path = documentPath(route);
    (paths[path] ??= {})[route.method.toLowerCase()] = operation(route, routeSchemas[route.id]);
  }

  const webhooks: Json = {};
  for (const event of webhookEvents) {
    webhooks[event.type] = {
      post: {
        operationId: `webhook${event.type}`,
        summary: event.summary,
        description:
          `${event.description} Answer 2xx within 5 seconds; otherwise the delivery is retried with backoff ` +
          `under the same event id (at-least-once, unordered: deduplicate on X-Svc-Event-Id).`,
        tags: ['Webhooks'],
        security: [],
        parameters: Object.entries(webhookHeaders).map(([name, h]) => ({
          name,
          in: 'header',
          required: true,
          description: h.description,
          schema: { type: 'string' },
          example: h.example,
        })),
        requestBody: {
          required: true,
          content: { 'application/json': { schema: { $ref: `#/components/schemas/${event.type}` }, example: event.example } },
        },
        responses: { 200: { description: 'Any 2xx acknowledges the delivery.' } },
      },
    };
  }

  // Only the shared responses some operation uses (linters flag the others).
  const used = new Set([...JSON.stringify(paths).matchAll(/#\/components\/responses\/(\w+)/g)].map((m) => m[1]!));
  const responses = Object.fromEntries(Object.entries(problemsPart.responses).filter(([name]) => used.has(name)));

  return {
    openapi: '3.1.0',
    info: {
      title: 'Svc Payment Gateway API',
      version,
      summary: 'Hosted checkout, mobile-wallet charges, payouts, refunds, settlements and signed webhooks.',
      description:
        'Take payments on a hosted checkout page or as mobile-wallet charges, pay out to bank accounts and wallets, ' +
        'refund, settle your balance, and receive signed webhooks. Every request carries your public key in the ' +
        '`Svc-API-Key` header (`pk_test_…` in test mode, which never reaches a real provider; `pk_live_…` in live ' +
        'mode). POSTs that move money also carry a `signature` in the body, computed with your secret key ' +
        '(`sk_…`, never sent): see the Signing requests guide, or let the SDK do it. Amounts are decimal numbers ' +
        'in the currency’s major unit (`1500` is PKR 1,500.00). Errors are RFC 9457 problem details with a stable ' +
        '`code`. Send an `Idempotency-Key` with any POST to retry it safely. Start with the Quick start guide.',
      license: { name: 'Proprietary', identifier: 'LicenseRef-Proprietary' },
      contact: { name: 'Gateway support', email: 'support@example.com' },
    },
    servers: [
      { url: 'http://localhost:3000', description: 'The local stack (`npm start`); a deployment serves the same paths on its API URL.' },
    ],
    security: [{ SvcApiKey: [] }],
    tags: tags.filter((tag) => routes.some((route) => route.doc.tag === tag.name) || tag.name === 'Webhooks'),
    paths,
    webhooks,
    components: {
      securitySchemes: {
        SvcApiKey: {
          type: 'apiKey',
          in: 'header',
          name: 'Svc-API-Key',
          description: 'pk_test_… or pk_live_…: the mode comes from the key. Scopes per key.',
        },
      },
      parameters: {
        IdempotencyKey: {
          name: 'Idempotency-Key',
          in: 'header',
          required: false,
          description:
            '1-255 printable ASCII characters, scoped to the merchant and mode, kept 24 hours. The ' +
            'same key and request replays the first response (header Idempotent-Replayed: true); a ' +
            'different request with the key is a 422; a twin still in flight is a 409.',
          schema: { type: 'string', minLength: 1, maxLength: 255, pattern: '^[\\x21-\\x7e]+$' },
          example: 'order-1001-attempt-1',
        },
      },
      headers: {
        SvcTraceId: { description: 'The traceId of this request (on every response).', schema: { type: 'string' } },
        RetryAfter: { description: 'Seconds to wait before retrying.', schema: { type: 'integer', minimum: 1 } },
        IdempotentReplayed: {
          description: '`true` when this is the replay of an earlier request with the same Idempotency-Key.',
          schema: { type: 'string', enum: ['true'] },
        },
      },
      schemas: { ...componentSchemas, ...problemsPart.schemas },
      responses,
    },
  };
}

/** The document as `npm run docs` writes it and the route serves it. */
export const renderOpenApi = (document: Json) => `${JSON.stringify(document, null, 2)}\n`;
