import { readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { parseSync } from 'oxc-parser';
import { describe, expect, it } from 'vitest';

/**
 * Imports run one way (docs/architecture.md, Layers): functions → services → webhooks →
 * store / providers → domain. A module may import its own layer and any layer below, never one
 * above. oxc's parser reads the files (static imports, re-exports and literal dynamic imports), so
 * type-only imports count too.
 */
const root = resolve(import.meta.dirname, '../..');
const rank: Record<string, number> = {
  functions: 6,
  'shared/http': 5,
  // Describes the HTTP layer (its schemas and problems); the route table reaches it as an argument.
  'shared/openapi': 5,
  'shared/services': 4,
  'shared/webhooks': 3,
  'shared/store': 2,
  'shared/providers': 2,
  'shared/domain': 1,
  'shared/crypto': 1,
  // Leaves every layer may use: logging, metrics, fault points, the retry helper, AWS credentials, the SDK's verifier.
  'shared/logger.ts': 0,
  'shared/metrics.ts': 0,
  'shared/faults.ts': 0,
  'shared/retry.ts': 0,
  'shared/aws': 0,
  'sdk/node/src': 0,
};
/**
 * The HTTP layer reaches the store through services, except these imports (from → to: why).
 * Everything else a handler's pipeline needs from a table goes through shared/services.
 */
const httpStoreImports: Record<string, string> = {
  'shared/http/route.ts -> shared/store/keys.ts':
    'a route row names the key families its Lambda may touch (PartitionFamily, a type) so infra can grant just those',
  'shared/http/presenter.ts -> shared/store/client.ts': 'a lost transaction race (TransactionFailed) is answered 409 concurrent_update',
  'shared/http/idempotency.ts -> shared/store/client.ts': 'IdempotencyKeyTaken: a twin committed the same key first',
  'shared/http/idempotency.ts -> shared/store/idempotency.ts':
    'the Idempotency-Key record is an HTTP contract (replay, 409, 422) kept by the one idempotency module',
  'shared/http/idempotency.ts -> shared/store/request.ts':
    "commit(): a service's writes plus the Idempotency-Key record in one transaction",
  'shared/http/middlewares.ts -> shared/store/client.ts': 'problemDetails leaves IdempotencyKeyTaken to the idempotency middleware',
  'shared/http/middlewares.ts -> shared/store/idempotency.ts': "the pipeline state carries the request's IdempotencyScope (a type)",
  'shared/http/middlewares.ts -> shared/store/merchants.ts': 'API-key authentication: the key item by hash, its last-used time',
};
/** Only the store speaks DynamoDB. */
const storeOnly = ['@aws-sdk/client-dynamodb', '@aws-sdk/util-dynamodb', '@aws-sdk/lib-dynamodb'];
/** Sandbox constants (OTPs, delays) belong to the sandbox providers and the hosted page's hints. */
const sandboxModules = ['shared/domain/sandbox.ts', 'shared/providers/wallet-sandbox.ts'];
const sandboxUsers = ['shared/providers', 'functions/pay', 'shared/domain/sandbox.ts'];

const layerOf = (file: string) =>
  Object.keys(rank)
    .filter((prefix) => file === prefix || file.startsWith(`${prefix}/`))
    .sort((a, b) => b.length - a.length)[0];

function sourceFiles(dir: string, out: string[] = []): string[] {
  for (const name of readdirSync(join(root, dir))) {
    const path = join(dir, name);
    if (statSync(join(root, path)).isDirectory()) sourceFiles(path, out);
    else if (name.endsWith('.ts')) out.push(path);
  }
  return out;
}

/** Every module a file names: imports, `export … from` and `import('literal')`. */
function importsOf(file: string): string[] {
  const source = readFileSync(join(root, file), 'utf8');
  const { module, errors } = parseSync(file, source);
  if (errors.length) throw new Error(`${file}: ${errors[0]?.message}`);
  const named = [
    ...module.staticImports.map((i) => i.moduleRequest.value),
    ...module.staticExports.flatMap((e) => e.entries.flatMap((x) => (x.moduleRequest ? [x.moduleRequest.value] : []))),
  ];
  const dynamic = module.dynamicImports
    .map((d) => source.slice(d.moduleRequest.start, d.moduleRequest.end))
    .flatMap((text) => (/^(['"`])[^'"`$]*\1$/.test(text) ? [text.slice(1, -1)] : []));
  return [...new Set([...named, ...dynamic])];
}

interface Edge {
  from: string;
  to: string;
}
function edges(): Edge[] {
  const out: Edge[] = [];
  for (const file of [...sourceFiles('functions'), ...sourceFiles('shared'), ...sourceFiles('sdk/node/src')]) {
    for (const fileName of importsOf(file)) {
      const to = fileName.startsWith('#')
        ? fileName.slice(1)
        : fileName.startsWith('.')
          ? relative(root, resolve(root, dirname(file), fileName))
          : fileName;
      out.push({ from: file, to });
    }
  }
  return out;
}

describe('layers', () => {
  const all = edges();

  it('reads the imports of every module (the scanner itself works)', () => {
    expect(all.length).toBeGreaterThan(300);
    expect(all).toContainEqual({ from: 'shared/http/pipeline.ts', to: 'shared/http/middlewares.ts' });
  });

  it('no module imports a layer above its own', () => {
    const upward = all
      .filter(({ from, to }) => {
        const a = layerOf(from);
        const b = layerOf(to);
        return a !== undefined && b !== undefined && rank[b]! > rank[a]!;
      })
      .map(({ from, to }) => `${from} -> ${to}`);
    expect(upward).toEqual([]);
  });

  it('handlers reach the store only through services', () => {
    const reaching = all
      .filter(({ from, to }) => from.startsWith('functions/') && to.startsWith('shared/store/'))
      .map(({ from, to }) => `${from} -> ${to}`);
    expect(reaching).toEqual([]);
  });

  it('the HTTP layer reaches the store only through services (or a listed exception with its reason)', () => {
    const reaching = all
      .filter(({ from, to }) => from.startsWith('shared/http/') && to.startsWith('shared/store/'))
      .map(({ from, to }) => `${from} -> ${to}`);
    expect(reaching.filter((edge) => !(edge in httpStoreImports))).toEqual([]);
    // A listed exception that no longer exists is taken off the list.
    expect(Object.keys(httpStoreImports).filter((edge) => !reaching.includes(edge))).toEqual([]);
  });

  it('only the store imports the DynamoDB SDK', () => {
    const outside = all
      .filter(({ from, to }) => storeOnly.includes(to) && !from.startsWith('shared/store/'))
      .map(({ from, to }) => `${from} -> ${to}`);
    expect(outside).toEqual([]);
  });

  it('only the sandbox providers and the hosted page use sandbox constants', () => {
    const leaks = all
      .filter(({ from, to }) => sandboxModules.includes(to) && !sandboxUsers.some((p) => from === p || from.startsWith(`${p}/`)))
      .map(({ from, to }) => `${from} -> ${to}`);
    expect(leaks).toEqual([]);
  });

  it('the SDK imports nothing of the gateway', () => {
    const reaching = all
      .filter(({ from, to }) => from.startsWith('sdk/') && !to.startsWith('sdk/') && !to.startsWith('node:'))
      .map(({ from, to }) => `${from} -> ${to}`);
    expect(reaching).toEqual([]);
  });

  it('no import cycles between modules', () => {
    const graph = new Map<string, string[]>();
    for (const { from, to } of all) if (to.endsWith('.ts')) graph.set(from, [...(graph.get(from) ?? []), to]);
    const cycles: string[] = [];
    const state = new Map<string, 'open' | 'done'>();
    const visit = (node: string, path: string[]) => {
      if (state.get(node) === 'done') return;
      if (state.get(node) === 'open') {
        cycles.push([...path.slice(path.indexOf(node)), node].join(' -> '));
        return;
      }
      state.set(node, 'open');
      for (const next of graph.get(node) ?? []) visit(next, [...path, node]);
      state.set(node, 'done');
    };
    for (const node of graph.keys()) visit(node, []);
    expect(cycles).toEqual([]);
  });
});

describe('one copy of a rule', () => {
  it("asks the domain whether a merchant's money may move (merchantMaySubmit): no module compares its status itself", () => {
    const gate = /(merchant\w*|Merchant\w*\([^()]*\)\))\??\.status\s*[!=]==\s*'active'/i;
    const copies = [...sourceFiles('functions'), ...sourceFiles('shared')]
      .filter((file) => file !== 'shared/domain/merchant.ts')
      .flatMap((file) =>
        readFileSync(join(root, file), 'utf8')
          .split('\n')
          .flatMap((line, i) => (gate.test(line) ? [`${file}:${i + 1}`] : [])),
      );
    expect(gate.test("return (await getMerchantCached(merchantId))?.status === 'active';")).toBe(true);
    expect(copies).toEqual([]);
  });
});
