/**
 * Route definitions (functions/routes.ts, the one route table, lists them with their docs):
 * Transactions: the list, the look-up by reference and the balance transactions.
 * A handler imports its own row from here, so its bundle holds that row only (no other route, no
 * summary, docs or examples: functions/route-docs.ts).
 */
import type { RouteDefinition } from '#shared/http/route.ts';

export const listTransactions = {
  id: 'listTransactions',
  method: 'GET',
  path: '/Gateway/v{version}/Transactions',
  handler: 'functions/transactions/list.ts',
  auth: 'apiKey',
  scope: 'read',
  signature: false,
  // The table for a payment link's payments (its partition's pointers), then one BatchGetItem of them.
  permissions: {
    readPartitions: ['apiKey', 'idempotency', 'intent', 'merchant', 'orderRef', 'paymentLink'],
    table: 'read',
    secrets: [],
    queries: 'tableAndIndexes',
    indexPartitions: ['merchant'],
    batchGets: true,
  },
} as const satisfies RouteDefinition;

export const transactionByRef = {
  id: 'transactionByRef',
  method: 'GET',
  path: '/Gateway/v{version}/Transaction/by-ref/{reference}',
  handler: 'functions/transactions/by-ref.ts',
  auth: 'apiKey',
  scope: 'read',
  signature: false,
  permissions: {
    readPartitions: ['apiKey', 'idempotency', 'intent', 'orderRef', 'transactionReference'],
    table: 'read',
    secrets: [],
    batchGets: true,
  },
} as const satisfies RouteDefinition;

export const transactionByRefAlias = {
  id: 'transactionByRefAlias',
  method: 'GET',
  path: '/Gateway/v{version}/Transaction/{reference}',
  handler: 'functions/transactions/by-ref-alias.ts',
  auth: 'apiKey',
  scope: 'read',
  signature: false,
  permissions: {
    readPartitions: ['apiKey', 'idempotency', 'intent', 'orderRef', 'transactionReference'],
    table: 'read',
    secrets: [],
    batchGets: true,
  },
} as const satisfies RouteDefinition;

export const listBalanceTransactions = {
  id: 'listBalanceTransactions',
  method: 'GET',
  path: '/Gateway/v{version}/BalanceTransactions',
  handler: 'functions/transactions/balance-transactions.ts',
  auth: 'apiKey',
  scope: 'read',
  signature: false,
  permissions: {
    readPartitions: ['apiKey', 'idempotency', 'intent', 'merchant', 'settlement'],
    table: 'read',
    secrets: [],
    queries: 'tableAndIndexes',
    indexPartitions: ['merchant'],
  },
} as const satisfies RouteDefinition;
