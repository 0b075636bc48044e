import type { Mode } from '#shared/domain/credentials.ts';
import { UpdateItemCommand } from '@aws-sdk/client-dynamodb';
import { db, fromItem, queryAll, scanPages, toValues } from './client.ts';
import { applied, updateEntry } from './entity.ts';
import * as keys from './keys.ts';
import { readShards } from './shards.ts';

/**
 * The reference index (docs/access-patterns.md 13h, 13i): the dashboard finds payments by the
 * beginning of their orderRef, transaction reference or payment id. No new item and no new index:
 * the orderRef and transaction-reference pointers every intent already gets in its create
 * transaction (pattern 10) carry GSI1 keys `MERCHANT#<id>#<mode>#REFS` / <normalized reference>,
 * and the transaction-reference pointer also GSI3 keys with the same partition / <payment id>. A
 * search is one bounded `begins_with` Query per index and shard (GSI3 only when the text can begin a
 * payment id), then the intents by id. Never a Scan, never a filter over all payments.
 */
export const normalizeReference = (text: string) => text.trim().toLowerCase();

/** GSI keys of an intent's orderRef pointer. */
export const orderRefIndexKeys = (merchantId: string, mode: Mode, orderRef: string, shard: number) =>
  keys.referenceSearch(merchantId, mode, normalizeReference(orderRef), shard);

/** GSI keys of an intent's transaction-reference pointer (its reference on GSI1, the payment id on GSI3). */
export const transactionReferenceIndexKeys = (
  merchantId: string,
  mode: Mode,
  reference: string,
  paymentIntentId: string,
  shard: number,
) => ({
  ...keys.referenceSearch(merchantId, mode, normalizeReference(reference), shard),
  ...keys.paymentIdSearch(merchantId, mode, paymentIntentId, shard),
});

/** What can begin a payment id (a UUID, lower-case once normalized). */
const paymentIdPrefix = /^[0-9a-f-]{1,36}$/;

/**
 * Access pattern 13h: ids of the payments whose orderRef, transaction reference or payment id begins
 * with `text` (case-insensitive), in reference order, at most `limit`; `more` when there are others.
 */
export async function searchReferences(
  merchantId: string,
  mode: Mode,
  text: string,
  limit: number,
): Promise<{ ids: string[]; more: boolean }> {
  const prefix = normalizeReference(text);
  if (!prefix) return { ids: [], more: false };
  const shards = await readShards(merchantId, mode);
  const query = (index: 'GSI1' | 'GSI3', shard: number) =>
    queryAll<{ sk: string; paymentIntentId: string }>(
      {
        IndexName: index,
        KeyConditionExpression: '#pk = :pk AND begins_with(#sk, :prefix)',
        ExpressionAttributeNames: { '#pk': `${index}PK`, '#sk': `${index}SK`, '#id': 'paymentIntentId' },
        ExpressionAttributeValues: toValues({ ':pk': keys.referencesOfMerchant(merchantId, mode, shard), ':prefix': prefix }),
        ProjectionExpression: '#sk, #id',
      },
      limit + 1,
    ).then((items) => items.map((i) => ({ sk: String((i as Record<string, unknown>)[`${index}SK`]), id: i.paymentIntentId })));
  const rounds = [];
  for (let shard = 0; shard < shards; shard++) {
    rounds.push(query('GSI1', shard));
    if (paymentIdPrefix.test(prefix)) rounds.push(query('GSI3', shard));
  }
  const results = await Promise.all(rounds);
  const ids = [
    ...new Set(
      results
        .flat()
        .sort((a, b) => (a.sk < b.sk ? -1 : a.sk > b.sk ? 1 : a.id < b.id ? -1 : 1))
        .map((h) => h.id),
    ),
  ];
  return { ids: ids.slice(0, limit), more: ids.length > limit || results.some((r) => r.length > limit) };
}

/**
 * Migration 13i (not a request path; `ops migrate-reference-index`): give every orderRef and
 * transaction-reference pointer written before the prefix search its index keys, by Scan and one
 * conditional UpdateItem per pointer without them (in shard 0, which readers always read). Safe to
 * re-run and to run while payments are created (the keys never change once set). Returns how many
 * pointers it indexed.
 */
export async function backfillReferenceIndex(): Promise<number> {
  let updated = 0;
  const missing = {
    FilterExpression: 'entity IN (:o, :t) AND attribute_not_exists(GSI1PK)',
    ExpressionAttributeValues: toValues({ ':o': 'OrderRef', ':t': 'TxRef' }),
  };
  for await (const page of scanPages(missing)) {
    for (const raw of page) {
      const p = fromItem<{ PK: string; SK: string; entity: string; merchantId: string; mode: Mode; paymentIntentId: string }>(raw);
      const head = `${p.entity === 'OrderRef' ? 'ORDERREF' : 'TXREF'}#${p.mode}#${p.merchantId}#`;
      if (!p.PK.startsWith(head)) continue;
      const reference = p.PK.slice(head.length);
      const want: Record<string, string> =
        p.entity === 'OrderRef'
          ? orderRefIndexKeys(p.merchantId, p.mode, reference, 0)
          : transactionReferenceIndexKeys(p.merchantId, p.mode, reference, p.paymentIntentId, 0);
      const unindexed = { exists: true, expr: 'attribute_not_exists(#GSI1PK)' }; // else indexed meanwhile
      const indexing = updateEntry(p.entity, { PK: p.PK, SK: p.SK }, { set: want, when: unindexed });
      if (await applied(db().send(new UpdateItemCommand(indexing.Update!)))) updated++;
    }
  }
  return updated;
}
