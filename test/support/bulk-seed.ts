import { BatchWriteItemCommand, UpdateItemCommand, type AttributeValue } from '@aws-sdk/client-dynamodb';
import { tableDefinition } from '#shared/store/table.ts';
import { db, type TxItem } from '#shared/store/client.ts';

const notExists = 'attribute_not_exists(PK)';

/**
 * Seeds many NEW items with few requests: the EXACT puts a store builder returns for one transaction
 * each (createIntentWrites, createSettlementWrite, a journal of postJournal), written as BatchWriteItem
 * puts (25 a request, 8 requests at a time). Only puts whose one condition is that the item does not
 * exist yet, for fresh test merchants and new ids: that condition holds by construction, and two puts
 * of one key in the set are refused here (a batch would overwrite where the transactions were refused).
 */
export async function seedPuts(writes: TxItem[]) {
  const keys = new Set<string>();
  const puts = writes.map((w) => {
    const put = w.Put;
    if (!put || Object.keys(w).length !== 1 || (put.ConditionExpression ?? notExists) !== notExists) {
      throw new Error('seedPuts takes puts of new items only (no condition but attribute_not_exists(PK))');
    }
    const key = JSON.stringify([put.TableName, put.Item?.[tableDefinition.partitionKey], put.Item?.[tableDefinition.sortKey]]);
    if (keys.has(key)) throw new Error(`seedPuts: two puts of one key ${key}`);
    keys.add(key);
    return put;
  });
  const batches = [];
  for (let i = 0; i < puts.length; i += 25) batches.push(puts.slice(i, i + 25));
  for (let i = 0; i < batches.length; i += 8) {
    await Promise.all(
      batches.slice(i, i + 8).map((b) =>
        writeBatch(
          b.map((p) => ({ PutRequest: { Item: p.Item } })),
          b[0]!.TableName!,
        ),
      ),
    );
  }
}

/**
 * Seeds many journals with few requests: the EXACT items shared/store's postJournal builds, the
 * journals through seedPuts and one UpdateItem per wallet shard whose ADDs are the sum of theirs (SET
 * values from the latest journal, by its :updatedAt). About 25 times fewer requests than one transaction a
 * journal; only for fresh test merchants (no concurrent writer, new journal ids, so postJournal's
 * conditions hold by construction and are not re-checked item by item).
 */
export async function seedJournals(postings: TxItem[][]) {
  const puts = postings.flatMap((p) => p.filter((w) => w.Put));
  const updates = new Map<string, NonNullable<TxItem['Update']>[]>();
  for (const u of postings.flatMap((p) => p.flatMap((w) => (w.Update ? [w.Update] : [])))) {
    if (Object.keys(u.ExpressionAttributeValues ?? {}).some((v) => v.endsWith('Need'))) throw new Error('seedJournals seeds credits only');
    const key = JSON.stringify([u.Key, u.UpdateExpression, u.ConditionExpression]);
    updates.set(key, [...(updates.get(key) ?? []), u]);
  }
  if (puts.length + postings.flatMap((p) => p.filter((w) => w.Update)).length !== postings.flat().length) {
    throw new Error('seedJournals takes postJournal writes only (puts and updates)');
  }
  await seedPuts(puts);
  for (const group of updates.values()) {
    const latest = group.reduce((a, b) =>
      b.ExpressionAttributeValues![':updatedAt']!.S! > a.ExpressionAttributeValues![':updatedAt']!.S! ? b : a,
    );
    const added = /ADD (.*)$/
      .exec(latest.UpdateExpression!)![1]!
      .split(', ')
      .map((a) => a.split(' ')[1]!);
    const values: Record<string, AttributeValue> = { ...latest.ExpressionAttributeValues };
    for (const token of added) {
      values[token] = { N: String(group.reduce((s, u) => s + Number(u.ExpressionAttributeValues![token]!.N), 0)) };
    }
    const { ReturnValuesOnConditionCheckFailure: _, ...update } = latest;
    await db().send(new UpdateItemCommand({ ...update, ExpressionAttributeValues: values }));
  }
}

async function writeBatch(requests: { PutRequest: { Item: Record<string, AttributeValue> | undefined } }[], table: string) {
  let pending = requests;
  while (pending.length > 0) {
    const r = await db().send(new BatchWriteItemCommand({ RequestItems: { [table]: pending as never } }));
    pending = (r.UnprocessedItems?.[table] ?? []) as typeof pending;
  }
}
