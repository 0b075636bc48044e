/**
 * The one table's physical definition. Both the CDK stack (infra/gateway-stack.ts) and the local
 * stack (scripts/local/dynamo.ts) build the table from this object, so they cannot drift.
 * Key patterns live in ./keys.ts; access patterns are listed in docs/access-patterns.md.
 */
export const tableDefinition = {
  partitionKey: 'PK',
  sortKey: 'SK',
  /** Epoch seconds; DynamoDB TTL removes idempotency records and other expiring items. */
  ttlAttribute: 'ttl',
  /** The outbox relay reads new images from the stream (webhook issue). */
  streamView: 'NEW_IMAGE',
  globalSecondaryIndexes: [
    /** GSI1: "by owner" listings (a merchant's keys, settlements, refunds of a transaction). */
    { indexName: 'GSI1', partitionKey: 'GSI1PK', sortKey: 'GSI1SK' },
    /** GSI2: time buckets for sweeps (expiring sessions, stale charges) without scans. */
    { indexName: 'GSI2', partitionKey: 'GSI2PK', sortKey: 'GSI2SK' },
    /** GSI3: filtered listings (a merchant's transactions by type and status). */
    { indexName: 'GSI3', partitionKey: 'GSI3PK', sortKey: 'GSI3SK' },
  ],
} as const;

/** Every key attribute is a string. */
export const keyAttributes = [
  tableDefinition.partitionKey,
  tableDefinition.sortKey,
  ...tableDefinition.globalSecondaryIndexes.flatMap((g) => [g.partitionKey, g.sortKey]),
] as const;
