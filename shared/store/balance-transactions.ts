import { balanceTypeOf, kindsOf, type BalanceTransactionType } from '#shared/domain/balance-transaction.ts';
import type { Mode } from '#shared/domain/credentials.ts';
import type { Journal } from '#shared/domain/ledger.ts';
import { QueryCommand, UpdateItemCommand } from '@aws-sdk/client-dynamodb';
import { db, fromItem, queryAll, scanPages, tableName, toItem, toValues } from './client.ts';
import { applied, updateEntry } from './entity.ts';
import * as keys from './keys.ts';
import { readShards } from './shards.ts';
import { journalIndexKeys } from './wallets.ts';

/**
 * Balance transactions (shared/domain/balance-transaction.ts) are the journals themselves, read
 * newest first by Query only (docs/access-patterns.md B1-B3), never a Scan:
 *   unfiltered or by time   each journal partition of the merchant (`MERCHANT#<id>[#SHARD#<n>]`,
 *                           `JOURNAL#<mode>#<createdAt>#<id>`): the created range is the key range
 *   by type                 GSI3 `MERCHANT#<id>#<mode>#BALTXN#<kind>[#<n>]`, each kind of the type, every shard
 *   by source object        GSI1 `MERCHANT#<id>#<mode>#BALSRC#<reference>`: its few journals
 * Every partition sorts by the journal's position `<createdAt>#<journalId>`; a sharded merchant's
 * partitions are read at once (each at most limit + 2 items) and merged, as the transactions list does.
 */
export interface JournalPageQuery {
  type?: BalanceTransactionType;
  /** The source object's id: a transaction, settlement or refund id (an adjustment: `operator:<reference>`). */
  reference?: string;
  /** Inclusive ISO bounds on createdAt. */
  from?: string;
  to?: string;
  /** Exclusive upper position `<createdAt>#<journalId>` (the cursor). */
  before?: string;
  /** A settlement's window (shared/domain/settlement-breakdown.ts): positions after `after` (exclusive) up to `until` (inclusive). */
  after?: string;
  until?: string;
  /** Only journals in this currency (a settlement's window). */
  currency?: string;
  limit: number;
}

type Stored = Journal & { SK: string; GSI1SK?: string; GSI3SK?: string };

/** A journal as the domain knows it: no key or index attributes (every store reader of journal items uses this). */
export function journalOf(item: object): Journal {
  const {
    PK: _pk,
    SK: _sk,
    GSI1PK: _g1,
    GSI1SK: _g1s,
    GSI3PK: _g3,
    GSI3SK: _g3s,
    entity: _e,
    ...journal
  } = item as Record<string, unknown>;
  return journal as unknown as Journal;
}

export async function pageJournals(merchantId: string, mode: Mode, q: JournalPageQuery): Promise<{ items: Journal[]; hasMore: boolean }> {
  const fromBound = q.from ?? '0'; // below every ISO timestamp
  const lower = q.after !== undefined && q.after >= fromBound ? q.after : fromBound;
  const exclusiveLower = lower === q.after;
  const toBound = q.to ? `${q.to}#\uffff` : '\uffff';
  const upperInclusive = q.until !== undefined && q.until < toBound ? q.until : toBound;
  const upper = q.before && q.before < upperInclusive ? q.before : upperInclusive;
  const exclusive = Boolean(q.before && q.before < upperInclusive);
  const shards = Array.from({ length: await readShards(merchantId, mode) }, (_, n) => n);
  type Partition = { index?: 'GSI1' | 'GSI3'; pk: string; skPrefix: string; all?: boolean };
  const base = keys.journalsOfMerchant(merchantId, mode).SKPrefix;
  const partitions: Partition[] =
    q.reference !== undefined
      ? [{ index: 'GSI1', pk: keys.journalBySource(merchantId, mode, q.reference, '', '').GSI1PK, skPrefix: '', all: true }]
      : q.type !== undefined
        ? kindsOf(q.type).flatMap((kind) =>
            shards.map((n) => ({ index: 'GSI3' as const, pk: keys.journalByKind(merchantId, mode, kind, '', '', n).GSI3PK, skPrefix: '' })),
          )
        : shards.map((n) => ({ pk: keys.journalsOfMerchant(merchantId, mode, n).PK, skPrefix: base }));
  const pages = await Promise.all(
    partitions.map(({ index, pk, skPrefix, all }) => {
      const sk = index ? `${index}SK` : 'SK';
      return queryAll<Stored>(
        {
          ...(index ? { IndexName: index } : {}),
          KeyConditionExpression: '#pk = :pk AND #sk BETWEEN :lo AND :hi',
          ...(q.currency !== undefined ? { FilterExpression: '#currency = :currency' } : {}),
          ExpressionAttributeNames: {
            '#pk': index ? `${index}PK` : 'PK',
            '#sk': sk,
            ...(q.currency !== undefined ? { '#currency': 'currency' } : {}),
          },
          ExpressionAttributeValues: toValues({
            ':pk': pk,
            ':lo': skPrefix + lower,
            ':hi': skPrefix + upper,
            ...(q.currency !== undefined ? { ':currency': q.currency } : {}),
          }),
          ScanIndexForward: false,
        },
        // A source's journals are few and may be filtered by type here: all of them. Else +1 for hasMore, +1 for the cursor item.
        all ? Infinity : q.limit + 2,
      ).then((items) => items.map((i) => ({ position: String(i[sk as keyof Stored]).slice(skPrefix.length), journal: journalOf(i) })));
    }),
  );
  const merged = pages
    .flat()
    .filter((x) => !(exclusive && x.position === upper) && !(exclusiveLower && x.position === lower))
    .filter((x) => q.reference === undefined || q.type === undefined || balanceTypeOf(x.journal.kind) === q.type)
    .sort((a, b) => (a.position < b.position ? 1 : a.position > b.position ? -1 : 0));
  return { items: merged.slice(0, q.limit).map((x) => x.journal), hasMore: merged.length > q.limit };
}

/**
 * The journals at or after a position, newest first, every shard merged, at most `cap` (undefined:
 * more than `cap`): what a running balance needs between now and a page's last item.
 */
export async function journalsSince(merchantId: string, mode: Mode, position: string, cap: number): Promise<Journal[] | undefined> {
  const shards = await readShards(merchantId, mode);
  const base = keys.journalsOfMerchant(merchantId, mode).SKPrefix;
  const parts = await Promise.all(
    Array.from({ length: shards }, (_, n) =>
      queryAll<Stored>(
        {
          KeyConditionExpression: 'PK = :pk AND SK BETWEEN :lo AND :hi',
          ExpressionAttributeValues: toValues({
            ':pk': keys.journalsOfMerchant(merchantId, mode, n).PK,
            ':lo': base + position,
            ':hi': `${base}\uffff`,
          }),
          ScanIndexForward: false,
        },
        cap + 1,
      ),
    ),
  );
  const all = parts.flat();
  if (all.length > cap) return undefined;
  return all.sort((a, b) => (a.SK < b.SK ? 1 : a.SK > b.SK ? -1 : 0)).map(journalOf);
}

/**
 * Every journal of one currency positioned strictly between `after` (null: the beginning) and `before`, oldest first,
 * every shard merged: the movements a settlement covers (shared/domain/settlement-breakdown.ts). Query only; read once
 * per settlement, as its breakdown is then stored. Undefined when there are more than `cap`.
 */
export async function journalsBetween(
  merchantId: string,
  mode: Mode,
  currency: string,
  after: string | null,
  before: string,
  cap = Infinity,
): Promise<Journal[] | undefined> {
  const shards = await readShards(merchantId, mode);
  const base = keys.journalsOfMerchant(merchantId, mode).SKPrefix;
  const parts = await Promise.all(
    Array.from({ length: shards }, (_, n) =>
      queryAll<Stored>(
        {
          KeyConditionExpression: 'PK = :pk AND SK BETWEEN :lo AND :hi',
          FilterExpression: '#currency = :currency',
          ExpressionAttributeNames: { '#currency': 'currency' },
          ExpressionAttributeValues: toValues({
            ':pk': keys.journalsOfMerchant(merchantId, mode, n).PK,
            ':lo': base + (after ?? '0'),
            ':hi': base + before,
            ':currency': currency,
          }),
        },
        cap + 3, // one past what fits: a single shard holding more must be seen to hold more, not cut to cap + 2
      ),
    ),
  );
  if (parts.flat().length > cap + 2) return undefined; // more than `cap` (the bounds may add two)
  return parts
    .flat()
    .filter((j) => j.SK !== base + before && (after === null || j.SK !== base + after))
    .sort((a, b) => (a.SK < b.SK ? -1 : a.SK > b.SK ? 1 : 0))
    .map(journalOf);
}

/** Where a chunked read of a settlement's window stands on each wallet shard: '' not started, `done`, or the last key read. */
export const windowDone = '~done';

/**
 * Access pattern 8i: the next chunk of a settlement's window (as journalsBetween, one shard, at most `limit` journals
 * evaluated by one Query page from `cursor`): the journals of its currency and the shard's next cursor.
 */
export async function windowChunk(
  merchantId: string,
  mode: Mode,
  currency: string,
  window: { after: string | null; before: string },
  shard: number,
  cursor: string,
  limit: number,
): Promise<{ journals: Journal[]; cursor: string }> {
  const base = keys.journalsOfMerchant(merchantId, mode).SKPrefix;
  const pk = keys.journalsOfMerchant(merchantId, mode, shard).PK;
  const out = await db().send(
    new QueryCommand({
      TableName: tableName(),
      KeyConditionExpression: 'PK = :pk AND SK BETWEEN :lo AND :hi',
      FilterExpression: '#currency = :currency',
      ExpressionAttributeNames: { '#currency': 'currency' },
      ExpressionAttributeValues: toValues({
        ':pk': pk,
        ':lo': base + (window.after ?? '0'),
        ':hi': base + window.before,
        ':currency': currency,
      }),
      ExclusiveStartKey: cursor ? toItem({ PK: pk, SK: cursor }) : undefined,
      Limit: limit,
    }),
  );
  const journals = (out.Items ?? [])
    .map((i) => fromItem<Stored>(i))
    .filter((j) => j.SK !== base + window.before && (window.after === null || j.SK !== base + window.after))
    .map(journalOf);
  const next = out.LastEvaluatedKey ? fromItem<{ SK: string }>(out.LastEvaluatedKey).SK : windowDone;
  return { journals, cursor: next };
}

/** Migration (not a request path): give every journal its balance-transaction index keys, by Scan (`ops migrate-balance-index`). */
export async function backfillJournalIndex(): Promise<number> {
  let updated = 0;
  const missing = {
    FilterExpression: 'entity = :e AND attribute_not_exists(GSI3PK)',
    ExpressionAttributeValues: toValues({ ':e': 'Journal' }),
  };
  for await (const page of scanPages(missing)) {
    for (const raw of page) {
      const item = fromItem<Stored & { PK: string }>(raw);
      const shard = /#SHARD#(\d+)$/.exec(item.PK)?.[1];
      const want = journalIndexKeys(journalOf(item), shard ? Number(shard) : 0);
      const unindexed = { exists: true, expr: 'attribute_not_exists(#GSI3PK)' };
      const indexing = updateEntry('Journal', { PK: item.PK, SK: item.SK }, { set: want, when: unindexed });
      if (await applied(db().send(new UpdateItemCommand(indexing.Update!)))) updated++;
    }
  }
  return updated;
}
