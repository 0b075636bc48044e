import { BatchWriteItemCommand, UpdateItemCommand, type AttributeValue } from '@aws-sdk/client-dynamodb';
import { db, type TxItem } from '#shared/store/client.ts';

/**
 * Seeds many journals with few requests: the EXACT items shared/store's postJournal builds, written as
 * BatchWriteItem puts (25 a request) for the journals and one UpdateItem per wallet shard whose ADDs
 * are the sum of theirs (SET values from the latest journal, by :now). About 25 times fewer requests
 * than one transaction a journal; only for fresh test merchants (no concurrent writer, new journal ids,
 * so postJournal's conditions hold by construction and are not re-checked item by item).
 */
export async function seedJournals(postings: TxItem[][]) {
  const puts = postings.flatMap((p) => p.flatMap((w) => (w.Put ? [w.Put] : [])));
  const updates = new Map<string, NonNullable<TxItem['Update']>[]>();
  for (const u of postings.flatMap((p) => p.flatMap((w) => (w.Update ? [w.Update] : [])))) {
    if (Object.keys(u.ExpressionAttributeValues ?? {}).some((v) => v.endsWith('Need'))) throw new Error('seedJournals seeds credits only');
    const key = JSON.stringify([u.Key, u.UpdateExpression, u.ConditionExpression]);
    updates.set(key, [...(updates.get(key) ?? []), u]);
  }
  if (puts.length + postings.flatMap((p) => p.filter((w) => w.Update)).length !== postings.flat().length) {
    throw new Error('seedJournals takes postJournal writes only (puts and updates)');
  }
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
  for (const group of updates.values()) {
    const latest = group.reduce((a, b) => (b.ExpressionAttributeValues![':now']!.S! > a.ExpressionAttributeValues![':now']!.S! ? b : a));
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
