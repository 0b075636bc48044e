import { PutItemCommand } from '@aws-sdk/client-dynamodb';
import type { Mode } from '#shared/domain/credentials.ts';
import type { Journal } from '#shared/domain/ledger.ts';
import { db, queryAll, toValues } from './client.ts';
import { get, putEntry } from './entity.ts';
import { journalOf } from './balance-transactions.ts';
import * as keys from './keys.ts';
import { readShards } from './shards.ts';

/**
 * Balance checkpoints (docs/access-patterns.md B1-B4; shared/services/balance-checkpoints.ts): the
 * balances of one merchant, mode and currency at a UTC day boundary, i.e. the fold of every journal
 * positioned (`<createdAt>#<journalId>`) before it, on every shard. Written once (conditional Put),
 * never changed: a second writer compares instead.
 */
export interface BalanceCheckpoint {
  merchantId: string;
  mode: Mode;
  currency: string;
  /** The UTC day boundary (`YYYY-MM-DDT00:00:00.000Z`): every journal positioned before it, and no other. */
  boundary: string;
  /** available, held and held_<HoldType>, minor units. */
  balances: Record<string, number>;
  /** Journals of this currency before the boundary, and the platform fee lines they carried. */
  journals: number;
  feesMinor: number;
  /** The checkpoint it was folded from (`origin`: the empty wallet) and what it was checked against. */
  basis: string;
  verifiedAgainst: string;
  computedAt: string;
}

const stripKeys = (item: Record<string, unknown>) => {
  const { PK: _pk, SK: _sk, entity: _e, ...rest } = item;
  return rest as unknown as BalanceCheckpoint;
};

/** B1: the latest checkpoint at or before a boundary (undefined: none yet). */
export async function checkpointAtOrBefore(merchantId: string, mode: Mode, currency: string, boundary: string) {
  const k = keys.balanceCheckpoint(merchantId, mode, currency, boundary);
  const [found] = await queryAll<Record<string, unknown>>(
    {
      KeyConditionExpression: 'PK = :pk AND SK BETWEEN :lo AND :hi',
      ExpressionAttributeValues: toValues({
        ':pk': k.PK,
        ':lo': keys.balanceCheckpointsOf(merchantId, mode, currency).SKPrefix,
        ':hi': k.SK,
      }),
      ScanIndexForward: false,
      ConsistentRead: true,
    },
    1,
  );
  return found ? stripKeys(found) : undefined;
}

/** B2: the first checkpoint after a boundary (what a new checkpoint is checked against, when there is one). */
export async function checkpointAfter(merchantId: string, mode: Mode, currency: string, boundary: string) {
  const k = keys.balanceCheckpoint(merchantId, mode, currency, boundary);
  const prefix = keys.balanceCheckpointsOf(merchantId, mode, currency).SKPrefix;
  const [found] = await queryAll<Record<string, unknown>>(
    {
      KeyConditionExpression: 'PK = :pk AND SK BETWEEN :lo AND :hi',
      ExpressionAttributeValues: toValues({ ':pk': k.PK, ':lo': `${k.SK}#`, ':hi': `${prefix}\uffff` }),
      ConsistentRead: true,
    },
    1,
  );
  return found ? stripKeys(found) : undefined;
}

/**
 * B3: store a checkpoint once (Put if absent). Returns the stored one: this one, or the one a
 * concurrent writer stored first (the caller compares them: both folded the same final journals).
 */
export async function putCheckpoint(c: BalanceCheckpoint): Promise<BalanceCheckpoint> {
  const key = keys.balanceCheckpoint(c.merchantId, c.mode, c.currency, c.boundary);
  try {
    await db().send(new PutItemCommand(putEntry('BalanceCheckpoint', key, { ...c }).Put!));
    return c;
  } catch (error) {
    if ((error as { name?: string }).name !== 'ConditionalCheckFailedException') throw error;
    return stripKeys((await get(key))!);
  }
}

/**
 * B4: the journals of one currency positioned in [from, to) (`to` undefined: up to now and beyond),
 * every shard, page by page (at most `pageSize` each; per shard, so memory holds one page). A
 * page's order is its shard's; folding needs none. Strongly consistent reads.
 */
export async function* journalPagesBetween(
  merchantId: string,
  mode: Mode,
  currency: string,
  from: string,
  to: string | undefined,
  pageSize = 500,
): AsyncGenerator<Journal[]> {
  const shards = await readShards(merchantId, mode);
  const base = keys.journalsOfMerchant(merchantId, mode).SKPrefix;
  for (let n = 0; n < shards; n++) {
    let after = `${base}${from}`;
    for (;;) {
      const page = await queryAll<Journal & { PK: string; SK: string }>(
        {
          KeyConditionExpression: 'PK = :pk AND SK BETWEEN :lo AND :hi',
          FilterExpression: 'currency = :c',
          ExpressionAttributeValues: toValues({
            ':pk': keys.journalsOfMerchant(merchantId, mode, n).PK,
            ':lo': after,
            ':hi': to === undefined ? `${base}\uffff` : `${base}${to}`,
            ':c': currency,
          }),
          ConsistentRead: true,
        },
        pageSize + 1,
      );
      // The bounds are inclusive; no journal sits exactly on one (a position carries its id), except the last one read.
      const items = page.filter((j) => j.SK !== after).slice(0, pageSize);
      if (items.length) yield items.map(journalOf);
      if (page.length <= pageSize || !items.length) break; // a short read: nothing more
      after = items.at(-1)!.SK;
    }
  }
}
