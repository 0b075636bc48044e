/**
 * Route definitions (functions/routes.ts, the one route table, lists them with their docs):
 * The hosted checkout pages (docs/merchant-guide.md, Hosted checkout): public HTML, form posts with an anti-CSRF token, 303 redirects.
 * A handler imports its own row from here, so its bundle holds that row only (no other route, no
 * summary, docs or examples: functions/route-docs.ts).
 */
import type { RouteDefinition } from '#shared/http/route.ts';
import { linkCounterAttributes } from '#shared/domain/payment-link.ts';

/**
 * The hosted checkout pages: unauthenticated, confined to the checkout's partitions (with the payment
 * link a checkout may come from: its status change releases or counts the link's use, the only update they may make to
 * a link: `attributeUpdates`); they charge through the providers.
 */
const checkoutPermissions = {
  table: 'readWrite',
  secrets: ['publicPathsKey', 'liveProviders'],
  partitions: ['intent', 'merchant', 'eventFeed', 'eventPointer', 'paymentLink'],
  writePartitions: ['intent', 'merchant', 'eventFeed', 'eventPointer'],
  attributeUpdates: { partitions: ['paymentLink'], attributes: linkCounterAttributes },
} as const satisfies RouteDefinition['permissions'];

// The hosted checkout page (docs/merchant-guide.md, Hosted checkout): public HTML, form posts with an anti-CSRF token, 303 redirects.
export const checkoutPage = {
  id: 'checkoutPage',
  method: 'GET',
  path: '/pay/{paymentIntentId}',
  handler: 'functions/pay/page.ts',
  auth: 'none',
  signature: false,
  // an overdue session is moved to Expired when opened
  permissions: checkoutPermissions,
} as const satisfies RouteDefinition;

export const checkoutCard = {
  id: 'checkoutCard',
  method: 'POST',
  path: '/pay/{paymentIntentId}/card',
  handler: 'functions/pay/card.ts',
  auth: 'none',
  signature: false,
  permissions: checkoutPermissions,
} as const satisfies RouteDefinition;

export const checkoutCardReturn = {
  id: 'checkoutCardReturn',
  method: 'POST',
  path: '/pay/{paymentIntentId}/card-return',
  handler: 'functions/pay/card-return.ts',
  auth: 'none',
  signature: false,
  permissions: checkoutPermissions,
} as const satisfies RouteDefinition;

export const checkoutWallet = {
  id: 'checkoutWallet',
  method: 'POST',
  path: '/pay/{paymentIntentId}/wallet',
  handler: 'functions/pay/wallet.ts',
  auth: 'none',
  signature: false,
  permissions: checkoutPermissions,
} as const satisfies RouteDefinition;

export const checkoutOtp = {
  id: 'checkoutOtp',
  method: 'POST',
  path: '/pay/{paymentIntentId}/otp',
  handler: 'functions/pay/otp.ts',
  auth: 'none',
  signature: false,
  permissions: checkoutPermissions,
} as const satisfies RouteDefinition;

export const checkoutCancel = {
  id: 'checkoutCancel',
  method: 'POST',
  path: '/pay/{paymentIntentId}/cancel',
  handler: 'functions/pay/cancel.ts',
  auth: 'none',
  signature: false,
  permissions: checkoutPermissions,
} as const satisfies RouteDefinition;
