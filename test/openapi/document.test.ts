import { existsSync, readFileSync } from 'node:fs';
import { beforeAll, describe, expect, it } from 'vitest';
import { routeList } from '#functions/routes.ts';
import * as domainEvents from '#shared/domain/events.ts';
import {
  buildOpenApiDocument,
  documentPath,
  loadRouteSchemas,
  problemStatuses,
  renderOpenApi,
  type RouteSchemas,
} from '#shared/openapi/document.ts';
import { responseExamples, responseSchemas } from '#shared/openapi/responses.ts';
import { webhookEvents } from '#shared/openapi/webhooks.ts';
import { allOperationsPath, openApiPath } from '../../scripts/docs.ts';
import { checkResponse, ContractViolation, documentSchemaErrors, findOperation, validateAgainst } from '../support/contract.ts';

/**
 * docs/openapi.json: generated from the route table and the handlers' own zod schemas, never stale,
 * complete (every route, parameter, body, response, example, webhook), and the contract checker
 * that test/support/gateway.ts applies to every response really refuses what the document does not say.
 */
type Json = Record<string, any>;
let schemas: RouteSchemas;
let document: Json;
let merchantDocument: Json;

beforeAll(async () => {
  schemas = await loadRouteSchemas(routeList);
  document = buildOpenApiDocument(schemas, routeList, 'all');
  merchantDocument = buildOpenApiDocument(schemas, routeList);
});

const operationOf = (id: string) => {
  const route = routeList.find((r) => r.id === id)!;
  return document.paths[documentPath(route)][route.method.toLowerCase()] as Json;
};

describe('docs/openapi.json', () => {
  it('says on every amount field, in requests and responses, that amounts are decimal major units', () => {
    const moneyFields: [string, Json][] = [];
    const walk = (node: unknown, path: string): void => {
      if (!node || typeof node !== 'object') return;
      for (const [key, value] of Object.entries(node as Json)) {
        if (key === 'amount' && value && typeof value === 'object' && value.type === 'number') moneyFields.push([`${path}/${key}`, value]);
        walk(value, `${path}/${key}`);
      }
    };
    walk(document, '#');
    expect(moneyFields.filter(([p]) => p.includes('requestBody')).length).toBeGreaterThan(3);
    for (const [path, field] of moneyFields) expect(field.description, path).toMatch(/major unit: 1500 is 1,500\.00/);
  });

  it('is up to date with the route table and the handlers’ schemas (run `npm run docs`)', () => {
    expect(existsSync(openApiPath), 'docs/openapi.json is missing: run `npm run docs`').toBe(true);
    expect(readFileSync(openApiPath, 'utf8') === renderOpenApi(merchantDocument), 'docs/openapi.json is stale: run `npm run docs`').toBe(
      true,
    );
    expect(readFileSync(allOperationsPath, 'utf8') === renderOpenApi(document), `${allOperationsPath} is stale: run \`npm run docs\``).toBe(
      true,
    );
  });

  it('for merchants: no dashboard page or form post; every other operation exactly as the contract checker holds it', () => {
    const merchantPaths = Object.keys(merchantDocument.paths);
    expect(merchantPaths.filter((p) => p.startsWith('/dashboard'))).toEqual([]);
    expect(merchantDocument.tags.map((t: Json) => t.name)).not.toContain('Dashboard');
    const dashboardRoutes = routeList.filter((r) => r.doc.tag === 'Dashboard');
    expect(dashboardRoutes.length).toBeGreaterThan(20);
    const nonDashboard = Object.fromEntries(
      Object.entries(document.paths as Json).filter(([path]) => !dashboardRoutes.some((r) => documentPath(r) === path)),
    );
    expect(merchantDocument.paths).toEqual(nonDashboard);
    expect(merchantDocument.components.schemas).toEqual(document.components.schemas);
  });

  it('is OpenAPI 3.1 with the Svc-API-Key scheme and the Idempotency-Key header', () => {
    expect(document.openapi).toBe('3.1.0');
    expect(document.components.securitySchemes.SvcApiKey).toMatchObject({ type: 'apiKey', in: 'header', name: 'Svc-API-Key' });
    expect(document.components.parameters.IdempotencyKey).toMatchObject({ name: 'Idempotency-Key', in: 'header' });
  });

  it.each(routeList.map((r) => [r.id, r] as const))('%s: one operation with its schemas, statuses and examples', (id, route) => {
    const op = operationOf(id);
    expect(op.operationId).toBe(id);
    expect(op.summary).toBeTruthy();
    expect(op.security).toEqual(route.auth === 'apiKey' ? [{ SvcApiKey: [] }] : []);
    // Path parameters: every {name} of the path, described.
    const pathParams = [...documentPath(route).matchAll(/\{(\w+)\}/g)].map((m) => m[1]);
    expect(
      op.parameters
        .filter((p: Json) => p.in === 'path')
        .map((p: Json) => p.name)
        .sort(),
    ).toEqual(pathParams.sort());
    if (route.method === 'POST' && route.auth === 'apiKey')
      expect(op.parameters).toContainEqual({ $ref: '#/components/parameters/IdempotencyKey' });
    // Every status the pipeline or the route can answer is listed, each with a body.
    const statuses = Object.keys(op.responses).map(Number);
    expect(statuses).toContain(route.doc.success.status);
    for (const status of problemStatuses(route, schemas[id])) expect(statuses).toContain(status);
    if (route.auth === 'apiKey') expect(statuses).toEqual(expect.arrayContaining([401, 403]));
    if (schemas[id]?.body || schemas[id]?.query || schemas[id]?.path) {
      expect(op.responses[400]).toEqual({ $ref: '#/components/responses/Problem400' });
    }
    // Examples: the success body, and the request body (signed with the example secret when signed).
    const success = op.responses[route.doc.success.status];
    const media =
      success.content['application/json'] ??
      success.content['text/html'] ??
      success.content['text/csv'] ??
      success.content['application/pdf'] ??
      success.content['image/svg+xml'];
    expect(media.example, `${id}: success example`).toBeDefined();
    if (schemas[id]?.body && route.doc.example?.body) {
      const example = op.requestBody.content['application/json'].example;
      expect(schemas[id]!.body!.safeParse(example).success, `${id}: the request example passes the handler's own schema`).toBe(true);
      if (route.signature === true) expect(example.signature).toMatch(/^[0-9a-f]{32}$/);
    }
    if (schemas[id]?.body && route.signature === true) {
      expect(op.requestBody.required).toBe(true);
      expect(op.requestBody.description).toContain('MD5');
      expect(route.doc.example?.body, `${id}: a signed route needs a request example`).toBeDefined();
    }
  });

  it('gives every operation its own short summary (the reference page lists them)', () => {
    const summaries = routeList.map((r) => operationOf(r.id).summary as string);
    expect(new Set(summaries).size).toBe(summaries.length);
    for (const summary of summaries) expect(summary.length).toBeLessThanOrEqual(100);
  });

  it('describes request bodies strictly (unknown members are refused), from the handler schemas', () => {
    const body = operationOf('initiateCheckout').requestBody.content['application/json'].schema;
    expect(body.additionalProperties).toBe(false);
    expect(body.required).toEqual(expect.arrayContaining(['amount', 'description', 'orderRef', 'signature']));
    expect(body.properties.orderRef.additionalProperties).toBe(false);
    expect(body.properties.description.pattern).toBe('^[A-Za-z0-9 ]{1,200}$');
    const withdraw = operationOf('withdraw').requestBody.content['application/json'].schema;
    expect(withdraw.properties.customerRef.additionalProperties).toBe(false);
  });

  it('documents query parameters from the handler schemas', () => {
    const names = operationOf('listTransactions').parameters.map((p: Json) => p.name);
    expect(names).toEqual(['status', 'intentType', 'from', 'to', 'orderRef', 'paymentLinkId', 'limit', 'startingAfter']);
    const limit = operationOf('listTransactions').parameters.find((p: Json) => p.name === 'limit');
    expect(limit.description).toBe('A whole number from 1 to 100.');
    expect(operationOf('listRefunds').parameters.find((p: Json) => p.name === 'trxnRef').required).toBe(true);
  });

  it('has schemas that all compile (the contract check of useGateway compiles each when a response first needs it)', () => {
    const names = Object.keys(document.components.schemas);
    expect(names.length).toBeGreaterThan(Object.keys(responseSchemas).length);
    for (const name of names) expect(() => validateAgainst(`#/components/schemas/${name}`, null), name).not.toThrow();
    expect(documentSchemaErrors()).toEqual([]); // each file's contract check leaves this to here
  });

  it.each(Object.keys(responseSchemas))('the %s example matches its schema', (name) => {
    expect(validateAgainst(`#/components/schemas/${name}`, (responseExamples as Json)[name])).toEqual([]);
  });

  it('has a webhook for every event type of shared/domain/events.ts, with the signature headers', () => {
    const declared = (Object.values(domainEvents) as unknown[]).filter(
      (v): v is string => typeof v === 'string' && /^[A-Z]\w+Changed$/.test(v),
    );
    expect(declared.length).toBeGreaterThan(0);
    for (const type of declared)
      expect(Object.keys(document.webhooks), `webhook ${type} (add it to shared/openapi/webhooks.ts)`).toContain(type);
    for (const event of webhookEvents) {
      const op = document.webhooks[event.type].post;
      expect(op.parameters.map((p: Json) => p.name)).toEqual(
        expect.arrayContaining(['X-Svc-Signature-V2', 'X-Svc-Event-Id', 'X-Svc-Event-Type', 'X-Svc-Delivery-Id']),
      );
      expect(validateAgainst(`#/components/schemas/${event.type}`, event.example)).toEqual([]);
    }
  });

  it('problem responses carry a code, and a 400 its errors map', () => {
    const problem = document.components.schemas.Problem;
    expect(problem.required).toContain('code');
    expect(document.components.schemas.ValidationProblem.required).toContain('errors');
  });
});

describe('the contract check on every test response', () => {
  const transaction = (responseExamples as Json).Transaction;
  const path = '/Gateway/v1/Transaction/ORDER1001';

  it('accepts a documented status and body', () => {
    expect(() => checkResponse('GET', path, 200, 'application/json', JSON.stringify(transaction))).not.toThrow();
  });

  it('refuses an undocumented field', () => {
    expect(() =>
      checkResponse('GET', path, 200, 'application/json', JSON.stringify({ ...transaction, cardNumber: '4242424242424242' })),
    ).toThrow(ContractViolation);
  });

  it('refuses a missing field or a wrong type', () => {
    const { status: _status, ...missing } = transaction;
    expect(() => checkResponse('GET', path, 200, 'application/json', JSON.stringify(missing))).toThrow(/status/);
    expect(() => checkResponse('GET', path, 200, 'application/json', JSON.stringify({ ...transaction, amount: '15.00' }))).toThrow(
      ContractViolation,
    );
  });

  it('refuses an undocumented status and an undocumented content type', () => {
    expect(() => checkResponse('GET', path, 418, 'application/json', '{}')).toThrow(/418 is not documented/);
    expect(() => checkResponse('GET', path, 200, 'text/plain', 'ok')).toThrow(/content type/);
  });

  it('refuses a problem without a code', () => {
    const problem = {
      type: 'https://www.rfc-editor.org/rfc/rfc9110#section-15.5.5',
      title: 'Not Found',
      status: 404,
      detail: 'No transaction.',
      traceId: 't',
    };
    expect(() => checkResponse('GET', path, 404, 'application/problem+json', JSON.stringify(problem))).toThrow(/code/);
    expect(() =>
      checkResponse('GET', path, 404, 'application/problem+json', JSON.stringify({ ...problem, code: 'not_found' })),
    ).not.toThrow();
  });

  it('matches literal paths before templated ones, and any version to the v1 operation', () => {
    expect(findOperation('GET', '/Gateway/v1/Settlements/schedule')!.operation.operationId).toBe('settlementSchedule');
    expect(findOperation('GET', '/Gateway/v1/Transaction/by-ref/X')!.operation.operationId).toBe('transactionByRef');
    expect(findOperation('GET', '/Gateway/v9/Transactions?limit=1')!.operation.operationId).toBe('listTransactions');
  });
});
