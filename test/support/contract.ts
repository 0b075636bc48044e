import { readFileSync } from 'node:fs';
import { Ajv2020, type ValidateFunction } from 'ajv/dist/2020.js';
import addFormatsModule from 'ajv-formats';
import { routeList, type Route } from '#functions/routes.ts';
import { allOperationsPath } from '../../scripts/docs.ts';

/**
 * Contract checks: every response the integration suites receive through `call()`
 * (test/support/gateway.ts) is checked against test/fixtures/openapi-all.json: docs/openapi.json, the document the gateway
 * serves to merchants, plus the dashboard's pages and form posts (the same builder, `npm run docs` writes both):
 * the status must be one the operation lists, the content type one the response lists, and a JSON
 * body must validate (ajv, JSON Schema 2020-12) against its schema. Response schemas are strict
 * (additionalProperties: false), so an undocumented status or field fails the test that met it.
 * test/openapi/document.test.ts keeps both files equal to what the code generates.
 */
type Json = Record<string, any>;
const addFormats = addFormatsModule as unknown as (ajv: Ajv2020) => Ajv2020;

let loaded: { document: Json; ajv: Ajv2020; matchers: { method: string; path: string; pattern: RegExp; params: number }[] } | undefined;

function load() {
  if (loaded) return loaded;
  const document = JSON.parse(readFileSync(allOperationsPath, 'utf8')) as Json;
  // Not checked against JSON Schema's meta-schema in every file (about 35 ms of CPU each): documentSchemaErrors does it once.
  const ajv = new Ajv2020({ strict: false, allErrors: true, validateFormats: true, validateSchema: false });
  addFormats(ajv);
  ajv.addSchema(document, 'openapi.json');
  const matchers = Object.entries(document.paths as Json).flatMap(([path, item]) =>
    Object.keys(item as Json).map((method) => ({
      method: method.toUpperCase(),
      path,
      pattern: new RegExp(`^${path.replace(/[.*+?^$()|[\]\\]/g, '\\$&').replace(/\\?\{\w+\\?\}|\{\w+\}/g, '[^/]+')}/?$`),
      params: (path.match(/\{/g) ?? []).length,
    })),
  );
  loaded = { document, ajv, matchers };
  return loaded;
}

const validators = new Map<string, ValidateFunction>();
function validator(pointer: string): ValidateFunction {
  let v = validators.get(pointer);
  if (!v) {
    const { ajv } = load();
    v = ajv.getSchema(`openapi.json${pointer}`) ?? ajv.compile({ $ref: `openapi.json${pointer}` });
    validators.set(pointer, v);
  }
  return v;
}

const deref = (document: Json, node: Json): Json =>
  typeof node?.$ref === 'string' ? deref(document, resolvePointer(document, node.$ref)) : node;
function resolvePointer(document: Json, ref: string): Json {
  return ref
    .replace(/^#\//, '')
    .split('/')
    .reduce((n: Json, key) => n?.[key.replace(/~1/g, '/').replace(/~0/g, '~')], document);
}

/** The document's operation for a request, matching `/Gateway/v2/…` to its v1 path (the 404 of an unknown version is listed there). */
export function findOperation(method: string, rawPath: string): { path: string; operation: Json } | undefined {
  const { document, matchers } = load();
  const path = rawPath.split('?')[0]!.replace(/^\/Gateway\/v[^/]*\//, '/Gateway/v1/');
  const candidates = matchers.filter((m) => m.method === method.toUpperCase() && m.pattern.test(path)).sort((a, b) => a.params - b.params);
  const best = candidates[0];
  return best && { path: best.path, operation: document.paths[best.path][best.method.toLowerCase()] };
}

export class ContractViolation extends Error {}

/** Test-only routes (test/fixtures/) are not in the document: responses on their paths are not checked. */
const testOnly: RegExp[] = [];
export function registerTestOnlyRoutes(routes: readonly Route[]) {
  for (const route of routes) {
    if (routeList.some((r) => r.id === route.id)) continue;
    testOnly.push(new RegExp(`^${route.path.replace(/[.*+?^$()|[\]\\]/g, '\\$&').replace(/\{\w+\}/g, '[^/]+')}/?$`));
  }
}

/** Throws ContractViolation when the response is not what the document says this request gets. */
export function checkResponse(method: string, path: string, status: number, contentType: string | null, text: string): void {
  const { document } = load();
  if (testOnly.some((p) => p.test(path.split('?')[0]!))) return;
  const found = findOperation(method, path);
  const where = `${method} ${path} → ${status}`;
  const mediaType = (contentType ?? '').split(';')[0]!.trim().toLowerCase();
  if (!found) {
    // No such operation (unknown path or method): the gateway's own 404 problem.
    if (status !== 404 && status !== 429)
      throw new ContractViolation(`${where}: no operation in the route table's OpenAPI document matches this request`);
    if (mediaType === 'application/problem+json') validate('#/components/schemas/Problem', text, where);
    return;
  }
  const declared = found.operation.responses?.[String(status)];
  if (!declared) {
    throw new ContractViolation(
      `${where}: status ${status} is not documented for ${found.operation.operationId} ` +
        `(${Object.keys(found.operation.responses).join(', ')})`,
    );
  }
  const response = deref(document, declared);
  if (!response.content || text === '') return;
  const media = response.content[mediaType];
  if (!media)
    throw new ContractViolation(`${where}: content type "${mediaType}" is not documented (${Object.keys(response.content).join(', ')})`);
  if (!mediaType.endsWith('json') || !media.schema) return;
  const pointer =
    typeof media.schema.$ref === 'string'
      ? media.schema.$ref.slice(1)
      : `/paths/${found.path.replace(/~/g, '~0').replace(/\//g, '~1')}/${method.toLowerCase()}/responses/${status}` +
        `/content/${mediaType.replace(/~/g, '~0').replace(/\//g, '~1')}/schema`;
  validate(`#${pointer.replace(/^#/, '')}`, text, `${where} (${found.operation.operationId})`);
}

function validate(pointer: string, text: string, where: string) {
  let body: unknown;
  try {
    body = JSON.parse(text);
  } catch {
    throw new ContractViolation(`${where}: the body is not JSON`);
  }
  const v = validator(pointer);
  if (!v(body)) {
    const errors = (v.errors ?? []).map(
      (e) =>
        `${e.instancePath || '(root)'} ${e.message}` +
        (e.params && 'additionalProperty' in e.params ? ` "${String(e.params.additionalProperty)}"` : ''),
    );
    throw new ContractViolation(`${where}: the body does not match ${pointer}: ${errors.slice(0, 8).join('; ')}\n${text.slice(0, 600)}`);
  }
}

/**
 * Loads the document (useGateway's beforeAll), so no test pays for reading it mid-flow. Each schema is
 * compiled when a response first needs it: compiling them all up front cost about 0.3 CPU-s in every
 * file with its own module graph (36 of them), most of it for schemas the file never checks.
 */
export function warmUpContract(): void {
  load();
}

/** What JSON Schema's meta-schema finds wrong with the document's schemas (test/openapi/document.test.ts). */
export function documentSchemaErrors(): string[] {
  const ajv = new Ajv2020({ strict: false, allErrors: true, validateFormats: true });
  addFormats(ajv);
  ajv.addSchema(load().document, 'openapi.json');
  return ajv.validateSchema(load().document) ? [] : (ajv.errors ?? []).map((e) => `${e.instancePath} ${e.message}`);
}

/** Validates a value against a document schema (for tests of the document itself). */
export function validateAgainst(pointer: string, value: unknown): string[] {
  const v = validator(pointer);
  return v(value) ? [] : (v.errors ?? []).map((e) => `${e.instancePath || '(root)'} ${e.message}`);
}
