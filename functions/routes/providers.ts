/**
 * Route definitions (functions/routes.ts, the one route table, lists them with their docs):
 * Provider-facing callbacks (not for merchants).
 * A handler imports its own row from here, so its bundle holds that row only (no other route, no
 * summary, docs or examples: functions/route-docs.ts).
 */
import type { RouteDefinition } from '#shared/http/route.ts';
import { linkCounterAttributes } from '#shared/domain/payment-link.ts';

export const walletProviderCallback = {
  id: 'walletProviderCallback',
  method: 'POST',
  path: '/providers/wallet/{provider}/callback',
  handler: 'functions/providers/wallet-callback.ts',
  auth: 'none',
  signature: false,
  formBody: true,
  permissions: {
    table: 'readWrite',
    secrets: ['publicPathsKey', 'liveProviders'],
    partitions: ['intent', 'merchant', 'eventFeed', 'eventPointer', 'providerReference', 'paymentLink'],
    // Reads the provider-reference pointer a deposit wrote; of a link, moves only its counters (as the hosted pages).
    writePartitions: ['intent', 'merchant', 'eventFeed', 'eventPointer'],
    attributeUpdates: { partitions: ['paymentLink'], attributes: linkCounterAttributes },
  },
} as const satisfies RouteDefinition;
