/**
 * Route definitions (functions/routes.ts, the one route table, lists them with their docs):
 * Money in and out: hosted checkout sessions, wallet charges (deposits), withdrawals (payouts).
 * A handler imports its own row from here, so its bundle holds that row only (no other route, no
 * summary, docs or examples: functions/route-docs.ts).
 */
import type { RouteDefinition } from '#shared/http/route.ts';

/**
 * The families an API call that creates an intent writes (no API-key item: infra/route-stack.ts): its Idempotency-Key
 * record, the intent, its order and transaction reference pointers, its customer index entries, the merchant's wallets.
 * Each row lists them as literals (a spread would keep every row of this module in each handler's bundle).
 */

export const initiateCheckout = {
  id: 'initiateCheckout',
  method: 'POST',
  path: '/Gateway/v{version}/Payment/initiate-checkout',
  handler: 'functions/payment/initiate-checkout.ts',
  auth: 'apiKey',
  scope: 'payments',
  signature: true,
  permissions: {
    readPartitions: ['apiKey', 'customerPayment', 'idempotency', 'intent', 'merchant', 'orderRef', 'transactionReference'],
    table: 'readWrite',
    secrets: ['masterKey', 'liveProviders'],
    writePartitions: ['idempotency', 'intent', 'orderRef', 'transactionReference', 'customerPayment', 'merchant'],
  },
} as const satisfies RouteDefinition;

export const deposit = {
  id: 'deposit',
  method: 'POST',
  path: '/Gateway/v{version}/Payment/deposit',
  handler: 'functions/payment/deposit.ts',
  auth: 'apiKey',
  scope: 'payments',
  signature: true,
  permissions: {
    readPartitions: [
      'apiKey',
      'customerPayment',
      'idempotency',
      'intent',
      'merchant',
      'orderRef',
      'providerReference',
      'transactionReference',
    ],
    table: 'readWrite',
    secrets: ['masterKey', 'liveProviders'],
    writePartitions: ['idempotency', 'intent', 'orderRef', 'transactionReference', 'customerPayment', 'merchant', 'providerReference'],
    // A charge the provider refused undoes the deposit's first commit (DeleteItem); a retry finds it by orderRef (BatchGetItem).
    deletes: true,
    batchGets: true,
  },
} as const satisfies RouteDefinition;

export const withdraw = {
  id: 'withdraw',
  method: 'POST',
  path: '/Gateway/v{version}/Payment/withdraw',
  handler: 'functions/payment/withdraw.ts',
  auth: 'apiKey',
  scope: 'payouts',
  signature: true,
  // A payout is created and, on the sandbox or a rail's answer, completed at once: its events, the wallet's journal, its maker.
  permissions: {
    readPartitions: [
      'apiKey',
      'bankFileLine',
      'customerPayment',
      'eventFeed',
      'eventPointer',
      'idempotency',
      'intent',
      'merchant',
      'orderRef',
      'paymentLink',
      'payoutMaker',
      'refund',
      'sandboxReceipt',
      'settlement',
      'transactionReference',
    ],
    table: 'readWrite',
    secrets: ['masterKey', 'liveProviders'],
    batchGets: true,
    writePartitions: [
      'idempotency',
      'intent',
      'orderRef',
      'transactionReference',
      'customerPayment',
      'merchant',
      'eventFeed',
      'eventPointer',
      'paymentLink',
      'payoutMaker',
      'sandboxReceipt',
      'bankFileLine',
    ],
  },
} as const satisfies RouteDefinition;
