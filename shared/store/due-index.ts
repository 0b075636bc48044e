import { queryAll, toValues } from './client.ts';

/**
 * The due index (GSI2, sparse): an item that needs attention at a time carries GSI2PK = a shard of
 * its family (`DUE#0-31` intents, `MONEYDUE#0-31` settlements, refunds and automatic-settlement runs)
 * and GSI2SK = `<dueAt>#<id>` until it is dealt with. A sweep reads every shard up to `now`, oldest
 * first, a bounded number per shard, never scanning the table.
 */
export async function queryDueIndex(shards: readonly string[], now: Date, limitPerShard = 100): Promise<Record<string, unknown>[]> {
  const perShard = await Promise.all(
    shards.map((shard) =>
      queryAll(
        {
          IndexName: 'GSI2',
          KeyConditionExpression: 'GSI2PK = :pk AND GSI2SK <= :now',
          ExpressionAttributeValues: toValues({ ':pk': shard, ':now': `${now.toISOString()}~` }),
        },
        limitPerShard,
      ),
    ),
  );
  return perShard.flat();
}

/**
 * The oldest due time still waiting in the given shards (the sweep's lag: now minus this), or null
 * when nothing is due. One item per shard, oldest first.
 */
export async function oldestDueAt(shards: readonly string[], now: Date): Promise<string | null> {
  const heads = await queryDueIndex(shards, now, 1);
  const dueAts = heads.map((i) => String(i.GSI2SK).split('#')[0]!).sort();
  return dueAts[0] ?? null;
}
