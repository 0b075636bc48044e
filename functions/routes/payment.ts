/**
 * Route definitions (functions/routes.ts, the one route table, lists them with their docs):
 * Money in and out: hosted checkout sessions, wallet charges (deposits), withdrawals (payouts).
 * A handler imports its own row from here, so its bundle holds that row only (no other route, no
 * summary, docs or examples: functions/route-docs.ts).
 */
import type { RouteDefinition } from '#shared/http/route.ts';

export const initiateCheckout = {
  id: 'initiateCheckout',
  method: 'POST',
  path: '/Gateway/v{version}/Payment/initiate-checkout',
  handler: 'functions/payment/initiate-checkout.ts',
  auth: 'apiKey',
  scope: 'payments',
  signature: true,
  permissions: { table: 'readWrite', secrets: ['masterKey', 'liveProviders'] },
} as const satisfies RouteDefinition;

export const deposit = {
  id: 'deposit',
  method: 'POST',
  path: '/Gateway/v{version}/Payment/deposit',
  handler: 'functions/payment/deposit.ts',
  auth: 'apiKey',
  scope: 'payments',
  signature: true,
  permissions: { table: 'readWrite', secrets: ['masterKey', 'liveProviders'] },
} as const satisfies RouteDefinition;

export const withdraw = {
  id: 'withdraw',
  method: 'POST',
  path: '/Gateway/v{version}/Payment/withdraw',
  handler: 'functions/payment/withdraw.ts',
  auth: 'apiKey',
  scope: 'payouts',
  signature: true,
  permissions: { table: 'readWrite', secrets: ['masterKey', 'liveProviders'], batchGets: true },
} as const satisfies RouteDefinition;
