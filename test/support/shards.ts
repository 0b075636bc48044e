import { GetItemCommand } from '@aws-sdk/client-dynamodb';
import type { Mode } from '#shared/domain/credentials.ts';
import { db, fromItem, tableName, toItem } from '#shared/store/client.ts';
import * as keys from '#shared/store/keys.ts';

/** One wallet shard's item as stored (strongly consistent), {} when the shard was never written. */
export async function shardItem(merchantId: string, n: number, mode: Mode = 'test', currency = 'PKR') {
  const r = await db().send(
    new GetItemCommand({ TableName: tableName(), Key: toItem(keys.walletShard(merchantId, mode, currency, n)), ConsistentRead: true }),
  );
  return r.Item ? fromItem<Record<string, number>>(r.Item) : {};
}

/** Every shard's `available`, shard 0 first. */
export async function shardBalances(merchantId: string, shards: number, mode: Mode = 'test', currency = 'PKR') {
  const out = [];
  for (let n = 0; n < shards; n++) out.push((await shardItem(merchantId, n, mode, currency)).available ?? 0);
  return out;
}
