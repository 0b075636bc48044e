import { existsSync, readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { routeList } from '#functions/routes.ts';
import { apiDocsPath, renderApiDocs, repoRoot } from '../scripts/docs.ts';

describe('docs/api.md', () => {
  it('is up to date with functions/routes.ts (run `npm run docs` after changing routes)', () => {
    expect(existsSync(apiDocsPath), 'docs/api.md is missing: run `npm run docs`').toBe(true);
    expect(readFileSync(apiDocsPath, 'utf8'), 'docs/api.md is stale: run `npm run docs`').toBe(renderApiDocs());
  });

  it('renders deterministically', () => {
    expect(renderApiDocs()).toBe(renderApiDocs());
  });

  it.each(routeList.map((r) => [r.id, r] as const))('lists %s with its method, path and handler', (_id, route) => {
    const doc = renderApiDocs();
    const line = doc.split('\n').find((l) => l.startsWith(`| \`${route.id}\` |`));
    expect(line, `${route.id} has no row`).toBeDefined();
    expect(line).toContain(`| ${route.method} |`);
    expect(line).toContain(`\`${route.path}\``);
    expect(line).toContain(`\`${route.handler}\``);
  });

  it.each(routeList.map((r) => [r.id, r.handler] as const))('%s: handler file %s exists', (_id, handler) => {
    expect(existsSync(resolve(repoRoot, handler))).toBe(true);
  });

  it('has unique route ids and method + path pairs', () => {
    expect(new Set(routeList.map((r) => r.id)).size).toBe(routeList.length);
    expect(new Set(routeList.map((r) => `${r.method} ${r.path}`)).size).toBe(routeList.length);
  });
});
