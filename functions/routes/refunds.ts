/**
 * Route definitions (functions/routes.ts, the one route table, lists them with their docs):
 * Refunds: create, read, list.
 * A handler imports its own row from here, so its bundle holds that row only (no other route, no
 * summary, docs or examples: functions/route-docs.ts).
 */
import type { RouteDefinition } from '#shared/http/route.ts';

export const createRefund = {
  id: 'createRefund',
  method: 'POST',
  path: '/Gateway/v{version}/Refunds',
  handler: 'functions/refunds/create.ts',
  auth: 'apiKey',
  scope: 'refunds',
  signature: true,
  permissions: {
    readPartitions: [
      'apiKey',
      'idempotency',
      'intent',
      'merchant',
      'orderRef',
      'refund',
      'refundMaker',
      'sandboxReceipt',
      'transactionReference',
    ],
    table: 'readWrite',
    secrets: ['masterKey', 'liveProviders'],
    batchGets: true,
    writePartitions: ['idempotency', 'merchant', 'intent', 'refund', 'refundMaker', 'sandboxReceipt'],
  },
} as const satisfies RouteDefinition;

export const getRefund = {
  id: 'getRefund',
  method: 'GET',
  path: '/Gateway/v{version}/Refunds/{id}',
  handler: 'functions/refunds/get.ts',
  auth: 'apiKey',
  scope: 'read',
  signature: false,
  permissions: { readPartitions: ['apiKey', 'idempotency', 'refund'], table: 'read', secrets: [] },
} as const satisfies RouteDefinition;

export const listRefunds = {
  id: 'listRefunds',
  method: 'GET',
  path: '/Gateway/v{version}/Refunds',
  handler: 'functions/refunds/list.ts',
  auth: 'apiKey',
  scope: 'read',
  signature: false,
  permissions: {
    readPartitions: ['apiKey', 'idempotency', 'intent', 'orderRef', 'transactionReference'],
    table: 'read',
    secrets: [],
    batchGets: true,
    queries: 'indexes',
    indexPartitions: ['txn'],
  },
} as const satisfies RouteDefinition;
