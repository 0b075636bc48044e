import type { RouteId } from '#functions/routes.ts';
import { dashboardSamples } from './dashboard-samples.ts';
import { seedCall } from './requests.ts';
import * as seed from './seeds.ts';

/**
 * Representative VALID requests, one per route of functions/routes.ts (the typecheck refuses a
 * route without one), for the round-trip and latency measurements of `npm run bench`: signed where
 * the route is signed, with a fresh Idempotency-Key on a merchant's POST, on the objects it needs
 * (seeded by bench/seeds.ts). A route whose sample is missing or does not answer as expected is
 * reported as not measured and the bench exits 1. The dashboard's rows: bench/dashboard-samples.ts.
 *
 * A sample is an object, or a function called before EVERY request (warm-up, counted request and
 * each latency iteration) for requests that must differ each time (fresh order ids, ...). Only the
 * HTTP request itself is measured: DynamoDB calls made while building a sample are not counted.
 */
export interface SampleMerchant {
  merchantId: string;
  currency: string;
  test: { keyId: string; apiKey: string; secretKey: string };
  live: { keyId: string; apiKey: string; secretKey: string };
}

export interface SampleContext {
  merchant: SampleMerchant;
  /** The local API the bench measures (seeding helpers call it too). */
  baseUrl: string;
  /** 0 = warm-up, 1 = the counted request, then the (untimed, then timed) latency requests; unique per request. */
  iteration: number;
}

export interface RequestSample {
  /** Key mode to call with (default `test`). */
  mode?: 'test' | 'live';
  /** The merchant whose keys call (default: the bench's merchant). */
  merchant?: SampleMerchant;
  /** A merchant's POST carries a fresh Idempotency-Key unless this is false. */
  idempotencyKey?: boolean;
  /** Path parameters other than `version` (which is always `1`). */
  pathParameters?: Record<string, string>;
  query?: Record<string, string>;
  /** JSON body WITHOUT `signature`: the bench signs it with the key's secret on signature routes. */
  body?: Record<string, unknown>;
  /** A form-urlencoded body instead (the hosted checkout page's and the dashboard's forms), posted same-origin. */
  form?: Record<string, string | string[]>;
  /** A body sent as it is (a provider's signed callback); set its Content-Type in `headers`. */
  raw?: string;
  headers?: Record<string, string>;
  /** Expected status (default: any 2xx). */
  expectStatus?: number;
  /** Text the answer must contain too (a page that answers 200 whether its action worked or not). */
  expectText?: string;
  /** Shown in the report, e.g. what makes this request representative. */
  note?: string;
}

export type Sample = RequestSample | ((ctx: SampleContext) => RequestSample | Promise<RequestSample>);

export const samples = {
  // The common call: no body, no Idempotency-Key, the merchant's default currency.
  queryBalance: { idempotencyKey: false, note: 'no Idempotency-Key, default currency' },
  settlementSchedule: {},
  // A bank settlement of 1.00 PKR; the wallet is funded before each request (not counted).
  createSettlement: async ({ merchant }) => {
    await seed.fund(merchant, 1_00);
    return { body: seed.settlementBody, note: 'bank transfer, no conversion: one transaction (settlement, hold journal, wallet)' };
  },
  getSettlement: async (ctx) => ({ pathParameters: { id: await seed.settlement(ctx) }, note: 'one GetItem' }),
  listSettlements: async (ctx) => {
    await seed.settlement(ctx);
    return { query: { Page: '1', PageSize: '20' }, note: 'GSI1 page query + COUNT query in parallel' };
  },
  // A 10.00 refund of a large Completed payment, created once (not counted).
  createRefund: async ({ merchant }) => ({
    body: { trxnRef: (await seed.largePayment(merchant)).orderRef, amount: 10, reason: 'Bench refund' },
    expectStatus: 201,
    note: 'transaction lookup + one transaction (refund, reservation)',
  }),
  getRefund: async (ctx) => ({ pathParameters: { id: await seed.refund(ctx) }, note: 'one GetItem' }),
  listRefunds: async (ctx) => {
    await seed.refund(ctx);
    return { query: { trxnRef: (await seed.largePayment(ctx.merchant)).orderRef }, note: 'transaction lookup + GSI1 query' };
  },
  // A fresh orderRef each time: one transaction.
  initiateCheckout: ({ iteration }) => ({
    body: {
      amount: 1500,
      description: 'Bench checkout',
      orderRef: { orderRef: `BENCHCHK${Date.now()}${iteration}` },
      customerRef: { name: 'Bench Customer' },
    },
    note: 'no callbackUrl',
  }),
  // The hosted checkout: a fresh Pending session each time (created before the request, not counted).
  checkoutPage: async (ctx) => ({
    pathParameters: { paymentIntentId: await seed.checkout(ctx) },
    note: 'a Pending session: intent + merchant reads, HTML',
  }),
  checkoutCard: async (ctx) =>
    customerForm(
      await seed.checkout(ctx),
      seed.sandboxCard,
      'sandbox card 4242: the Completed transaction (intent, event, journal, wallet)',
    ),
  // A live card payment (the emulated JazzCash, started for this sample) whose customer passed the
  // 3-D Secure challenge (played before the request, not counted): the issuer's page posts the signed
  // return cross-site; the gateway verifies it, confirms with the provider and completes the payment.
  checkoutCardReturn: async (ctx) => {
    const { paymentIntentId, fields } = await seed.cardChallengePassed(ctx);
    return {
      mode: 'live',
      pathParameters: { paymentIntentId },
      form: fields,
      headers: { 'Sec-Fetch-Site': 'cross-site' },
      expectStatus: 303,
      note: 'live card, challenge passed (emulated JazzCash): verify, confirm, Completed',
    };
  },
  checkoutWallet: async (ctx) =>
    customerForm(
      await seed.checkout(ctx),
      { provider: '1', mobileNumber: '03001230000' },
      'sandbox wallet: the charge started, OTP sent (provider call + intent update)',
    ),
  // The wallet step done before the request (not counted): the OTP confirms the charge.
  checkoutOtp: async (ctx) => {
    const id = await seed.checkout(ctx);
    const csrf = await seed.checkoutCsrf(id);
    await seedCall(ctx, 'checkoutWallet', {
      pathParameters: { paymentIntentId: id },
      form: { csrf, provider: '1', mobileNumber: '03001230000' },
      expectStatus: 303,
    });
    const { sandboxOtp } = await import('#shared/providers/wallet-sandbox.ts');
    return customerForm(id, { otp: sandboxOtp }, 'sandbox OTP: the charge confirmed, awaiting approval on the phone');
  },
  checkoutCancel: async (ctx) => customerForm(await seed.checkout(ctx), {}, 'a Pending session cancelled (one transaction, event)'),
  // Payment links: created, read and switched through the API; the customer's page, form and QR code.
  createPaymentLink: {
    body: { amount: 15, description: 'Bench link', collect: ['email'] },
    expectStatus: 201,
    note: 'fixed price: one Put with the Idempotency-Key record',
  },
  listPaymentLinks: async (ctx) => {
    await seed.link(ctx);
    return { note: 'GSI page query' };
  },
  getPaymentLink: async (ctx) => ({ pathParameters: { id: await seed.link(ctx) } }),
  deactivatePaymentLink: async (ctx) => ({ pathParameters: { id: await seed.freshLink(ctx) }, note: 'a fresh active link each time' }),
  reactivatePaymentLink: async (ctx) => ({
    pathParameters: { id: await seed.freshLink(ctx, false) },
    note: 'a fresh deactivated link each time',
  }),
  paymentLinkPage: async (ctx) => ({ pathParameters: { linkId: await seed.link(ctx) }, note: 'link + merchant reads, HTML' }),
  paymentLinkPay: async (ctx) => {
    const linkId = await seed.link(ctx);
    const { formToken } = await import('#shared/crypto/form-token.ts');
    const { csrfSubject } = await import('#functions/links/common.ts');
    return {
      pathParameters: { linkId },
      form: { csrf: await formToken(csrfSubject({ linkId })) },
      expectStatus: 303,
      note: "the customer continues: the link's use and a checkout session in one transaction",
    };
  },
  paymentLinkQr: async (ctx) => ({ pathParameters: { linkId: await seed.link(ctx) }, note: 'the QR code (SVG)' }),
  listTransactions: {},
  transactionByRef: async ({ merchant }) => ({ pathParameters: { reference: (await seed.largePayment(merchant)).orderRef } }),
  transactionByRefAlias: async ({ merchant }) => ({ pathParameters: { reference: (await seed.largePayment(merchant)).orderRef } }),
  listBalanceTransactions: {},
  statementCsv: { pathParameters: { period: seed.lastMonth() }, query: { currency: 'PKR' }, note: 'last month, closed' },
  statementPdf: { pathParameters: { period: seed.lastMonth() }, query: { currency: 'PKR' }, note: 'last month, closed' },
  // The webhook events of a payment seeded once (not counted): lookup, then events and deliveries in parallel.
  transactionEvents: async ({ merchant }) => ({
    pathParameters: { reference: (await seed.largePayment(merchant)).orderRef },
    note: 'orderRef lookup + 2 queries in parallel',
  }),
  eventAttempts: async (ctx) => ({ pathParameters: { eventId: await seed.event(ctx) }, note: "a paid checkout's event" }),
  listEvents: async (ctx) => {
    await seed.event(ctx);
    return {};
  },
  // A fresh event each time (10 resends per event an hour), on a fresh merchant every 250 requests (300 an hour per merchant).
  resendEvent: async (ctx) => {
    const merchant = await seed.quotaMerchant('resend', ctx.iteration);
    return {
      merchant,
      pathParameters: { eventId: await seed.freshEvent(seed.as(ctx, merchant)) },
      expectStatus: 202,
      note: "a fresh paid checkout's event each time (resend quotas)",
    };
  },
  // A fresh orderRef each time; the sandbox number approves later (the async part is not measured).
  deposit: ({ iteration }) => ({
    body: {
      mobileNumber: '03001230000',
      amount: 1000,
      walletProvider: 1,
      description: 'Bench deposit',
      orderRef: { orderRef: `BENCHDEP${Date.now()}${iteration}` },
    },
    note: 'sandbox provider call + one transaction',
  }),
  // The sandbox provider's signed notification that a fresh deposit's charge was approved (the
  // deposit made before the request, not counted): verified, the inquiry asked, the deposit completed.
  walletProviderCallback: async (ctx) => {
    const reference = await seed.pendingDeposit(ctx);
    const raw = JSON.stringify({ reference, status: 'Approved' });
    const { signSandboxCallback } = await import('#shared/providers/wallet-sandbox.ts');
    return {
      pathParameters: { provider: 'jazzcash' },
      raw,
      headers: { 'Content-Type': 'application/json', 'X-Provider-Signature': await signSandboxCallback(1, raw) },
      note: 'a signed sandbox callback: inquiry + one transaction (deposit completed)',
    };
  },
  // Auto-processed payout to a sandbox 0000 account: hold + sandbox bank submit + result write.
  // The wallet is funded before each request (not counted); a fresh orderRef each time.
  withdraw: async ({ merchant }) => {
    await seed.fund(merchant, 313_00);
    return {
      body: seed.payoutBody(true),
      note: 'autoProcessPayout, sandbox account 0000: one create transaction, wallet read, one result write',
    };
  },
  openApiDocument: {},
  docsPage: {},
  docsFile: { pathParameters: { name: 'site.css' } },
  ...dashboardSamples,
} satisfies Record<RouteId, Sample>;

/** A customer's form post on the hosted checkout page of a session (its form token, same-origin): 303 back to the page. */
async function customerForm(paymentIntentId: string, fields: Record<string, string>, note: string): Promise<RequestSample> {
  return {
    pathParameters: { paymentIntentId },
    form: { csrf: await seed.checkoutCsrf(paymentIntentId), ...fields },
    expectStatus: 303,
    note,
  };
}
