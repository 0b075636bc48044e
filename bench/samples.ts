import type { RouteId } from '#functions/routes.ts';

/**
 * Representative VALID requests per route, for the round-trip and latency measurements of
 * `npm run bench`. A route without an entry gets a generic request (version `1`, no body, or a
 * signed `{}` on signature routes); if that does not answer 2xx, or the path has parameters other
 * than `{version}`, the route is reported as "no sample". Add an entry when you add a route.
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
  /** 0 = warm-up, 1 = the counted request, then the (untimed, then timed) latency requests; unique per request. */
  iteration: number;
}

export interface RequestSample {
  /** Key mode to call with (default `test`). */
  mode?: 'test' | 'live';
  /** Path parameters other than `version` (which is always `1`). */
  pathParameters?: Record<string, string>;
  query?: Record<string, string>;
  /** JSON body WITHOUT `signature`: the bench signs it with the key's secret on signature routes. */
  body?: Record<string, unknown>;
  /** A form-urlencoded body instead (the hosted checkout page's forms), posted same-origin. */
  form?: Record<string, string>;
  headers?: Record<string, string>;
  /** Expected status (default: any 2xx). */
  expectStatus?: number;
  /** Shown in the report, e.g. what makes this request representative. */
  note?: string;
}

export type Sample = RequestSample | ((ctx: SampleContext) => RequestSample | Promise<RequestSample>);

export const samples: Partial<Record<RouteId, Sample>> = {
  // The common call: no body, no Idempotency-Key, the merchant's default currency.
  queryBalance: { note: 'no Idempotency-Key, default currency' },
  settlementSchedule: {},
  // The webhook events of a payment seeded once (not counted): lookup, then events and deliveries in parallel.
  transactionEvents: async ({ merchant }) => ({
    pathParameters: { reference: await benchPayment(merchant) },
    note: 'orderRef lookup + 2 queries in parallel',
  }),
  // A fresh orderRef each time (no Idempotency-Key): one transaction.
  initiateCheckout: ({ iteration }) => ({
    body: {
      amount: 1500,
      description: 'Bench checkout',
      orderRef: { orderRef: `BENCHCHK${Date.now()}${iteration}` },
      customerRef: { name: 'Bench Customer' },
    },
    note: 'no Idempotency-Key, no callbackUrl',
  }),
  // A fresh Pending session each time (created before the request, not counted).
  checkoutPage: async ({ merchant, iteration }) => ({
    pathParameters: { paymentIntentId: await benchCheckout(merchant, `BENCHPAGE${Date.now()}${iteration}`) },
    note: 'a Pending session: intent + merchant reads, HTML',
  }),
  checkoutCard: async ({ merchant, iteration }) => {
    const paymentIntentId = await benchCheckout(merchant, `BENCHCARD${Date.now()}${iteration}`);
    const { formToken } = await import('#shared/crypto/form-token.ts');
    return {
      pathParameters: { paymentIntentId },
      form: {
        csrf: await formToken(`checkout:${paymentIntentId}`),
        name: 'Bench Customer',
        number: '4242424242424242',
        expiry: '12/39',
        cvc: '123',
      },
      expectStatus: 303,
      note: 'sandbox card 4242: the Completed transaction (intent, event, journal, wallet)',
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
  // Auto-processed payout to a sandbox 0000 account: hold + sandbox bank submit + result write.
  // The wallet is funded before each request (not counted); a fresh orderRef each time.
  withdraw: async ({ merchant, iteration }) => {
    const { creditTestWallet } = await import('#shared/services/merchants.ts');
    await creditTestWallet(merchant.merchantId, 'test', 313_00, 'PKR');
    return {
      body: {
        amount: 300,
        currency: 'PKR',
        description: 'Bench payout',
        autoProcessPayout: true,
        customerRef: { bankAccountNumber: 'PK36SCBL0000001123450000', bankCode: 'MEEZAN', accountTitle: 'Bench Customer' },
        orderRef: { orderRef: `BENCHWD${Date.now()}${iteration}` },
      },
      note: 'autoProcessPayout, sandbox account 0000: one create transaction, wallet read, one result write',
    };
  },
  // A bank settlement of 1.00 PKR; the wallet is funded before each request (not counted).
  createSettlement: async ({ merchant }) => {
    const { creditTestWallet } = await import('#shared/services/merchants.ts');
    await creditTestWallet(merchant.merchantId, 'test', 1_00, 'PKR');
    return {
      body: { amount: 1, currency: 'PKR', bankName: 'HBL', iban: 'PK36SCBL0000001123456702', accountTitle: 'Bench Ltd' },
      note: 'bank transfer, no conversion: one transaction (settlement, hold journal, wallet)',
    };
  },
  getSettlement: async ({ merchant }) => ({ pathParameters: { id: await benchSettlement(merchant) }, note: 'one GetItem' }),
  listSettlements: async ({ merchant }) => {
    await benchSettlement(merchant);
    return { query: { Page: '1', PageSize: '20' }, note: 'GSI1 page query + COUNT query in parallel' };
  },
  // A 10.00 refund of a large Completed payment, created once (not counted).
  createRefund: async ({ merchant }) => ({
    body: { trxnRef: await benchPayment(merchant), amount: 10, reason: 'Bench refund' },
    expectStatus: 201,
    note: 'transaction lookup + one transaction (refund, reservation)',
  }),
  getRefund: async ({ merchant }) => ({ pathParameters: { id: await benchRefund(merchant) }, note: 'one GetItem' }),
  listRefunds: async ({ merchant }) => {
    const trxnRef = await benchPayment(merchant);
    await benchRefund(merchant);
    return { query: { trxnRef }, note: 'transaction lookup + GSI1 query' };
  },
};

/** One Pending settlement per bench run, funded and written through the service. */
let settlementId: Promise<string> | undefined;
function benchSettlement(merchant: SampleMerchant): Promise<string> {
  settlementId ??= (async () => {
    const { creditTestWallet } = await import('#shared/services/merchants.ts');
    const { createSettlement } = await import('#shared/services/settlement-requests.ts');
    const { defaultFees } = await import('#shared/domain/merchant.ts');
    await creditTestWallet(merchant.merchantId, 'test', 10_00, 'PKR');
    const { commitRequest } = await import('#shared/store/request.ts');
    const view = await commitRequest((place) =>
      createSettlement(
        { merchantId: merchant.merchantId, mode: 'test', fee: defaultFees.settlement, traceId: 'bench' },
        {
          amountMinor: 10_00,
          currency: 'PKR',
          payoutCurrency: 'PKR',
          destination: { type: 'bank', bankName: 'HBL', iban: 'PK36SCBL0000001123456702', accountTitle: 'Bench Ltd' },
        },
        place,
      ),
    );
    return view.id;
  })();
  return settlementId;
}

/** One large Completed checkout per bench run (its orderRef), for the refund samples. */
let paymentRef: Promise<string> | undefined;
function benchPayment(merchant: SampleMerchant): Promise<string> {
  paymentRef ??= (async () => {
    const { transact } = await import('#shared/store/client.ts');
    const { createIntentWrites } = await import('#shared/store/intents.ts');
    const at = new Date().toISOString();
    const orderRef = `BENCHRFD${Date.now()}`;
    await transact(
      createIntentWrites({
        paymentIntentId: crypto.randomUUID(),
        merchantId: merchant.merchantId,
        mode: 'test',
        intentType: 'checkout',
        status: 'Completed',
        amountMinor: 100_000_000,
        currency: 'PKR',
        feeMinor: 0,
        refundedMinor: 0,
        orderRef: { orderRef },
        customerRef: null,
        description: 'Bench payment',
        metadataJson: null,
        callbackUrl: null,
        transactionReference: `TRXBENCH${Date.now()}`,
        reason: null,
        traceId: 'bench',
        createdAt: at,
        updatedAt: at,
        expiresAt: null,
        version: 1,
        details: {},
      }),
    );
    return orderRef;
  })();
  return paymentRef;
}

let refundId: Promise<string> | undefined;
function benchRefund(merchant: SampleMerchant): Promise<string> {
  refundId ??= (async () => {
    const { createRefund } = await import('#shared/services/refund-requests.ts');
    const { defaultFees } = await import('#shared/domain/merchant.ts');
    const { commitRequest } = await import('#shared/store/request.ts');
    const trxnRef = await benchPayment(merchant);
    const caller = { merchantId: merchant.merchantId, mode: 'test' as const, fee: defaultFees.refund, traceId: 'bench' };
    const view = await commitRequest(() => createRefund(caller, { trxnRef, amount: 10 }));
    return view.id;
  })();
  return refundId;
}

/** A Pending hosted checkout session written straight to the store, for the page samples. */
async function benchCheckout(merchant: SampleMerchant, orderRef: string): Promise<string> {
  const { newCheckout, saveCheckout } = await import('#shared/services/checkout.ts');
  const { defaultFees } = await import('#shared/domain/merchant.ts');
  const intent = newCheckout({
    merchantId: merchant.merchantId,
    mode: 'test',
    amountMinor: 1500_00,
    currency: 'PKR',
    description: 'Bench checkout',
    orderRef: { orderRef },
    customerRef: null,
    callbackUrl: null,
    paymentMethod: null,
    metadataJson: null,
    feeRate: defaultFees.checkout,
    traceId: 'bench',
  });
  const { commitRequest } = await import('#shared/store/request.ts');
  await commitRequest(async () => saveCheckout(intent));
  return intent.paymentIntentId;
}
