import { describe, expect, it } from 'vitest';
import { bundleBytes, lambdaEntries } from '../../bench/bundles.ts';
import { bundleBudgetExceptions, medianBundleBudget, targets } from '../../bench/targets.ts';

/**
 * Bundle size is deterministic: every Lambda is built here with the stack's esbuild options
 * (infra/bundling.ts) and held to its budget (bench/targets.ts), so no change can silently grow a
 * function again (issue 26: median 455 kB, largest 747 kB when nothing checked it). `npm run bench`
 * reports the sizes with their biggest inputs and the module load times.
 */
describe('Lambda bundle budgets', async () => {
  const entries = lambdaEntries();
  const sizes = new Map(await Promise.all(entries.map(async ({ id, handler }) => [id, await bundleBytes(handler)] as const)));

  it('builds every Lambda the stack creates', () => {
    expect(entries.map((e) => e.id)).toEqual(
      expect.arrayContaining(['queryBalance', 'dashboardPayments', 'dashboardSignIn', 'webhookDispatcher']),
    );
    expect(sizes.size).toBe(entries.length);
  });

  it.each(entries.map((e) => e.id))('%s stays within its budget', (id) => {
    const budget = bundleBudgetExceptions[id] ?? targets.bundleBytes;
    expect(sizes.get(id)!, `${id}: ${sizes.get(id)} bytes, budget ${budget}`).toBeLessThanOrEqual(budget);
  });

  it('lists as exceptions only Lambdas that need one (an entry over the target for a Lambda now under it goes)', () => {
    const needless = Object.keys(bundleBudgetExceptions).filter((id) => !sizes.has(id) || sizes.get(id)! <= targets.bundleBytes);
    expect(needless).toEqual([]);
  });

  it('keeps the median within its budget', () => {
    const sorted = [...sizes.values()].sort((a, b) => a - b);
    expect(sorted[Math.floor(sorted.length / 2)]!).toBeLessThanOrEqual(medianBundleBudget);
  });

  it('bundles no X-Ray SDK and no docs: a handler carries its own route row only', async () => {
    const { build } = await import('esbuild');
    const { esbuildOptionsFor, repoRoot } = await import('#infra/bundling.ts');
    const { resolve } = await import('node:path');
    const result = await build({
      ...esbuildOptionsFor(resolve(repoRoot, 'functions/account/query-balance.ts')),
      write: false,
      metafile: true,
      logLevel: 'silent',
    });
    const inputs = Object.keys(result.metafile.inputs);
    expect(inputs.filter((i) => /aws-xray-sdk|powertools\/tracer|functions\/routes\.ts|route-docs/.test(i))).toEqual([]);
    expect(inputs).toContain('functions/routes/account.ts');
  });

  it('loads the Node built-ins only some calls need when they are first used, not when the Lambda loads', async () => {
    const { build } = await import('esbuild');
    const { esbuildOptionsFor, repoRoot } = await import('#infra/bundling.ts');
    const { resolve } = await import('node:path');
    // A built-in costs its module load in every cold start even when no request uses it (issue 26): node:dgram
    // (the X-Ray daemon's socket: only in Lambda, at the first traced call), node:zlib (a PDF's pages) and
    // node:dns/promises (a callbackUrl's host) are taken with process.getBuiltinModule where they are used.
    const staticBuiltins = async (handler: string) => {
      const result = await build({
        ...esbuildOptionsFor(resolve(repoRoot, handler)),
        write: false,
        metafile: true,
        logLevel: 'silent',
      });
      return Object.values(result.metafile.outputs).flatMap((o) =>
        o.imports.filter((i) => i.external && i.kind === 'import-statement').map((i) => i.path),
      );
    };
    const deferred = ['node:dgram', 'node:zlib', 'node:dns/promises'];
    for (const handler of ['functions/account/query-balance.ts', 'functions/statements/pdf.ts', 'functions/payment/deposit.ts']) {
      const builtins = await staticBuiltins(handler);
      expect(builtins, handler).toContain('node:crypto');
      expect(
        builtins.filter((b) => deferred.includes(b)),
        handler,
      ).toEqual([]);
    }
  });

  it('bundles only the schemas and writes a handler uses (top-level calls are pure)', async () => {
    const { build } = await import('esbuild');
    const { esbuildOptionsFor, repoRoot } = await import('#infra/bundling.ts');
    const { resolve } = await import('node:path');
    const text = async (handler: string) =>
      (await build({ ...esbuildOptionsFor(resolve(repoRoot, handler)), write: false, logLevel: 'silent' })).outputFiles[0]!.text;
    // esbuild does not carry zod's no-side-effects marks across files: a shared schema built at the top level of
    // shared/http/schemas.ts stayed in every Lambda that imports the module (customerRef, callbackUrl, …).
    const listing = await text('functions/settlements/list.ts');
    expect(listing).not.toContain('must be a valid e-mail address');
    expect(listing).not.toContain('must be an absolute URL');
    // Reading settlements writes no status change: the event builder stays out.
    expect(listing).not.toContain('SettlementStatusChanged');
    expect(await text('functions/refunds/get.ts')).not.toContain('RefundStatusChanged');
    // A handler that uses them still has them.
    expect(await text('functions/payment/deposit.ts')).toContain('must be a valid e-mail address');
  });
});
