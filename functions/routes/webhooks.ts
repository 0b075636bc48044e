/**
 * Route definitions (functions/routes.ts, the one route table, lists them with their docs):
 * Webhook events: the feed, a transaction’s events, delivery attempts, resends.
 * A handler imports its own row from here, so its bundle holds that row only (no other route, no
 * summary, docs or examples: functions/route-docs.ts).
 */
import type { RouteDefinition } from '#shared/http/route.ts';

export const transactionEvents = {
  id: 'transactionEvents',
  method: 'GET',
  path: '/Gateway/v{version}/Transaction/{reference}/events',
  handler: 'functions/webhooks/transaction-events.ts',
  auth: 'apiKey',
  scope: 'read',
  signature: false,
  permissions: {
    readPartitions: ['apiKey', 'idempotency', 'intent', 'orderRef', 'refund', 'settlement', 'transactionReference'],
    table: 'read',
    secrets: [],
    batchGets: true,
    queries: 'table',
  },
} as const satisfies RouteDefinition;

export const eventAttempts = {
  id: 'eventAttempts',
  method: 'GET',
  path: '/Gateway/v{version}/Events/{eventId}/attempts',
  handler: 'functions/webhooks/event-attempts.ts',
  auth: 'apiKey',
  scope: 'read',
  signature: false,
  // The delivery item, then its earlier attempts beside it (a Query of the event's home partition).
  permissions: {
    readPartitions: ['apiKey', 'eventPointer', 'idempotency', 'intent', 'refund', 'settlement'],
    table: 'read',
    secrets: [],
    queries: 'table',
  },
} as const satisfies RouteDefinition;

export const listEvents = {
  id: 'listEvents',
  method: 'GET',
  path: '/Gateway/v{version}/Events',
  handler: 'functions/webhooks/list-events.ts',
  auth: 'apiKey',
  scope: 'read',
  signature: false,
  // The feed's indexes, then one BatchGetItem joining a page's entries and delivery items (shared/store/event-feed.ts).
  permissions: {
    readPartitions: ['apiKey', 'eventFeed', 'idempotency', 'intent', 'merchant', 'refund', 'settlement'],
    table: 'read',
    secrets: [],
    batchGets: true,
    queries: 'indexes',
    indexPartitions: ['events'],
  },
} as const satisfies RouteDefinition;

export const resendEvent = {
  id: 'resendEvent',
  method: 'POST',
  path: '/Gateway/v{version}/Events/{eventId}/resend',
  handler: 'functions/webhooks/resend.ts',
  auth: 'apiKey',
  scope: 'webhooks',
  signature: 'ifPresent', // no body needed; a body that carries `signature` is checked (docs/merchant-guide.md, Signing a request body)
  // A resend request in the event's home partition (its subject's), the hourly quota, the Idempotency-Key record.
  permissions: {
    readPartitions: ['apiKey', 'eventPointer', 'idempotency', 'intent', 'quota', 'refund', 'settlement'],
    table: 'readWrite',
    secrets: ['masterKey'],
    writePartitions: ['idempotency', 'intent', 'refund', 'settlement', 'quota'],
  },
} as const satisfies RouteDefinition;
