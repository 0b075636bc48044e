/**
 * Route definitions (functions/routes.ts, the one route table, lists them with their docs):
 * Settlements: create, read, list, and the automatic settlement schedule.
 * A handler imports its own row from here, so its bundle holds that row only (no other route, no
 * summary, docs or examples: functions/route-docs.ts).
 */
import type { RouteDefinition } from '#shared/http/route.ts';
import { breakdownJobAttributes } from '#shared/domain/settlement.ts';

export const settlementSchedule = {
  id: 'settlementSchedule',
  method: 'GET',
  path: '/Gateway/v{version}/Settlements/schedule',
  handler: 'functions/settlements/schedule.ts',
  auth: 'apiKey',
  scope: 'read',
  signature: false,
  permissions: { readPartitions: ['apiKey', 'idempotency', 'merchant'], table: 'read', secrets: [] },
} as const satisfies RouteDefinition;

export const createSettlement = {
  id: 'createSettlement',
  method: 'POST',
  path: '/Gateway/v{version}/Settlements',
  handler: 'functions/settlements/create.ts',
  auth: 'apiKey',
  scope: 'settlements',
  signature: true,
  permissions: {
    readPartitions: ['apiKey', 'bankFileLine', 'idempotency', 'merchant', 'sandboxReceipt', 'settlement', 'settlementMaker'],
    table: 'readWrite',
    secrets: ['masterKey', 'liveProviders'],
    batchGets: true,
    writePartitions: ['idempotency', 'merchant', 'settlement', 'settlementMaker', 'sandboxReceipt', 'bankFileLine'],
  },
} as const satisfies RouteDefinition;

// The literal /Settlements/schedule above wins over /Settlements/{id} (local server and API Gateway).
export const getSettlement = {
  id: 'getSettlement',
  method: 'GET',
  path: '/Gateway/v{version}/Settlements/{id}',
  handler: 'functions/settlements/get.ts',
  auth: 'apiKey',
  scope: 'read',
  signature: false,
  // A read that stores the breakdown it computes once (shared/store/settlements.ts saveSettlementBreakdown): that attribute only.
  permissions: {
    table: 'read',
    readPartitions: ['apiKey', 'idempotency', 'merchant', 'settlement'],
    secrets: [],
    queries: 'table',
    attributeUpdates: { partitions: ['settlement'], attributes: ['breakdown', ...breakdownJobAttributes] },
  },
} as const satisfies RouteDefinition;

export const listSettlements = {
  id: 'listSettlements',
  method: 'GET',
  path: '/Gateway/v{version}/Settlements',
  handler: 'functions/settlements/list.ts',
  auth: 'apiKey',
  scope: 'read',
  signature: false,
  permissions: { readPartitions: ['apiKey', 'idempotency'], table: 'read', secrets: [], queries: 'indexes', indexPartitions: ['merchant'] },
} as const satisfies RouteDefinition;
