import { randomUUID } from 'node:crypto';
import { PutItemCommand } from '@aws-sdk/client-dynamodb';
import type { BankFileBatch, BankFileLine } from '#shared/domain/bank-file.ts';
import type { Currency } from '#shared/domain/money.ts';
import { batchGetConsistent, db, fromItem, queryAll, toValues, transact, TransactionFailed, type TxItem } from './client.ts';
import { get, inPartition, putEntry, updateEntry } from './entity.ts';
import * as keys from './keys.ts';

/**
 * The bank transfer file rail's items (docs/providers/bank-file.md, docs/access-patterns.md BF1-BF7):
 * one line per rail reference (queued, then in exactly one file, then paid or failed), the files
 * (batches) with their digest, and the operator's audited steps on each file.
 */

const isConditionFailure = (error: unknown) => (error as { name?: string }).name === 'ConditionalCheckFailedException';

/** BF1: the line of a reference (GetItem, consistent). */
export async function getBankFileLine(reference: string): Promise<BankFileLine | undefined> {
  return get<BankFileLine>(keys.bankFileLine(reference));
}

const lineWrite = (line: BankFileLine) =>
  putEntry('BankFileLine', keys.bankFileLine(line.reference), {
    ...(line.state === 'queued' ? keys.bankFileQueued(line.bank, line.currency, line.queuedAt, line.reference) : {}),
    ...line,
  });

/**
 * BF2: the rail receives a line (PutItem if `attribute_not_exists(PK)`): queued, or the line already
 * stored under the reference (a second delivery of the same submission, or a void one: never queued then).
 */
export async function queueBankFileLine(line: BankFileLine): Promise<BankFileLine> {
  try {
    await db().send(new PutItemCommand(lineWrite(line).Put!));
    return line;
  } catch (error) {
    if (!isConditionFailure(error)) throw error;
    return (await getBankFileLine(line.reference))!;
  }
}

/**
 * BF3: a reference the rail has no line for becomes void (PutItem if `attribute_not_exists(PK)`), so a
 * submission arriving later is never queued: the rail's NotFound stays true. Returns the line as stored.
 */
export async function voidBankFileLine(reference: string, now: Date): Promise<BankFileLine | undefined> {
  try {
    const voided = putEntry('BankFileLine', keys.bankFileLine(reference), { reference, state: 'void', markedAt: now.toISOString() });
    await db().send(new PutItemCommand(voided.Put!));
    return undefined;
  } catch (error) {
    if (!isConditionFailure(error)) throw error;
    return getBankFileLine(reference);
  }
}

/** BF4: the queued lines of a bank and currency, oldest first (GSI1 query, then the lines read consistently). */
export async function queuedBankFileLines(bank: string, currency: Currency, limit: number): Promise<BankFileLine[]> {
  const entries = await queryAll<{ reference: string }>(
    {
      IndexName: 'GSI1',
      KeyConditionExpression: 'GSI1PK = :pk',
      ExpressionAttributeValues: toValues({ ':pk': keys.bankFileQueue(bank, currency).GSI1PK }),
      ExpressionAttributeNames: { '#reference': 'reference' },
      ProjectionExpression: '#reference',
    },
    limit * 2,
  );
  const lines = (await batchGetConsistent(entries.map((e) => keys.bankFileLine(e.reference)))).map((i) => fromItem<BankFileLine>(i));
  return lines
    .filter((l) => l.state === 'queued')
    .sort((a, b) => a.queuedAt.localeCompare(b.queuedAt) || a.reference.localeCompare(b.reference))
    .slice(0, limit);
}

/** An operator's step on a file (export, reprint, a line marked): who, when, the file's digest, what. */
export interface BankFileAudit {
  batchId: string;
  at: string;
  actor: string;
  action: 'exported' | 'reprinted' | 'line.paid' | 'line.failed';
  digest: string;
  reference?: string;
  detail?: string;
}

const auditPut = (entry: BankFileAudit): TxItem =>
  putEntry('BankFileAudit', keys.bankFileAudit(entry.batchId, entry.at, randomUUID()), { ...entry }, { when: false });

/**
 * BF5: a new file, in ONE transaction: the batch (new) and each of its lines moved queued → exported
 * (each `state = queued`, leaving the queue index), with the audit entry. Refused (TransactionFailed) if
 * any line left the queue meanwhile: the caller reads the queue again.
 */
export async function createBankFileBatch(batch: BankFileBatch, audit: BankFileAudit): Promise<void> {
  const lineUpdates = batch.references.map((reference) =>
    updateEntry('BankFileLine', keys.bankFileLine(reference), {
      set: { state: 'exported', batchId: batch.batchId, exportedAt: batch.createdAt },
      remove: ['GSI1PK', 'GSI1SK'],
      when: { eq: { state: 'queued' } },
    }),
  );
  const listing = keys.bankFileBatchListing(batch.bank, batch.currency, batch.createdAt, batch.batchId);
  await transact([putEntry('BankFileBatch', keys.bankFileBatch(batch.batchId), { ...listing, ...batch }), ...lineUpdates, auditPut(audit)]);
}

/** BF6: a file by its id (GetItem, consistent). */
export async function getBankFileBatch(batchId: string): Promise<BankFileBatch | undefined> {
  return get<BankFileBatch>(keys.bankFileBatch(batchId));
}

/** BF6: the files of a bank and currency, newest first (GSI1). */
export async function listBankFileBatches(bank: string, currency: Currency, limit = 20): Promise<BankFileBatch[]> {
  return queryAll<BankFileBatch>(
    {
      IndexName: 'GSI1',
      KeyConditionExpression: 'GSI1PK = :pk',
      ExpressionAttributeValues: toValues({ ':pk': keys.bankFileBatches(bank, currency).GSI1PK }),
      ScanIndexForward: false,
    },
    limit,
  );
}

/** The lines of a file, in file order (consistent). */
export async function linesOfBatch(batch: BankFileBatch): Promise<BankFileLine[]> {
  const found = new Map(
    (await batchGetConsistent(batch.references.map((r) => keys.bankFileLine(r)))).map((i) => {
      const line = fromItem<BankFileLine>(i);
      return [line.reference, line] as const;
    }),
  );
  return batch.references.map((r) => found.get(r)).filter((l): l is BankFileLine => l !== undefined);
}

/** A reprint of a file (its own PutItem: nothing else changes). */
export async function auditBankFile(entry: BankFileAudit): Promise<void> {
  await db().send(new PutItemCommand(auditPut(entry).Put!));
}

/** BF7: the operator's steps on a file, oldest first. */
export const bankFileAuditOf = (batchId: string) => queryAll<BankFileAudit>(inPartition(keys.bankFileAuditOf(batchId)));

/**
 * BF8: a line of a file marked paid or failed, once, with its audit entry, in ONE transaction
 * (UpdateItem if `state = exported AND batchId = :batch`). False when the condition refused it (the line
 * was marked already, or is in no such file): the caller reads the line to tell which.
 */
export async function markBankFileLine(
  reference: string,
  batchId: string,
  outcome: { state: 'paid'; bankReference: string } | { state: 'failed'; failureReason: string },
  audit: BankFileAudit,
): Promise<boolean> {
  const set = outcome.state === 'paid' ? { bankReference: outcome.bankReference } : { failureReason: outcome.failureReason };
  try {
    await transact([
      updateEntry('BankFileLine', keys.bankFileLine(reference), {
        set: { state: outcome.state, markedAt: audit.at, markedBy: audit.actor, ...set },
        when: { eq: { state: 'exported', batchId } },
      }),
      auditPut(audit),
    ]);
    return true;
  } catch (error) {
    if (error instanceof TransactionFailed && error.failedAt(0)) return false;
    throw error;
  }
}
