/**
 * Route definitions (functions/routes.ts, the one route table, lists them with their docs):
 * The wallet balance.
 * A handler imports its own row from here, so its bundle holds that row only (no other route, no
 * summary, docs or examples: functions/route-docs.ts).
 */
import type { RouteDefinition } from '#shared/http/route.ts';

export const queryBalance = {
  id: 'queryBalance',
  method: 'POST',
  path: '/Gateway/v{version}/Account/query-balance',
  handler: 'functions/account/query-balance.ts',
  auth: 'apiKey',
  scope: 'balance',
  signature: false,
  // Reads money only: its one kind of write is the Idempotency-Key record of this POST (a conditional put).
  permissions: {
    readPartitions: ['apiKey', 'idempotency', 'merchant'],
    table: 'readWrite',
    secrets: [],
    putsOnly: true,
    writePartitions: ['idempotency'],
  },
} as const satisfies RouteDefinition;
