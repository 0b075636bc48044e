/**
 * THE route table. One row per endpoint: method, path, handler file, what it may touch and what
 * the request pipeline demands. The CDK stack (one Lambda per row, least-privilege grants), the
 * local server (scripts/local/server.ts), the API docs (docs/api.md) and the OpenAPI document
 * (shared/openapi/, served and written to docs/openapi.json by `npm run docs`) all read this
 * table. It imports no handler code, so infra can load it cheaply.
 */
export type Scope = 'payments' | 'payouts' | 'settlements' | 'refunds' | 'balance' | 'read' | 'webhooks';
export const allScopes: readonly Scope[] = ['payments', 'payouts', 'settlements', 'refunds', 'balance', 'read', 'webhooks'];
/** Keys issued before `webhooks` existed with every scope of their day count as holding it too. */
const scopesBeforeWebhooks: readonly Scope[] = ['payments', 'payouts', 'settlements', 'refunds', 'balance', 'read'];
export const keyHasScope = (scopes: readonly Scope[], scope: Scope): boolean =>
  scopes.includes(scope) || (scope === 'webhooks' && scopesBeforeWebhooks.every((s) => scopes.includes(s)));

export type HttpMethod = 'GET' | 'POST';

export interface Route {
  /** Stable id: the Lambda's logical name and the key handlers import their row by. */
  readonly id: string;
  readonly method: HttpMethod;
  /** API Gateway style template; `{version}` is validated by the pipeline. */
  readonly path: string;
  /** Handler module, relative to the repository root; it exports `handler`. */
  readonly handler: string;
  /** `apiKey`: Svc-API-Key required; `none`: public (hosted checkout page). */
  readonly auth: 'apiKey' | 'none';
  /** Scope the key must carry. */
  readonly scope?: Scope;
  /** The body carries the MD5 `signature` field of CONTRACT §2. */
  readonly signature: boolean;
  /** What the function may do: grants in AWS. */
  readonly permissions: { readonly table: 'read' | 'readWrite' };
  readonly summary: string;
  /** The OpenAPI operation (shared/openapi/document.ts builds docs/openapi.json from it). */
  readonly doc: RouteDoc;
  /** Files the handler reads at run time, `source:name`: copied next to the Lambda bundle as `name`. */
  readonly assets?: readonly string[];
}

/**
 * What the OpenAPI document says about a route beyond its request schemas (which come from the
 * handler's own zod schemas). The statuses the pipeline itself answers (401/403 for keys, 400 for
 * schemas, 413/415 for POST bodies, 409/422 for Idempotency-Key, 404 for unknown versions, 429,
 * 500) are added by the generator; `problems` lists the ones this route's own logic adds.
 */
export interface RouteDoc {
  readonly tag: 'Payments' | 'Payouts' | 'Transactions' | 'Refunds' | 'Settlements' | 'Account' | 'Webhooks' | 'Hosted checkout' | 'Providers' | 'Reference';
  /** Success status and the name of its body schema in shared/openapi/responses.ts (`html` for pages, `static` for HTML, CSS and JS files). */
  readonly success: { readonly status: 200 | 201 | 202; readonly schema: string };
  readonly problems?: readonly (400 | 401 | 403 | 404 | 409 | 410 | 422)[];
  /** A realistic request: path and query parameters, body without `signature` (added when signed). */
  readonly example?: {
    readonly path?: Readonly<Record<string, string>>;
    readonly query?: Readonly<Record<string, string>>;
    readonly body?: Readonly<Record<string, unknown>>;
  };
}

export const routes = {
  queryBalance: {
    id: 'queryBalance',
    method: 'POST',
    path: '/Gateway/v{version}/Account/query-balance',
    handler: 'functions/account/query-balance.ts',
    auth: 'apiKey',
    scope: 'balance',
    signature: false,
    permissions: { table: 'readWrite' }, // readWrite: Idempotency-Key records on this POST
    summary: 'Wallet balance for the key’s mode, in the merchant’s currency (or ?currency=).',
    doc: { tag: 'Account', success: { status: 200, schema: 'Balance' }, problems: [422], example: { query: { currency: 'PKR' } } },
  },
  settlementSchedule: {
    id: 'settlementSchedule',
    method: 'GET',
    path: '/Gateway/v{version}/Settlements/schedule',
    handler: 'functions/settlements/schedule.ts',
    auth: 'apiKey',
    scope: 'read',
    signature: false,
    permissions: { table: 'read' },
    summary: 'The merchant’s automatic settlement schedule (also a cheap authentication check).',
    doc: { tag: 'Settlements', success: { status: 200, schema: 'SettlementSchedule' } },
  },
  createSettlement: {
    id: 'createSettlement',
    method: 'POST',
    path: '/Gateway/v{version}/Settlements',
    handler: 'functions/settlements/create.ts',
    auth: 'apiKey',
    scope: 'settlements',
    signature: true,
    permissions: { table: 'readWrite' },
    summary: 'Settle wallet funds to a bank account or a USDT address (TRC20/ERC20); the amount is held until Completed, Failed or Cancelled.',
    doc: { tag: 'Settlements', success: { status: 200, schema: 'Settlement' }, problems: [422], example: { body: { amount: 5000, currency: 'PKR', bankName: 'Meezan Bank', iban: 'PK36SCBL0000001123456702', accountTitle: 'Acme Traders' } } },
  },
  // The literal /Settlements/schedule above wins over /Settlements/{id} (local server and API Gateway).
  getSettlement: {
    id: 'getSettlement',
    method: 'GET',
    path: '/Gateway/v{version}/Settlements/{id}',
    handler: 'functions/settlements/get.ts',
    auth: 'apiKey',
    scope: 'read',
    signature: false,
    permissions: { table: 'read' },
    summary: 'One settlement by id (404 for another merchant’s or mode’s, 400 for a non-uuid).',
    doc: { tag: 'Settlements', success: { status: 200, schema: 'Settlement' }, problems: [404], example: { path: { id: '3f2b8c1e-9a4d-4f6b-8c2a-1d5e7f9a0b3c' } } },
  },
  listSettlements: {
    id: 'listSettlements',
    method: 'GET',
    path: '/Gateway/v{version}/Settlements',
    handler: 'functions/settlements/list.ts',
    auth: 'apiKey',
    scope: 'read',
    signature: false,
    permissions: { table: 'read' },
    summary: 'The merchant’s settlements, newest first: MerchantId, Status, From, To, Page, PageSize (1-100); page envelope of CONTRACT §7.',
    doc: { tag: 'Settlements', success: { status: 200, schema: 'SettlementPage' }, example: { query: { Status: '3', From: '2025-01-01', PageSize: '20' } } },
  },
  createRefund: {
    id: 'createRefund',
    method: 'POST',
    path: '/Gateway/v{version}/Refunds',
    handler: 'functions/refunds/create.ts',
    auth: 'apiKey',
    scope: 'refunds',
    signature: true,
    permissions: { table: 'readWrite' },
    summary: 'Refund all (amount omitted) or part of a Completed checkout or deposit; 201, Pending until the operator approves.',
    doc: { tag: 'Refunds', success: { status: 201, schema: 'Refund' }, problems: [404, 422], example: { body: { trxnRef: 'ORDER1001', amount: 500, reason: 'Customer returned one item' } } },
  },
  getRefund: {
    id: 'getRefund',
    method: 'GET',
    path: '/Gateway/v{version}/Refunds/{id}',
    handler: 'functions/refunds/get.ts',
    auth: 'apiKey',
    scope: 'read',
    signature: false,
    permissions: { table: 'read' },
    summary: 'One refund by id (404 for another merchant’s or mode’s, 400 for a non-uuid).',
    doc: { tag: 'Refunds', success: { status: 200, schema: 'Refund' }, problems: [404], example: { path: { id: '3f2b8c1e-9a4d-4f6b-8c2a-1d5e7f9a0b3c' } } },
  },
  listRefunds: {
    id: 'listRefunds',
    method: 'GET',
    path: '/Gateway/v{version}/Refunds',
    handler: 'functions/refunds/list.ts',
    auth: 'apiKey',
    scope: 'read',
    signature: false,
    permissions: { table: 'read' },
    summary: 'The refunds of one transaction (?trxnRef=), newest first, with its refundedAmount and refundableAmount.',
    doc: { tag: 'Refunds', success: { status: 200, schema: 'RefundPage' }, problems: [404], example: { query: { trxnRef: 'ORDER1001' } } },
  },
  initiateCheckout: {
    id: 'initiateCheckout',
    method: 'POST',
    path: '/Gateway/v{version}/Payment/initiate-checkout',
    handler: 'functions/payment/initiate-checkout.ts',
    auth: 'apiKey',
    scope: 'payments',
    signature: true,
    permissions: { table: 'readWrite' },
    summary: 'Creates a hosted checkout session (30 minutes): paymentIntentId, checkoutUrl, expiresAt.',
    doc: { tag: 'Payments', success: { status: 200, schema: 'CheckoutCreated' }, problems: [422], example: { body: { amount: 1500, currency: 'PKR', description: 'Order 1001', orderRef: { orderRef: 'ORDER1001' }, customerRef: { name: 'Ayesha Khan', email: 'ayesha@example.com' }, callbackUrl: 'https://merchant.example.com/orders/1001' } } },
  },
  // The hosted checkout page (CONTRACT §8): public HTML, form posts with an anti-CSRF token, 303 redirects.
  checkoutPage: {
    id: 'checkoutPage',
    method: 'GET',
    path: '/pay/{paymentIntentId}',
    handler: 'functions/pay/page.ts',
    auth: 'none',
    signature: false,
    permissions: { table: 'readWrite' }, // an overdue session is moved to Expired when opened
    summary: 'Hosted checkout page (HTML): card and wallet forms, the wallet approval wait, the result or expired page, or a 303 to callbackUrl.',
    doc: { tag: 'Hosted checkout', success: { status: 200, schema: 'html' }, problems: [404, 410], example: { path: { paymentIntentId: '3f2b8c1e-9a4d-4f6b-8c2a-1d5e7f9a0b3c' } } },
  },
  checkoutCard: {
    id: 'checkoutCard',
    method: 'POST',
    path: '/pay/{paymentIntentId}/card',
    handler: 'functions/pay/card.ts',
    auth: 'none',
    signature: false,
    permissions: { table: 'readWrite' },
    summary: 'Hosted checkout: pay by card (form post; only brand, last four and expiry are kept).',
    doc: { tag: 'Hosted checkout', success: { status: 200, schema: 'html' }, problems: [400, 403, 404, 409, 410], example: { path: { paymentIntentId: '3f2b8c1e-9a4d-4f6b-8c2a-1d5e7f9a0b3c' } } },
  },
  checkoutWallet: {
    id: 'checkoutWallet',
    method: 'POST',
    path: '/pay/{paymentIntentId}/wallet',
    handler: 'functions/pay/wallet.ts',
    auth: 'none',
    signature: false,
    permissions: { table: 'readWrite' },
    summary: 'Hosted checkout: pay with a mobile wallet, step 1 (provider and number; the OTP is sent).',
    doc: { tag: 'Hosted checkout', success: { status: 200, schema: 'html' }, problems: [400, 403, 404, 409, 410], example: { path: { paymentIntentId: '3f2b8c1e-9a4d-4f6b-8c2a-1d5e7f9a0b3c' } } },
  },
  checkoutOtp: {
    id: 'checkoutOtp',
    method: 'POST',
    path: '/pay/{paymentIntentId}/otp',
    handler: 'functions/pay/otp.ts',
    auth: 'none',
    signature: false,
    permissions: { table: 'readWrite' },
    summary: 'Hosted checkout: pay with a mobile wallet, step 2 (the OTP; then the customer approves on the phone).',
    doc: { tag: 'Hosted checkout', success: { status: 200, schema: 'html' }, problems: [400, 403, 404, 409, 410], example: { path: { paymentIntentId: '3f2b8c1e-9a4d-4f6b-8c2a-1d5e7f9a0b3c' } } },
  },
  checkoutCancel: {
    id: 'checkoutCancel',
    method: 'POST',
    path: '/pay/{paymentIntentId}/cancel',
    handler: 'functions/pay/cancel.ts',
    auth: 'none',
    signature: false,
    permissions: { table: 'readWrite' },
    summary: 'Hosted checkout: the customer cancels (Cancelled).',
    doc: { tag: 'Hosted checkout', success: { status: 200, schema: 'html' }, problems: [400, 403, 404, 409, 410], example: { path: { paymentIntentId: '3f2b8c1e-9a4d-4f6b-8c2a-1d5e7f9a0b3c' } } },
  },
  listTransactions: {
    id: 'listTransactions',
    method: 'GET',
    path: '/Gateway/v{version}/Transactions',
    handler: 'functions/transactions/list.ts',
    auth: 'apiKey',
    scope: 'read',
    signature: false,
    permissions: { table: 'read' },
    summary: 'The merchant’s transactions in the key’s mode, newest first: status, intentType, from, to, orderRef, limit (1-100), startingAfter; { items, hasMore }.',
    doc: { tag: 'Transactions', success: { status: 200, schema: 'TransactionList' }, example: { query: { status: 'Completed', intentType: 'checkout', limit: '20' } } },
  },
  transactionByRef: {
    id: 'transactionByRef',
    method: 'GET',
    path: '/Gateway/v{version}/Transaction/by-ref/{reference}',
    handler: 'functions/transactions/by-ref.ts',
    auth: 'apiKey',
    scope: 'read',
    signature: false,
    permissions: { table: 'read' },
    summary: 'A transaction by orderRef, paymentIntentId or transactionReference (also the payout status inquiry).',
    doc: { tag: 'Transactions', success: { status: 200, schema: 'Transaction' }, problems: [404], example: { path: { reference: 'ORDER1001' } } },
  },
  transactionByRefAlias: {
    id: 'transactionByRefAlias',
    method: 'GET',
    path: '/Gateway/v{version}/Transaction/{reference}',
    handler: 'functions/transactions/by-ref-alias.ts',
    auth: 'apiKey',
    scope: 'read',
    signature: false,
    permissions: { table: 'read' },
    summary: 'Alias of Transaction/by-ref/{reference}.',
    doc: { tag: 'Transactions', success: { status: 200, schema: 'Transaction' }, problems: [404], example: { path: { reference: 'ORDER1001' } } },
  },
  transactionEvents: {
    id: 'transactionEvents',
    method: 'GET',
    path: '/Gateway/v{version}/Transaction/{reference}/events',
    handler: 'functions/webhooks/transaction-events.ts',
    auth: 'apiKey',
    scope: 'read',
    signature: false,
    permissions: { table: 'read' },
    summary: 'The webhook events of a transaction (by orderRef, paymentIntentId or transactionReference), oldest first, with their delivery state.',
    doc: { tag: 'Webhooks', success: { status: 200, schema: 'TransactionEvents' }, problems: [404], example: { path: { reference: 'ORDER1001' } } },
  },
  eventAttempts: {
    id: 'eventAttempts',
    method: 'GET',
    path: '/Gateway/v{version}/Events/{eventId}/attempts',
    handler: 'functions/webhooks/event-attempts.ts',
    auth: 'apiKey',
    scope: 'read',
    signature: false,
    permissions: { table: 'read' },
    summary: 'The delivery log of one webhook event: every attempt with its time, status code, duration and error.',
    doc: { tag: 'Webhooks', success: { status: 200, schema: 'EventAttempts' }, problems: [404], example: { path: { eventId: 'evt_5b1f0c2a9d3e4f6a8b7c1d2e3f4a5b6c' } } },
  },
  resendEvent: {
    id: 'resendEvent',
    method: 'POST',
    path: '/Gateway/v{version}/Events/{eventId}/resend',
    handler: 'functions/webhooks/resend.ts',
    auth: 'apiKey',
    scope: 'webhooks',
    signature: false, // no body needed; a body that carries `signature` is checked (CONTRACT §2)
    permissions: { table: 'readWrite' },
    summary: 'Queues a new delivery of a webhook event (same event id, full retry schedule); 202 with the resend id.',
    doc: { tag: 'Webhooks', success: { status: 202, schema: 'ResendQueued' }, problems: [400, 401, 404], example: { path: { eventId: 'evt_5b1f0c2a9d3e4f6a8b7c1d2e3f4a5b6c' } } },
  },
  deposit: {
    id: 'deposit',
    method: 'POST',
    path: '/Gateway/v{version}/Payment/deposit',
    handler: 'functions/payment/deposit.ts',
    auth: 'apiKey',
    scope: 'payments',
    signature: true,
    permissions: { table: 'readWrite' },
    summary: 'Start a mobile-wallet charge (deposit); Pending until the customer approves on the handset.',
    doc: { tag: 'Payments', success: { status: 200, schema: 'DepositCreated' }, problems: [422], example: { body: { mobileNumber: '03001234567', amount: 1500, walletProvider: 1, currency: 'PKR', description: 'Order 1002', orderRef: { orderRef: 'ORDER1002' } } } },
  },
  walletProviderCallback: {
    id: 'walletProviderCallback',
    method: 'POST',
    path: '/providers/wallet/{provider}/callback',
    handler: 'functions/providers/wallet-callback.ts',
    auth: 'none',
    signature: false,
    permissions: { table: 'readWrite' },
    summary: 'A wallet provider’s signed charge notification (provider-facing, not for merchants).',
    doc: { tag: 'Providers', success: { status: 200, schema: 'ProviderCallbackResult' }, problems: [401, 404, 409], example: { path: { provider: 'jazzcash' } } },
  },
  withdraw: {
    id: 'withdraw',
    method: 'POST',
    path: '/Gateway/v{version}/Payment/withdraw',
    handler: 'functions/payment/withdraw.ts',
    auth: 'apiKey',
    scope: 'payouts',
    signature: true,
    permissions: { table: 'readWrite' },
    summary: 'Create a withdrawal (payout) to a bank or wallet account: amount + fee held at once; sent to the bank now (autoProcessPayout) or after operator approval.',
    doc: { tag: 'Payouts', success: { status: 200, schema: 'Withdrawal' }, problems: [422], example: { body: { amount: 2500, currency: 'PKR', description: 'Supplier payout 77', orderRef: { orderRef: 'PAYOUT77' }, customerRef: { bankAccountNumber: 'PK36SCBL0000001123456702', bankCode: 'SCBL', accountTitle: 'Bilal Ahmed' }, autoProcessPayout: true } } },
  },
  // The machine-readable contract (shared/openapi/document.ts; docs/openapi.json is the same file).
  openApiDocument: {
    id: 'openApiDocument',
    method: 'GET',
    path: '/Gateway/v{version}/openapi.json',
    handler: 'functions/reference/openapi.ts',
    auth: 'none',
    signature: false,
    permissions: { table: 'read' }, // never touches the table; public routes get the public item-level grant
    summary: 'This API as an OpenAPI 3.1 document (no key needed); the same file as docs/openapi.json.',
    doc: { tag: 'Reference', success: { status: 200, schema: 'OpenApiDocument' } },
  },
  // The developer site: the API reference (self-hosted Scalar) and the guides (functions/reference/).
  docsPage: {
    id: 'docsPage',
    method: 'GET',
    path: '/docs',
    handler: 'functions/reference/docs.ts',
    auth: 'none',
    signature: false,
    permissions: { table: 'read' }, // never touches the table; public routes get the public item-level grant
    summary: 'The API reference page (HTML): Scalar, self-hosted, rendering /Gateway/v1/openapi.json; links to the guides.',
    doc: { tag: 'Reference', success: { status: 200, schema: 'html' } },
  },
  docsFile: {
    id: 'docsFile',
    method: 'GET',
    path: '/docs/{name}',
    handler: 'functions/reference/docs-file.ts',
    auth: 'none',
    signature: false,
    permissions: { table: 'read' },
    summary: 'A guide (quick-start, signing, webhooks, sandbox, errors) or a file of the reference page (scalar.js, site.js, site.css).',
    doc: { tag: 'Reference', success: { status: 200, schema: 'static' }, problems: [404], example: { path: { name: 'quick-start' } } },
    assets: ['node_modules/@scalar/api-reference/dist/browser/standalone.js:scalar-standalone.js'],
  },
} as const satisfies Record<string, Route>;

export type RouteId = keyof typeof routes;
export const routeList: readonly Route[] = Object.values(routes);

/** Supported API versions: `/Gateway/v1/...`. Anything else is a 404 problem. */
export const supportedVersions = ['1'] as const;
