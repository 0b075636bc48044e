import { existsSync, readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { jobList } from '#functions/jobs.ts';
import { lambdaGroups, routeList } from '#functions/routes.ts';
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

describe('figures quoted in the docs', () => {
  const own = routeList.filter((r) => !('lambda' in r) || !r.lambda).length;
  const groups = Object.keys(lambdaGroups).length;
  /** Each sentence that quotes a figure, with the figure the route and jobs tables give. */
  const figures: { what: string; pattern: RegExp; values: number[] }[] = [
    { what: 'routes', pattern: /[Oo]f (?:its|the) (\d+) routes/g, values: [routeList.length] },
    { what: 'routes with their own Lambda', pattern: /the (\d+) API, hosted-page and docs routes/g, values: [own] },
    {
      what: 'dashboard rows and their functions',
      pattern: /dashboard's (\d+) rows share (\d+)/g,
      values: [routeList.length - own, groups],
    },
    { what: 'jobs', pattern: /(\d+) jobs/g, values: [jobList.length] },
    { what: 'functions', pattern: /(\d+) functions/g, values: [own + groups + jobList.length] },
  ];
  it.each(['README.md', 'docs/architecture.md'])('%s quotes the route table and the jobs table as they are', (file) => {
    const text = readFileSync(resolve(repoRoot, file), 'utf8').replace(/\s+/g, ' ');
    for (const { what, pattern, values } of figures) {
      const quoted = [...text.matchAll(pattern)].map((m) => m.slice(1).map(Number));
      expect(quoted.length, `${file} quotes no figure of ${what}`).toBeGreaterThan(0);
      for (const q of quoted) expect(q, `${file}: ${what}`).toEqual(values);
    }
  });
});
