/**
 * Route definitions (functions/routes.ts, the one route table, lists them with their docs):
 * Payment links (docs/payment-links.md): the API (create, read, list, deactivate, reactivate) and
 * the customer's pages on the checkout host (the short URL /l/{linkId} and its QR code).
 * A handler imports its own row from here, so its bundle holds that row only (no other route, no
 * summary, docs or examples: functions/route-docs.ts).
 */
import type { RouteDefinition } from '#shared/http/route.ts';

/** What the link API writes: its Idempotency-Key records and the link (never an API key: infra/route-stack.ts). */
const linkWrites = ['idempotency', 'paymentLink'] as const;

export const createPaymentLink = {
  id: 'createPaymentLink',
  method: 'POST',
  path: '/Gateway/v{version}/PaymentLinks',
  handler: 'functions/payment-links/create.ts',
  auth: 'apiKey',
  scope: 'payments',
  signature: true,
  permissions: {
    readPartitions: ['apiKey', 'idempotency', 'paymentLink'],
    table: 'readWrite',
    secrets: ['masterKey', 'liveProviders'],
    writePartitions: linkWrites,
  },
} as const satisfies RouteDefinition;

export const listPaymentLinks = {
  id: 'listPaymentLinks',
  method: 'GET',
  path: '/Gateway/v{version}/PaymentLinks',
  handler: 'functions/payment-links/list.ts',
  auth: 'apiKey',
  scope: 'read',
  signature: false,
  permissions: {
    readPartitions: ['apiKey', 'idempotency', 'paymentLink'],
    table: 'read',
    secrets: [],
    queries: 'indexes',
    indexPartitions: ['merchant'],
  },
} as const satisfies RouteDefinition;

export const getPaymentLink = {
  id: 'getPaymentLink',
  method: 'GET',
  path: '/Gateway/v{version}/PaymentLinks/{id}',
  handler: 'functions/payment-links/get.ts',
  auth: 'apiKey',
  scope: 'read',
  signature: false,
  permissions: { readPartitions: ['apiKey', 'idempotency', 'paymentLink'], table: 'read', secrets: [] },
} as const satisfies RouteDefinition;

export const deactivatePaymentLink = {
  id: 'deactivatePaymentLink',
  method: 'POST',
  path: '/Gateway/v{version}/PaymentLinks/{id}/deactivate',
  handler: 'functions/payment-links/deactivate.ts',
  auth: 'apiKey',
  scope: 'payments',
  signature: true,
  permissions: {
    readPartitions: ['apiKey', 'idempotency', 'paymentLink'],
    table: 'readWrite',
    secrets: ['masterKey'],
    writePartitions: linkWrites,
  },
} as const satisfies RouteDefinition;

export const reactivatePaymentLink = {
  id: 'reactivatePaymentLink',
  method: 'POST',
  path: '/Gateway/v{version}/PaymentLinks/{id}/reactivate',
  handler: 'functions/payment-links/reactivate.ts',
  auth: 'apiKey',
  scope: 'payments',
  signature: true,
  permissions: {
    readPartitions: ['apiKey', 'idempotency', 'paymentLink'],
    table: 'readWrite',
    secrets: ['masterKey'],
    writePartitions: linkWrites,
  },
} as const satisfies RouteDefinition;

/**
 * The link's pages: unauthenticated, confined to the partitions of the link and the checkout it
 * creates. Continuing creates the checkout's items under a ConditionCheck on the link (active, a use
 * left) and updates nothing: it cannot change a link's counters.
 */
const linkPagePermissions = {
  table: 'readWrite',
  conditionChecks: true,
  putsOnly: true,
  secrets: ['publicPathsKey', 'liveProviders'],
  partitions: ['paymentLink', 'intent', 'orderRef', 'transactionReference', 'customerPayment', 'merchant'],
} as const satisfies RouteDefinition['permissions'];

export const paymentLinkPage = {
  id: 'paymentLinkPage',
  method: 'GET',
  path: '/l/{linkId}',
  handler: 'functions/links/page.ts',
  auth: 'none',
  signature: false,
  permissions: { table: 'read', secrets: ['publicPathsKey'], partitions: ['paymentLink', 'merchant'] },
} as const satisfies RouteDefinition;

export const paymentLinkPay = {
  id: 'paymentLinkPay',
  method: 'POST',
  path: '/l/{linkId}',
  handler: 'functions/links/pay.ts',
  auth: 'none',
  signature: false,
  permissions: linkPagePermissions,
} as const satisfies RouteDefinition;

export const paymentLinkQr = {
  id: 'paymentLinkQr',
  method: 'GET',
  path: '/l/{linkId}/qr',
  handler: 'functions/links/qr.ts',
  auth: 'none',
  signature: false,
  permissions: { table: 'read', secrets: [], partitions: ['paymentLink'] },
} as const satisfies RouteDefinition;
