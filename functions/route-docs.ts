import type { RouteDoc } from '#shared/http/route.ts';

/**
 * What the API reference says about each row of the route table (functions/routes.ts): its summary
 * and its OpenAPI operation (tag, success schema, problems, a realistic example), by route id (the
 * table's type demands one per row; it refuses an entry for no row). Only the table,
 * and through it the docs and the OpenAPI document, import this module: no handler bundles it.
 */
export const routeDocs = {
  queryBalance: {
    summary: 'Wallet balance for the key’s mode, in the merchant’s currency (or ?currency=).',
    doc: { tag: 'Account', success: { status: 200, schema: 'Balance' }, problems: [422], example: { query: { currency: 'PKR' } } },
  },
  settlementSchedule: {
    summary: 'The merchant’s automatic settlement schedule (also a cheap authentication check).',
    doc: { tag: 'Settlements', success: { status: 200, schema: 'SettlementSchedule' } },
  },
  createSettlement: {
    summary:
      'Settle wallet funds to a bank account or a USDT address (TRC20/ERC20); the amount is held until Completed, Failed or Cancelled.',
    doc: {
      tag: 'Settlements',
      success: { status: 200, schema: 'Settlement' },
      problems: [422],
      example: {
        body: { amount: 5000, currency: 'PKR', bankName: 'Meezan Bank', iban: 'PK36SCBL0000001123456702', accountTitle: 'Acme Traders' },
      },
    },
  },
  getSettlement: {
    summary: 'One settlement by id (404 for another merchant’s or mode’s, 400 for a non-uuid).',
    doc: {
      tag: 'Settlements',
      success: { status: 200, schema: 'Settlement' },
      problems: [404],
      example: { path: { id: '3f2b8c1e-9a4d-4f6b-8c2a-1d5e7f9a0b3c' } },
    },
  },
  listSettlements: {
    summary:
      'The merchant’s settlements, newest first: MerchantId, Status, From, To, Page, PageSize ' +
      '(1-100); page envelope of docs/merchant-guide.md, Listing transactions.',
    doc: {
      tag: 'Settlements',
      success: { status: 200, schema: 'SettlementPage' },
      example: { query: { Status: '3', From: '2025-01-01', PageSize: '20' } },
    },
  },
  createRefund: {
    summary:
      'Refund all (amount omitted) or part of a Completed checkout or deposit; 201, Pending until the operator approves ' +
      '(test mode: the sandbox approves it within seconds).',
    doc: {
      tag: 'Refunds',
      success: { status: 201, schema: 'Refund' },
      problems: [404, 422],
      example: { body: { trxnRef: 'ORDER1001', amount: 500, reason: 'Customer returned one item' } },
    },
  },
  getRefund: {
    summary: 'One refund by id (404 for another merchant’s or mode’s, 400 for a non-uuid).',
    doc: {
      tag: 'Refunds',
      success: { status: 200, schema: 'Refund' },
      problems: [404],
      example: { path: { id: '3f2b8c1e-9a4d-4f6b-8c2a-1d5e7f9a0b3c' } },
    },
  },
  listRefunds: {
    summary: 'The refunds of one transaction (?trxnRef=), newest first, with its refundedAmount and refundableAmount.',
    doc: { tag: 'Refunds', success: { status: 200, schema: 'RefundPage' }, problems: [404], example: { query: { trxnRef: 'ORDER1001' } } },
  },
  initiateCheckout: {
    summary: 'Creates a hosted checkout session (30 minutes): paymentIntentId, checkoutUrl, expiresAt.',
    doc: {
      tag: 'Payments',
      success: { status: 200, schema: 'CheckoutCreated' },
      problems: [422],
      example: {
        body: {
          amount: 1500,
          currency: 'PKR',
          description: 'Order 1001',
          orderRef: { orderRef: 'ORDER1001' },
          customerRef: { name: 'Ayesha Khan', email: 'ayesha@example.com' },
          callbackUrl: 'https://merchant.example.com/orders/1001',
        },
      },
    },
  },
  checkoutPage: {
    summary:
      'Hosted checkout page (HTML): card and wallet forms, the wallet approval wait, the result or expired page, or a 303 to callbackUrl.',
    doc: {
      tag: 'Hosted checkout',
      success: { status: 200, schema: 'html' },
      problems: [404, 410],
      example: { path: { paymentIntentId: '3f2b8c1e-9a4d-4f6b-8c2a-1d5e7f9a0b3c' } },
    },
  },
  checkoutCard: {
    summary: 'Hosted checkout: pay by card (form post; only brand, last four and expiry are kept).',
    doc: {
      tag: 'Hosted checkout',
      success: { status: 200, schema: 'html' },
      problems: [400, 403, 404, 409, 410],
      example: { path: { paymentIntentId: '3f2b8c1e-9a4d-4f6b-8c2a-1d5e7f9a0b3c' } },
    },
  },
  checkoutCardReturn: {
    summary:
      'Hosted checkout, live cards: the card provider sends the customer back from the 3-D Secure challenge ' +
      '(form post, verified against this session’s challenge; then authorised and captured).',
    doc: {
      tag: 'Hosted checkout',
      success: { status: 200, schema: 'html' },
      problems: [400, 404, 409, 410],
      example: { path: { paymentIntentId: '3f2b8c1e-9a4d-4f6b-8c2a-1d5e7f9a0b3c' } },
    },
  },
  checkoutWallet: {
    summary: 'Hosted checkout: pay with a mobile wallet, step 1 (provider and number; the OTP is sent).',
    doc: {
      tag: 'Hosted checkout',
      success: { status: 200, schema: 'html' },
      problems: [400, 403, 404, 409, 410],
      example: { path: { paymentIntentId: '3f2b8c1e-9a4d-4f6b-8c2a-1d5e7f9a0b3c' } },
    },
  },
  checkoutOtp: {
    summary: 'Hosted checkout: pay with a mobile wallet, step 2 (the OTP; then the customer approves on the phone).',
    doc: {
      tag: 'Hosted checkout',
      success: { status: 200, schema: 'html' },
      problems: [400, 403, 404, 409, 410],
      example: { path: { paymentIntentId: '3f2b8c1e-9a4d-4f6b-8c2a-1d5e7f9a0b3c' } },
    },
  },
  checkoutCancel: {
    summary: 'Hosted checkout: the customer cancels (Cancelled).',
    doc: {
      tag: 'Hosted checkout',
      success: { status: 200, schema: 'html' },
      problems: [400, 403, 404, 409, 410],
      example: { path: { paymentIntentId: '3f2b8c1e-9a4d-4f6b-8c2a-1d5e7f9a0b3c' } },
    },
  },
  createPaymentLink: {
    summary:
      'Creates a payment link: a fixed amount (with an optional quantity) or an amount the customer enters within ' +
      'minAmount and maxAmount; optional payment limit, expiry, customer fields and return URL. 201, the link with its short URL.',
    doc: {
      tag: 'Payments',
      success: { status: 201, schema: 'PaymentLink' },
      problems: [422],
      example: {
        body: { amount: 1500, currency: 'PKR', description: 'Blue shirt', maxQuantity: 5, maxPayments: 100, collect: ['name', 'phone'] },
      },
    },
  },
  listPaymentLinks: {
    summary: 'The merchant’s payment links in the key’s mode, newest first: limit (1-100), startingAfter; { items, hasMore }.',
    doc: { tag: 'Payments', success: { status: 200, schema: 'PaymentLinkList' }, example: { query: { limit: '20' } } },
  },
  getPaymentLink: {
    summary: 'One payment link with its payment count, total paid, payments under way and remaining uses.',
    doc: {
      tag: 'Payments',
      success: { status: 200, schema: 'PaymentLink' },
      problems: [404],
      example: { path: { id: 'pl_5f1c2a9e7b3d4c6a8e0f1a2b' } },
    },
  },
  deactivatePaymentLink: {
    summary: 'Deactivates a payment link: its page takes no payment until it is reactivated (sessions already started may finish).',
    doc: {
      tag: 'Payments',
      success: { status: 200, schema: 'PaymentLink' },
      problems: [404],
      example: { ...{ path: { id: 'pl_5f1c2a9e7b3d4c6a8e0f1a2b' } }, body: {} },
    },
  },
  reactivatePaymentLink: {
    summary: 'Reactivates a deactivated payment link (an expired or used-up link stays unavailable).',
    doc: {
      tag: 'Payments',
      success: { status: 200, schema: 'PaymentLink' },
      problems: [404],
      example: { ...{ path: { id: 'pl_5f1c2a9e7b3d4c6a8e0f1a2b' } }, body: {} },
    },
  },
  paymentLinkPage: {
    summary:
      'A payment link’s page (HTML, never cached): amount, quantity and details, then on to the hosted checkout; 410 when unavailable.',
    doc: {
      tag: 'Hosted checkout',
      success: { status: 200, schema: 'html' },
      problems: [404, 410],
      example: { path: { linkId: 'pl_5f1c2a9e7b3d4c6a8e0f1a2b' } },
    },
  },
  paymentLinkPay: {
    summary: 'A payment link’s form post: creates the checkout session (checked again) and answers 303 to /pay/{paymentIntentId}.',
    doc: {
      tag: 'Hosted checkout',
      success: { status: 200, schema: 'html' },
      problems: [400, 403, 404, 410],
      example: { path: { linkId: 'pl_5f1c2a9e7b3d4c6a8e0f1a2b' } },
    },
  },
  paymentLinkQr: {
    summary: 'The QR code of a payment link’s short URL: ?format=svg (default) or png; cached a day.',
    doc: {
      tag: 'Hosted checkout',
      success: { status: 200, schema: 'image' },
      problems: [400, 404],
      example: { path: { linkId: 'pl_5f1c2a9e7b3d4c6a8e0f1a2b' }, query: { format: 'png' } },
    },
  },
  listTransactions: {
    summary:
      'The merchant’s transactions in the key’s mode, newest first: status, intentType, ' +
      'from, to, orderRef, limit (1-100), startingAfter; { items, hasMore }.',
    doc: {
      tag: 'Transactions',
      success: { status: 200, schema: 'TransactionList' },
      example: { query: { status: 'Completed', intentType: 'checkout', limit: '20' } },
    },
  },
  listBalanceTransactions: {
    summary:
      'The movements of the merchant’s wallet in the key’s mode (one per journal), newest first: type, sourceId, ' +
      'from, to, settlement (the movements a settlement covers), payout (a withdrawal’s own), limit (1-100), startingAfter; ' +
      'amount, fee, net, the available balance after each; { items, hasMore }.',
    doc: {
      tag: 'Transactions',
      success: { status: 200, schema: 'BalanceTransactionList' },
      problems: [404],
      example: { query: { type: 'payment', limit: '20' } },
    },
  },
  statementCsv: {
    summary:
      'A month’s balance statement in one currency (default: the merchant’s) as CSV: opening balance, every ' +
      'movement grouped by type with subtotals, fees, closing balance; header Statement-Digest (SHA-256 of the rows). ' +
      'The current month is given to date, up to the moment it is made (today’s movements included), header ' +
      'Statement-Status: provisional (final for a month ended over an hour ago). Refused (409 ledger_unbalanced) when opening ' +
      'plus movements do not equal closing; 422 statement_period_open for a month not begun; 503 balance_not_ready while its ' +
      'balances are being summarised.',
    doc: {
      tag: 'Transactions',
      success: { status: 200, schema: 'csv' },
      problems: [409, 422],
      example: { path: { period: '2026-10' }, query: { currency: 'PKR' } },
    },
  },
  statementPdf: {
    summary: 'The same statement as PDF (send Accept: application/pdf), the digest printed on every page; header Statement-Digest.',
    doc: {
      tag: 'Transactions',
      success: { status: 200, schema: 'pdf' },
      problems: [409, 422],
      example: { path: { period: '2026-10' }, query: { currency: 'PKR' } },
    },
  },
  transactionByRef: {
    summary: 'A transaction by orderRef, paymentIntentId or transactionReference (also the payout status inquiry).',
    doc: {
      tag: 'Transactions',
      success: { status: 200, schema: 'Transaction' },
      problems: [404],
      example: { path: { reference: 'ORDER1001' } },
    },
  },
  transactionByRefAlias: {
    summary: 'Alias of Transaction/by-ref/{reference}.',
    doc: {
      tag: 'Transactions',
      success: { status: 200, schema: 'Transaction' },
      problems: [404],
      example: { path: { reference: 'ORDER1001' } },
    },
  },
  transactionEvents: {
    summary:
      'The webhook events of a transaction (by orderRef, paymentIntentId or ' +
      'transactionReference), oldest first, with their delivery state.',
    doc: {
      tag: 'Webhooks',
      success: { status: 200, schema: 'TransactionEvents' },
      problems: [404],
      example: { path: { reference: 'ORDER1001' } },
    },
  },
  eventAttempts: {
    summary: 'The delivery log of one webhook event: every attempt with its time, status code, duration and error.',
    doc: {
      tag: 'Webhooks',
      success: { status: 200, schema: 'EventAttempts' },
      problems: [404],
      example: { path: { eventId: 'evt_5b1f0c2a9d3e4f6a8b7c1d2e3f4a5b6c' } },
    },
  },
  listEvents: {
    summary:
      'The merchant’s webhook events in the key’s mode (kept 30 days), newest first: type, ' +
      'since, until, deliveryState, limit (1-100), startingAfter; { items, hasMore }.',
    doc: {
      tag: 'Webhooks',
      success: { status: 200, schema: 'EventList' },
      example: { query: { type: 'RefundStatusChanged', deliveryState: 'delivered', limit: '20' } },
    },
  },
  resendEvent: {
    summary: 'Queues a new delivery of a webhook event (same event id, full retry schedule); 202 with the resend id.',
    doc: {
      tag: 'Webhooks',
      success: { status: 202, schema: 'ResendQueued' },
      problems: [400, 401, 404],
      example: { path: { eventId: 'evt_5b1f0c2a9d3e4f6a8b7c1d2e3f4a5b6c' } },
    },
  },
  deposit: {
    summary: 'Start a mobile-wallet charge (deposit); Pending until the customer approves on the handset.',
    doc: {
      tag: 'Payments',
      success: { status: 200, schema: 'DepositCreated' },
      problems: [422],
      example: {
        body: {
          mobileNumber: '03001234567',
          amount: 1500,
          walletProvider: 1,
          currency: 'PKR',
          description: 'Order 1002',
          orderRef: { orderRef: 'ORDER1002' },
        },
      },
    },
  },
  walletProviderCallback: {
    summary:
      'A wallet provider’s signed charge notification (provider-facing, not for merchants): a trigger; ' +
      'the provider’s status inquiry decides.',
    doc: {
      tag: 'Providers',
      success: { status: 200, schema: 'ProviderCallbackResult' },
      problems: [400, 401, 404, 409],
      example: { path: { provider: 'jazzcash' } },
    },
  },
  withdraw: {
    summary:
      'Create a withdrawal (payout) to a bank or wallet account: amount + fee held at once; ' +
      'sent to the bank now (autoProcessPayout) or after operator approval. ' +
      "Live payouts to JazzCash wallets need customerRef.cnic (the receiver's CNIC).",
    doc: {
      tag: 'Payouts',
      success: { status: 200, schema: 'Withdrawal' },
      problems: [422],
      example: {
        body: {
          amount: 2500,
          currency: 'PKR',
          description: 'Supplier payout 77',
          orderRef: { orderRef: 'PAYOUT77' },
          customerRef: { bankAccountNumber: 'PK36SCBL0000001123456702', bankCode: 'SCBL', accountTitle: 'Bilal Ahmed' },
          autoProcessPayout: true,
        },
      },
    },
  },
  openApiDocument: {
    summary: 'This API as an OpenAPI 3.1 document (no key needed); the same file as docs/openapi.json.',
    doc: { tag: 'Reference', success: { status: 200, schema: 'OpenApiDocument' } },
  },
  docsPage: {
    summary: 'The API reference page (HTML): Scalar, self-hosted, rendering /Gateway/v1/openapi.json; links to the guides.',
    doc: { tag: 'Reference', success: { status: 200, schema: 'html' } },
  },
  docsFile: {
    summary: 'A guide (quick-start, signing, webhooks, sandbox, errors) or a file of the reference page (scalar.js, site.js, site.css).',
    doc: { tag: 'Reference', success: { status: 200, schema: 'static' }, problems: [404], example: { path: { name: 'quick-start' } } },
  },
  dashboardInvitePage: {
    summary: 'Dashboard: an invitation link: the set-password form (HTML).',
    doc: { tag: 'Dashboard', success: { status: 200, schema: 'html' } },
  },
  dashboardAcceptInvite: {
    summary: 'Dashboard: set the password from an invitation (single use, 72 h); continues to 2FA enrolment.',
    doc: { tag: 'Dashboard', success: { status: 200, schema: 'html' } },
  },
  dashboardEnrolPage: {
    summary: 'Dashboard: 2FA enrolment: the TOTP secret as text, otpauth:// URI and QR code.',
    doc: { tag: 'Dashboard', success: { status: 200, schema: 'html' } },
  },
  dashboardEnrol: {
    summary: 'Dashboard: confirm 2FA with a code; shows the recovery codes once and signs in.',
    doc: { tag: 'Dashboard', success: { status: 200, schema: 'html' } },
  },
  dashboardSignInPage: {
    summary: 'Dashboard: the sign-in form (e-mail, password, one-time code).',
    doc: { tag: 'Dashboard', success: { status: 200, schema: 'html' } },
  },
  dashboardSignIn: {
    summary: 'Dashboard: sign in (throttled per address, lockout per account).',
    doc: { tag: 'Dashboard', success: { status: 200, schema: 'html' } },
  },
  dashboardSignOut: {
    summary: 'Dashboard: sign out of this session, or everywhere.',
    doc: { tag: 'Dashboard', success: { status: 200, schema: 'html' } },
  },
  dashboardHome: {
    summary: 'Dashboard home: balances by currency, today’s volume and count, 30 days of volume, recent failures.',
    doc: { tag: 'Dashboard', success: { status: 200, schema: 'html' } },
  },
  dashboardPayments: {
    summary: 'Dashboard: payments with filters, search and cursor paging.',
    doc: { tag: 'Dashboard', success: { status: 200, schema: 'html' } },
  },
  dashboardPaymentsExport: {
    summary: 'Dashboard: CSV of every payment matching the filters, streamed (the list export of payments).',
    doc: { tag: 'Dashboard', success: { status: 200, schema: 'csv' } },
  },
  dashboardPayment: {
    summary: 'Dashboard: one payment: amounts, customer, refunds, webhook events; the refund form.',
    doc: { tag: 'Dashboard', success: { status: 200, schema: 'html' } },
  },
  dashboardRefund: {
    summary: 'Dashboard: refund all or part of a payment (Pending until the operator approves; test mode: the sandbox does).',
    doc: { tag: 'Dashboard', success: { status: 200, schema: 'html' } },
  },
  dashboardMode: {
    summary: 'Dashboard: switch between test and live data.',
    doc: { tag: 'Dashboard', success: { status: 200, schema: 'html' } },
  },
  dashboardTeam: {
    summary: 'Dashboard: the team and the audit log (admins).',
    doc: { tag: 'Dashboard', success: { status: 200, schema: 'html' } },
  },
  dashboardTeamInvite: {
    summary: 'Dashboard: invite a user (the link is shown to pass on).',
    doc: { tag: 'Dashboard', success: { status: 200, schema: 'html' } },
  },
  dashboardDevelopers: {
    summary: 'Dashboard: API keys of the mode (id, scopes, status, expiry); roll and revoke.',
    doc: { tag: 'Dashboard', success: { status: 200, schema: 'html' } },
  },
  dashboardRollKey: {
    summary: 'Dashboard: a new API key pair for the mode, shown once; the old keys expire after 0-7 days.',
    doc: { tag: 'Dashboard', success: { status: 200, schema: 'html' } },
  },
  dashboardRevokeKey: {
    summary: 'Dashboard: revoke one of the merchant’s API keys at once.',
    doc: { tag: 'Dashboard', success: { status: 200, schema: 'html' } },
  },
  dashboardPayouts: {
    summary: 'Dashboard: payouts awaiting approval and the latest others; the create form.',
    doc: { tag: 'Dashboard', success: { status: 200, schema: 'html' } },
  },
  dashboardCreatePayout: {
    summary: 'Dashboard: create a payout to a bank account; it waits for an approver (maker-checker).',
    doc: { tag: 'Dashboard', success: { status: 200, schema: 'html' } },
  },
  dashboardApprovePayout: {
    summary: 'Dashboard: approve a Pending payout (never by the user who created it).',
    doc: { tag: 'Dashboard', success: { status: 200, schema: 'html' } },
  },
  dashboardRejectPayout: {
    summary: 'Dashboard: reject a Pending payout with a reason (never by the user who created it).',
    doc: { tag: 'Dashboard', success: { status: 200, schema: 'html' } },
  },
  dashboardCreateKey: {
    summary: 'Dashboard: a new API key pair for a mode with the chosen scopes, shown once; the other keys are untouched.',
    doc: { tag: 'Dashboard', success: { status: 200, schema: 'html' } },
  },
  dashboardWebhooks: {
    summary: 'Dashboard: the mode’s webhook endpoint (URL, event types, secrets, health) and its delivery log with filters.',
    doc: { tag: 'Dashboard', success: { status: 200, schema: 'html' } },
  },
  dashboardSaveWebhook: {
    summary: 'Dashboard: set the mode’s webhook URL and event types; a new endpoint’s signing secret is shown once.',
    doc: { tag: 'Dashboard', success: { status: 200, schema: 'html' } },
  },
  dashboardRotateWebhookSecret: {
    summary: 'Dashboard: a new webhook signing secret, shown once; the old one keeps signing for the overlap chosen.',
    doc: { tag: 'Dashboard', success: { status: 200, schema: 'html' } },
  },
  dashboardWebhookState: {
    summary: 'Dashboard: enable or disable the mode’s webhook endpoint.',
    doc: { tag: 'Dashboard', success: { status: 200, schema: 'html' } },
  },
  dashboardWebhookTest: {
    summary: 'Dashboard: send a signed test event to the mode’s endpoint now and show its answer.',
    doc: { tag: 'Dashboard', success: { status: 200, schema: 'html' } },
  },
  dashboardEvent: {
    summary: 'Dashboard: one webhook event with every delivery attempt.',
    doc: { tag: 'Dashboard', success: { status: 200, schema: 'html' } },
  },
  dashboardResendEvent: {
    summary: 'Dashboard: resend a webhook event (a new delivery round; the hourly resend quotas apply).',
    doc: { tag: 'Dashboard', success: { status: 200, schema: 'html' } },
  },
  dashboardTeamRole: {
    summary: 'Dashboard: change a team member’s role (never the last active admin’s).',
    doc: { tag: 'Dashboard', success: { status: 200, schema: 'html' } },
  },
  dashboardTeamRemove: {
    summary: 'Dashboard: remove a team member (no more sign-ins, every session ends; never the last active admin).',
    doc: { tag: 'Dashboard', success: { status: 200, schema: 'html' } },
  },
  dashboardSettlements: {
    summary: 'Dashboard: the mode’s settlements, newest first, and the request form.',
    doc: { tag: 'Dashboard', success: { status: 200, schema: 'html' } },
  },
  dashboardRequestSettlement: {
    summary:
      'Dashboard: request a settlement to a bank account or a USDT address: a preview (fee, net, FX rate) first, then the confirmation.',
    doc: { tag: 'Dashboard', success: { status: 200, schema: 'html' } },
  },
  dashboardSettlement: {
    summary: 'Dashboard: one settlement.',
    doc: { tag: 'Dashboard', success: { status: 200, schema: 'html' } },
  },
  dashboardApproveSettlement: {
    summary: 'Dashboard: approve a Pending settlement (never by the user who requested it; the merchant’s approval setting applies).',
    doc: { tag: 'Dashboard', success: { status: 200, schema: 'html' } },
  },
  dashboardRejectSettlement: {
    summary: 'Dashboard: reject a Pending settlement with a reason (never by the user who requested it).',
    doc: { tag: 'Dashboard', success: { status: 200, schema: 'html' } },
  },
  dashboardBalance: {
    summary:
      'Dashboard: the balance transactions of the mode, newest first, with the available balance after each; filters type, source, ' +
      'settlement, payout, from, to; cursor paging (after).',
    doc: { tag: 'Dashboard', success: { status: 200, schema: 'html' } },
  },
  dashboardRefunds: {
    summary: 'Dashboard: every refund of the merchant in the mode, newest first, with cursor paging.',
    doc: { tag: 'Dashboard', success: { status: 200, schema: 'html' } },
  },
  dashboardApproveRefund: {
    summary: 'Dashboard: approve a Pending refund under the approval setting merchant or both (never by the user who requested it).',
    doc: { tag: 'Dashboard', success: { status: 200, schema: 'html' } },
  },
  dashboardRejectRefund: {
    summary: 'Dashboard: reject a Pending refund with a reason under the approval setting merchant or both (never by its requester).',
    doc: { tag: 'Dashboard', success: { status: 200, schema: 'html' } },
  },
  dashboardStatements: {
    summary:
      'Dashboard: monthly statements per currency: the month to date (provisional, today included) and the closed months ' +
      'since the merchant was created (at most a year), as CSV and PDF, each with the days it covers.',
    doc: { tag: 'Dashboard', success: { status: 200, schema: 'html' } },
  },
  dashboardStatementCsv: {
    summary: 'Dashboard: a month’s statement as CSV (?currency=), as GET /Statements/{period} gives it.',
    doc: {
      tag: 'Dashboard',
      success: { status: 200, schema: 'csv' },
      example: { path: { period: '2026-10' }, query: { currency: 'PKR' } },
    },
  },
  dashboardStatementPdf: {
    summary: 'Dashboard: a month’s statement as PDF (?currency=), as GET /Statements/{period}/pdf gives it.',
    doc: {
      tag: 'Dashboard',
      success: { status: 200, schema: 'pdf' },
      example: { path: { period: '2026-10' }, query: { currency: 'PKR' } },
    },
  },
  dashboardListExport: {
    summary:
      'Dashboard: every row of a list (payments, payouts, refunds, settlements, audit) matching its filters, as CSV streamed ' +
      'page by page (no cap on rows; a file stopped at 190 MB or 15 minutes ends with a # INCOMPLETE EXPORT line).',
    doc: { tag: 'Dashboard', success: { status: 200, schema: 'csv' }, example: { path: { list: 'refunds' } } },
  },
  dashboardBalanceExport: {
    summary:
      'Dashboard: the Balance page’s list as CSV: every balance transaction matching its filters (type, source, settlement, ' +
      'payout, from, to), with the available balance after each, streamed page by page.',
    doc: { tag: 'Dashboard', success: { status: 200, schema: 'csv' }, example: { query: { type: 'payment' } } },
  },
  dashboardSettings: {
    summary: 'Dashboard: merchant settings (admins): who approves manual payouts and settlements.',
    doc: { tag: 'Dashboard', success: { status: 200, schema: 'html' } },
  },
  dashboardSaveSettings: {
    summary: 'Dashboard: save who approves manual payouts and settlements: the merchant’s approvers, the operator, or both.',
    doc: { tag: 'Dashboard', success: { status: 200, schema: 'html' } },
  },
  dashboardLinks: {
    summary: 'Dashboard: the mode’s payment links, newest first (25 per page, ?after=), and the form that creates one.',
    doc: { tag: 'Dashboard', success: { status: 200, schema: 'html' } },
  },
  dashboardCreateLink: {
    summary: 'Dashboard: create a payment link (roles that take payments); audited.',
    doc: { tag: 'Dashboard', success: { status: 200, schema: 'html' } },
  },
  dashboardLink: {
    summary: 'Dashboard: one payment link: its short URL and QR code, payments, totals and remaining uses.',
    doc: { tag: 'Dashboard', success: { status: 200, schema: 'html' }, problems: [404] },
  },
  dashboardDeactivateLink: {
    summary: 'Dashboard: deactivate a payment link; audited.',
    doc: { tag: 'Dashboard', success: { status: 200, schema: 'html' }, problems: [404] },
  },
  dashboardReactivateLink: {
    summary: 'Dashboard: reactivate a payment link; audited.',
    doc: { tag: 'Dashboard', success: { status: 200, schema: 'html' }, problems: [404] },
  },
} as const satisfies Record<string, { readonly summary: string; readonly doc: RouteDoc }>;
