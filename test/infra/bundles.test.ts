import { resolve } from 'node:path';
import { build } from 'esbuild';
import { describe, expect, it } from 'vitest';
import { esbuildOptionsFor, repoRoot } from '#infra/bundling.ts';
import { bundleAll, lambdaEntries } from '../../bench/bundles.ts';
import { bundleBudgetExceptions, medianBundleBudget, targets } from '../../bench/targets.ts';

/**
 * Bundle size is deterministic: every Lambda is built here with the stack's esbuild options
 * (infra/bundling.ts) and held to its budget (bench/targets.ts), so no change can silently grow a
 * function again (issue 26: median 455 kB, largest 747 kB when nothing checked it). `npm run bench`
 * reports the sizes with their biggest inputs and the module load times. All Lambdas are built in one
 * esbuild run (bench/bundles.ts bundleAll), each output the bundle of its entry built alone.
 */
describe('Lambda bundle budgets', async () => {
  const entries = lambdaEntries();
  const bundles = await bundleAll(entries);
  const sizes = new Map([...bundles].map(([id, bundle]) => [id, bundle.contents.byteLength]));
  const handlerBundle = (handler: string) => bundles.get(entries.find((e) => e.handler === handler)!.id)!;

  it('builds every Lambda the stack creates', () => {
    expect(entries.map((e) => e.id)).toEqual(
      expect.arrayContaining(['queryBalance', 'dashboardPayments', 'dashboardSignIn', 'webhookDispatcher']),
    );
    expect(sizes.size).toBe(entries.length);
  });

  it('builds each Lambda in the shared run exactly as it is built alone (the bundle the stack ships)', async () => {
    // One of them: a dashboard area's generated module with a live rail (all 56 matched when bundleAll was written).
    const entry = entries.find((e) => e.id === 'dashboardPayouts')!;
    const alone = await build({ ...esbuildOptionsFor(resolve(repoRoot, entry.handler)), write: false, metafile: true, logLevel: 'silent' });
    expect(Buffer.from(bundles.get(entry.id)!.contents).equals(Buffer.from(alone.outputFiles[0]!.contents))).toBe(true);
    expect([...bundles.get(entry.id)!.inputs].sort()).toEqual(Object.keys(alone.metafile.inputs).sort());
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

  it("bundles the wallet's hold placement (withFunds) only where a request holds funds (shared/store/request.ts, Funds)", () => {
    const placement = 'Too many concurrent changes to this balance; nothing was held.';
    for (const id of ['initiateCheckout', 'deposit', 'createPaymentLink', 'createRefund'])
      expect(bundles.get(id)!.text, id).not.toContain(placement);
    for (const id of ['withdraw', 'createSettlement', 'dashboardPayouts']) expect(bundles.get(id)!.text, id).toContain(placement);
  });

  it('bundles no X-Ray SDK and no docs: a handler carries its own route row only', () => {
    const inputs = [...handlerBundle('functions/account/query-balance.ts').inputs];
    expect(inputs.filter((i) => /aws-xray-sdk|powertools\/tracer|functions\/routes\.ts|route-docs/.test(i))).toEqual([]);
    expect(inputs).toContain('functions/routes/account.ts');
  });

  it('loads the Node built-ins only some calls need when they are first used, not when the Lambda loads', () => {
    // A built-in costs its module load in every cold start even when no request uses it (issue 26): node:dgram
    // (the X-Ray daemon's socket: only in Lambda, at the first traced call), node:zlib (a PDF's pages) and
    // node:dns/promises (a callbackUrl's host) are taken with process.getBuiltinModule where they are used.
    const deferred = ['node:dgram', 'node:zlib', 'node:dns/promises'];
    for (const handler of ['functions/account/query-balance.ts', 'functions/statements/pdf.ts', 'functions/payment/deposit.ts']) {
      const builtins = handlerBundle(handler).staticImports;
      expect(builtins, handler).toContain('node:crypto');
      expect(
        builtins.filter((b) => deferred.includes(b)),
        handler,
      ).toEqual([]);
    }
  });

  it('bundles only the schemas and writes a handler uses (top-level calls are pure)', () => {
    const text = (handler: string) => handlerBundle(handler).text;
    // esbuild does not carry zod's no-side-effects marks across files: a shared schema built at the top level of
    // shared/http/schemas.ts stayed in every Lambda that imports the module (customerRef, callbackUrl, …).
    const listing = text('functions/settlements/list.ts');
    expect(listing).not.toContain('must be a valid e-mail address');
    expect(listing).not.toContain('must be an absolute URL');
    // Reading settlements writes no status change: the event builder stays out.
    expect(listing).not.toContain('SettlementStatusChanged');
    expect(text('functions/refunds/get.ts')).not.toContain('RefundStatusChanged');
    // A handler that uses them still has them.
    expect(text('functions/payment/deposit.ts')).toContain('must be a valid e-mail address');
  });

  it("keeps out of a Lambda another product's stylesheet, lists and checks (module boundaries and pure top levels)", () => {
    const text = (id: string) => bundles.get(id)!.text;
    // The hosted pages' stylesheet (shared/http/pages.ts) only where a hosted page is drawn; the dashboard has its own.
    expect(text('checkoutPage')).toContain('header.merchant{');
    expect(text('dashboardBalance')).not.toContain('header.merchant{');
    // The signing recipe of the API's signature problems only in the API functions.
    expect(text('deposit')).toContain('sk_live_ secret issued');
    expect(text('dashboardPayments')).not.toContain('sk_live_ secret issued');
    expect(text('checkoutWallet')).not.toContain('sk_live_ secret issued');
    // The bank list only where a bank is named or chosen (the payouts page's form, withdraw).
    expect(text('dashboardPayouts')).toContain('Habib Bank Limited');
    expect(text('dashboardPayments')).not.toContain('Habib Bank Limited');
    // A dashboard payout has no callbackUrl: its Lambda bundles no URL check; the API's withdraw does.
    expect(text('withdraw')).toContain('callback_url_refused');
    expect(text('dashboardPayouts')).not.toContain('callback_url_refused');
  });
});
