/**
 * Route definitions (functions/routes.ts, the one route table, lists them with their docs):
 * The machine-readable contract and the developer site.
 * A handler imports its own row from here, so its bundle holds that row only (no other route, no
 * summary, docs or examples: functions/route-docs.ts).
 */
import type { RouteDefinition } from '#shared/http/route.ts';

// The machine-readable contract (shared/openapi/document.ts; docs/openapi.json is the same file).
export const openApiDocument = {
  id: 'openApiDocument',
  method: 'GET',
  path: '/Gateway/v{version}/openapi.json',
  handler: 'functions/reference/openapi.ts',
  auth: 'none',
  signature: false,
  permissions: { table: 'none', secrets: [] }, // never touches the table nor any secret
  assets: ['docs/openapi.json:openapi.json'], // read at the first request, not bundled (functions/reference/openapi.ts)
} as const satisfies RouteDefinition;

// The developer site: the API reference (self-hosted Scalar) and the guides (functions/reference/).
export const docsPage = {
  id: 'docsPage',
  method: 'GET',
  path: '/docs',
  handler: 'functions/reference/docs.ts',
  auth: 'none',
  signature: false,
  permissions: { table: 'none', secrets: [] }, // serves the reference page; no table, no secret
} as const satisfies RouteDefinition;

export const docsFile = {
  id: 'docsFile',
  method: 'GET',
  path: '/docs/{name}',
  handler: 'functions/reference/docs-file.ts',
  auth: 'none',
  signature: false,
  permissions: { table: 'none', secrets: [] },
  assets: ['node_modules/@scalar/api-reference/dist/browser/standalone.js:scalar-standalone.js'],
} as const satisfies RouteDefinition;
