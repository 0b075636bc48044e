import { existsSync, readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { jobList } from '#functions/jobs.ts';
import { guides } from '#functions/reference/guides.ts';
import { lambdaGroups, routeList } from '#functions/routes.ts';
import { descriptionRule, orderRefRule } from '#shared/domain/references.ts';
import { accessPatternsPath, apiDocsPath, renderAccessPatterns, renderApiDocs, repoRoot } from '../scripts/docs.ts';
import { allEntities } from '#shared/store/entities.ts';

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

describe('docs/access-patterns.md', () => {
  it('lists the items as shared/store/entities.ts declares them (run `npm run docs` after changing a declaration)', () => {
    const doc = readFileSync(accessPatternsPath, 'utf8');
    expect(doc, 'docs/access-patterns.md is stale: run `npm run docs`').toBe(renderAccessPatterns(doc));
    for (const e of allEntities) expect(doc, e.tag).toContain(`| ${e.tag} | \`${e.pk.replace(/\{(\w+)\}/g, '<$1>').split('{')[0]}`);
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

describe('the field formats a shop trips over, stated before the first failure', () => {
  const openapi = JSON.parse(readFileSync(resolve(repoRoot, 'docs/openapi.json'), 'utf8'));
  const body = (path: string) => openapi.paths[path].post.requestBody.content['application/json'].schema.properties;

  it('the Quick start states the description and orderRef rules, with an example of each mistake', () => {
    const html = guides['quick-start']!.html;
    const formats = html.slice(html.indexOf('id="field-formats"'), html.indexOf('<h2>3.'));
    expect(formats).toContain(descriptionRule.text);
    expect(formats).toContain(orderRefRule.text);
    expect(formats).toContain('not <code>Blue shirt, size M.</code>');
    expect(formats).toContain('not\n<code>ORDER-1001</code>');
    // Before the first request the guide has the merchant send.
    expect(html.indexOf('id="field-formats"')).toBeLessThan(html.indexOf('curl -X POST'));
  });

  it.each(['/Gateway/v1/Payment/initiate-checkout', '/Gateway/v1/Payment/deposit', '/Gateway/v1/Payment/withdraw'])(
    'the reference of %s describes them in words beside the pattern',
    (path) => {
      const properties = body(path);
      expect(properties.orderRef.properties.orderRef.description).toContain(orderRefRule.text);
      if (properties.description) expect(properties.description.description).toContain(descriptionRule.text);
    },
  );
});
