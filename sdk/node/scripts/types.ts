// `npm run sdk:types` (also run by `npm run docs`): writes sdk/node/src/types.gen.ts from docs/openapi.json.
// A small JSON Schema -> TypeScript printer for the subset the document uses (type, properties, required,
// additionalProperties, items, anyOf/oneOf/allOf, const, enum, $ref); anything else becomes `unknown`.
// test/sdk/types.test.ts fails when the committed file differs from a fresh render.
import { readFileSync, realpathSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

type Schema = Record<string, any>;
type Json = Record<string, any>;

const sdkRoot = join(dirname(fileURLToPath(import.meta.url)), '..');
export const typesPath = join(sdkRoot, 'src/types.gen.ts');
export const documentPath = join(sdkRoot, '../../docs/openapi.json');

const pascal = (id: string) => id.charAt(0).toUpperCase() + id.slice(1);
const key = (name: string) => (/^[A-Za-z_$][\w$]*$/.test(name) ? name : JSON.stringify(name));
const refName = (ref: string) => ref.slice(ref.lastIndexOf('/') + 1);

function comment(text: string | undefined, indent: string): string[] {
  if (!text) return [];
  const lines = text.replace(/\*\//g, '*\\/').trim().split(/\r?\n/);
  return lines.length === 1
    ? [`${indent}/** ${lines[0]} */`]
    : [`${indent}/**`, ...lines.map((l) => `${indent} * ${l}`.trimEnd()), `${indent} */`];
}

/** Parenthesised when it is a union or an intersection, so `[]` and `&` bind to the whole. */
const group = (type: string) => (/^[\w$.<>"'[\], -]+$/.test(type) && !type.includes(' | ') ? type : `(${type})`);

function union(types: string[]): string {
  const parts = [...new Set(types.flatMap((t) => (t.includes('{') ? [t] : t.split(' | '))))];
  return parts.includes('unknown') ? 'unknown' : parts.join(' | ');
}

/** The TypeScript type of a schema; `indent` is the indentation of the line the type starts on. */
export function typeOf(schema: Schema | boolean | undefined, indent = ''): string {
  if (schema === undefined || schema === true) return 'unknown';
  if (schema === false) return 'never';
  if (schema.$ref) return refName(schema.$ref);
  if (schema.anyOf || schema.oneOf) return union((schema.anyOf ?? schema.oneOf).map((s: Schema) => typeOf(s, indent)));
  if (schema.allOf) return schema.allOf.map((s: Schema) => group(typeOf(s, indent))).join(' & ');
  if (schema.const !== undefined) return JSON.stringify(schema.const);
  if (Array.isArray(schema.enum)) return union(schema.enum.map((v: unknown) => JSON.stringify(v)));
  if (Array.isArray(schema.type)) return union(schema.type.map((t: string) => typeOf({ ...schema, type: t }, indent)));
  switch (schema.type) {
    case 'string':
      return 'string';
    case 'number':
    case 'integer':
      return 'number';
    case 'boolean':
      return 'boolean';
    case 'null':
      return 'null';
    case 'array':
      return schema.items ? `${group(typeOf(schema.items, indent))}[]` : 'unknown[]';
    case 'object':
      return objectType(schema, indent);
    default:
      return schema.properties ? objectType(schema, indent) : 'unknown';
  }
}

function objectType(schema: Schema, indent: string): string {
  const properties = Object.entries((schema.properties ?? {}) as Record<string, Schema>);
  const extra = schema.additionalProperties;
  if (properties.length === 0) {
    if (extra === false) return 'Record<string, never>';
    return `Record<string, ${extra === undefined || extra === true ? 'unknown' : typeOf(extra, indent)}>`;
  }
  const inner = `${indent}  `;
  const required = new Set<string>(schema.required ?? []);
  const lines = properties.flatMap(([name, property]) => [
    ...comment(property.description, inner),
    `${inner}${key(name)}${required.has(name) ? '' : '?'}: ${typeOf(property, inner)};`,
  ]);
  // Properties must fit an index signature, so alongside named ones it can only say `unknown`.
  if (extra !== undefined && extra !== false) lines.push(`${inner}[field: string]: unknown;`);
  return `{\n${lines.join('\n')}\n${indent}}`;
}

/** `export interface` for object types, `export type` otherwise. */
function declaration(name: string, schema: Schema, description?: string): string[] {
  const type = typeOf(schema);
  return [
    ...comment(description ?? schema.description, ''),
    type.startsWith('{') ? `export interface ${name} ${type}` : `export type ${name} = ${type};`,
    '',
  ];
}

/** Query strings are strings; a parameter documented as a whole number (a digits pattern) also takes a number. */
function queryType(schema: Schema): string {
  const type = typeOf(schema);
  return type === 'string' && /^\^(\\d|\[0-9\])/.test(schema.pattern ?? '') ? 'number | string' : type;
}

/** The merchant API: every operation that takes the Svc-API-Key. */
function merchantOperations(document: Json): { path: string; method: string; op: Json }[] {
  const out: { path: string; method: string; op: Json }[] = [];
  for (const [path, item] of Object.entries(document.paths as Json)) {
    for (const [method, op] of Object.entries(item as Json))
      if (op.security?.some((s: Json) => 'SvcApiKey' in s)) out.push({ path, method, op });
  }
  return out;
}

export function renderSdkTypes(document: Json): string {
  const out: string[] = [
    '// GENERATED FILE: do not edit by hand. Source: docs/openapi.json (the gateway’s OpenAPI document).',
    '// Regenerate with `npm run sdk:types` (or `npm run docs`); test/sdk/types.test.ts fails when this file is stale.',
    '',
    '// ---- Schemas (components.schemas) ----',
    '',
  ];
  for (const [name, schema] of Object.entries(document.components.schemas as Record<string, Schema>))
    out.push(...declaration(name, schema));

  const operations: string[] = [];
  for (const { path, method, op } of merchantOperations(document)) {
    const name = pascal(op.operationId);
    const parameters = ((op.parameters ?? []) as Json[]).filter((p) => !p.$ref);
    const entry: Record<string, string> = { method: JSON.stringify(method.toUpperCase()), path: JSON.stringify(path) };
    out.push(`// ---- ${op.operationId}: ${method.toUpperCase()} ${path} ----`, '');

    const pathParams = parameters.filter((p) => p.in === 'path');
    entry.pathParams = pathParams.length ? `{ ${pathParams.map((p) => `${key(p.name)}: string`).join('; ')} }` : 'Record<string, never>';

    const queryParams = parameters.filter((p) => p.in === 'query');
    if (queryParams.length) {
      out.push(...comment(`Query parameters of ${op.operationId}.`, ''), `export interface ${name}Query {`);
      for (const p of queryParams)
        out.push(...comment(p.description, '  '), `  ${key(p.name)}${p.required ? '' : '?'}: ${queryType(p.schema)};`);
      out.push('}', '');
      entry.query = `${name}Query`;
    } else entry.query = 'never';

    // The request body minus `signature`: the client signs every body itself.
    const body = op.requestBody?.content?.['application/json']?.schema as Schema | undefined;
    const { signature: _signature, ...fields } = (body?.properties ?? {}) as Record<string, Schema>;
    if (body && Object.keys(fields).length) {
      const params = { ...body, properties: fields, required: (body.required ?? []).filter((r: string) => r !== 'signature') };
      out.push(...declaration(`${name}Params`, params, `Body of ${op.operationId} (\`signature\` is added by the client).`));
      entry.params = `${name}Params`;
    } else entry.params = 'never';

    const success = Object.entries(op.responses as Json).find(([status]) => /^2\d\d$/.test(status));
    const responseSchema = success?.[1].content?.['application/json']?.schema as Schema | undefined;
    out.push(
      ...comment(`${success?.[0] ?? ''} answer of ${op.operationId}.`.trim(), ''),
      `export type ${name}Response = ${typeOf(responseSchema)};`,
      '',
    );
    entry.response = `${name}Response`;
    const errorStatuses = Object.keys(op.responses).filter((s) => /^[45]\d\d$/.test(s));
    entry.errorStatus = errorStatuses.join(' | ') || 'never';
    operations.push(
      ...comment(op.summary, '  '),
      `  ${key(op.operationId)}: {`,
      ...Object.entries(entry).map(([k, v]) => `    ${k}: ${v};`),
      '  };',
    );
  }
  out.push(
    '/** Every merchant API operation by operationId: method, path, parameters, body, answer, and the problem statuses it can answer. */',
  );
  out.push('export interface Operations {', ...operations, '}', '');
  out.push('/** Method and path of every merchant API operation (what the client calls). */');
  out.push('export const operations = {');
  for (const { path, method, op } of merchantOperations(document))
    out.push(`  ${key(op.operationId)}: { method: ${JSON.stringify(method.toUpperCase())}, path: ${JSON.stringify(path)} },`);
  out.push("} as const satisfies { [K in keyof Operations]: { method: Operations[K]['method']; path: Operations[K]['path'] } };", '');
  out.push('/** Names of the webhook event types (the document’s `webhooks` section). */');
  out.push(`export type WebhookEventType = ${union(Object.keys(document.webhooks ?? {}).map((k) => JSON.stringify(k))) || 'never'};`, '');
  return out.join('\n');
}

export const renderSdkTypesFile = (path = documentPath) => renderSdkTypes(JSON.parse(readFileSync(path, 'utf8')));

function isMain(): boolean {
  try {
    return !!process.argv[1] && import.meta.url === pathToFileURL(realpathSync(process.argv[1])).href;
  } catch {
    return false;
  }
}

if (isMain()) {
  writeFileSync(typesPath, renderSdkTypesFile());
  console.log(`wrote ${typesPath}`);
}
