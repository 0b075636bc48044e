import { createHash } from 'node:crypto';
import { GetItemCommand } from '@aws-sdk/client-dynamodb';
import type { Mode } from '#shared/domain/credentials.ts';
import { holdTypes, type Journal, type WalletDelta } from '#shared/domain/ledger.ts';
import type { Currency } from '#shared/domain/money.ts';
import { db, fromItem, named, queryAll, tableName, toItem, toValues, type TxItem } from './client.ts';
import { keys } from './keys.ts';

/** Materialised wallet balance of one merchant, mode and currency (minor units). */
export interface WalletRecord {
  walletId: string;
  merchantId: string;
  mode: Mode;
  currency: Currency;
  available: number;
  held: number;
  heldByType: Record<string, number>;
  pendingCount: number;
  updatedAt: string | null;
}

/** A stable wallet id derived from its owner, so a wallet has an id before its first movement. */
export function walletIdFor(merchantId: string, mode: Mode, currency: string): string {
  const h = createHash('sha256').update(`wallet:${merchantId}:${mode}:${currency}`).digest('hex');
  return `${h.slice(0, 8)}-${h.slice(8, 12)}-5${h.slice(13, 16)}-${((parseInt(h.slice(16, 17), 16) & 3) | 8).toString(16)}${h.slice(17, 20)}-${h.slice(20, 32)}`;
}

type WalletItem = Partial<Record<string, unknown>> & { available?: number; held?: number; pendingCount?: number; updatedAt?: string };

function toRecord(merchantId: string, mode: Mode, currency: Currency, item: WalletItem | undefined): WalletRecord {
  return {
    walletId: walletIdFor(merchantId, mode, currency),
    merchantId,
    mode,
    currency,
    available: item?.available ?? 0,
    held: item?.held ?? 0,
    heldByType: Object.fromEntries(holdTypes.map((t) => [t, (item?.[`held_${t}`] as number | undefined) ?? 0])),
    pendingCount: item?.pendingCount ?? 0,
    updatedAt: item?.updatedAt ?? null,
  };
}

/** Access pattern: wallet of a merchant, mode and currency (GetItem). */
export async function getWallet(merchantId: string, mode: Mode, currency: Currency, consistent = false): Promise<WalletRecord> {
  const out = await db().send(
    new GetItemCommand({ TableName: tableName(), Key: toItem(keys.wallet(merchantId, mode, currency)), ConsistentRead: consistent }),
  );
  return toRecord(merchantId, mode, currency, out.Item ? fromItem<WalletItem>(out.Item) : undefined);
}

/** Access pattern: a merchant's wallets in one mode, every currency (the dashboard's balances). */
export async function listWallets(merchantId: string, mode: Mode): Promise<WalletRecord[]> {
  const k = keys.walletsOfMerchant(merchantId, mode);
  const items = await queryAll<WalletItem & { SK: string }>({ KeyConditionExpression: 'PK = :pk AND begins_with(SK, :sk)', ExpressionAttributeValues: toValues({ ':pk': k.PK, ':sk': k.SKPrefix }) });
  return items.map((item) => toRecord(merchantId, mode, item.SK.slice(k.SKPrefix.length) as Currency, item));
}

/**
 * The writes that post a journal: the journal item (never overwritten) and one wallet update whose
 * condition refuses any movement that would take `available` or a held bucket below zero.
 * Callers add these to the same TransactWriteItems as their business change.
 */
export function postJournal(entry: { journal: Journal; delta: WalletDelta }): TxItem[] {
  const { journal, delta } = entry;
  const names: Record<string, string> = { '#updatedAt': 'updatedAt' };
  const values: Record<string, unknown> = { ':now': journal.createdAt };
  const adds: string[] = [];
  const conditions: string[] = [];
  let heldTotal = 0;
  let countDelta = 0;

  const move = (attribute: string, amount: number, token: string) => {
    names[`#${token}`] = attribute;
    values[`:${token}`] = amount;
    adds.push(`#${token} :${token}`);
    if (amount < 0) {
      values[`:${token}Need`] = -amount;
      conditions.push(`#${token} >= :${token}Need`);
    }
  };

  if (delta.available !== 0) move('available', delta.available, 'available');
  for (const [type, amount] of Object.entries(delta.held)) {
    if (!amount) continue;
    move(`held_${type}`, amount, `held${type}`);
    heldTotal += amount;
    countDelta += Math.sign(amount);
  }
  if (heldTotal !== 0) move('held', heldTotal, 'held');
  if (countDelta !== 0) {
    names['#pendingCount'] = 'pendingCount';
    values[':pendingCount'] = countDelta;
    adds.push('#pendingCount :pendingCount');
  }

  const writes: TxItem[] = [
    named('journal', {
      Put: {
        TableName: tableName(),
        Item: toItem({
          ...keys.journal(journal.merchantId, journal.mode, journal.createdAt, journal.journalId),
          entity: 'Journal',
          ...journal,
        }),
        ConditionExpression: 'attribute_not_exists(PK)',
      },
    }),
  ];
  if (adds.length > 0) {
    writes.push(named('wallet', {
      Update: {
        TableName: tableName(),
        Key: toItem(keys.wallet(journal.merchantId, journal.mode, journal.currency)),
        UpdateExpression: `SET #updatedAt = :now, entity = :entity, merchantId = :merchantId, #mode = :mode, currency = :currency ADD ${adds.join(', ')}`,
        ...(conditions.length ? { ConditionExpression: conditions.join(' AND ') } : {}),
        ExpressionAttributeNames: { ...names, '#mode': 'mode' },
        ExpressionAttributeValues: toValues({
          ...values,
          ':entity': 'Wallet',
          ':merchantId': journal.merchantId,
          ':mode': journal.mode,
          ':currency': journal.currency,
        }),
      },
    }));
  }
  return writes;
}

/** Index of the wallet update inside postJournal's writes (to read its cancellation reason). */
export const walletWriteIndex = 1;

/** Access pattern: a merchant's journals in one mode, oldest first (audit, zero-sum checks). */
export async function listJournals(merchantId: string, mode: Mode): Promise<Journal[]> {
  const k = keys.journalsOfMerchant(merchantId, mode);
  return queryAll<Journal>({ KeyConditionExpression: 'PK = :pk AND begins_with(SK, :sk)', ExpressionAttributeValues: toValues({ ':pk': k.PK, ':sk': k.SKPrefix }) });
}

/** What an operator reference recorded: the command's outcome, so a retry can report it. */
export interface OperatorReferenceRecord {
  reference: string;
  journalId: string;
  amountMinor: number;
  currency: Currency;
  createdAt: string;
}

/**
 * The write that makes an operator command with `--reference` happen once: goes into the same
 * transaction as the command's journal and fails (returning the first run's record) if it ran before.
 */
export function operatorReferenceWrite(merchantId: string, mode: Mode, command: string, record: OperatorReferenceRecord): TxItem {
  return {
    Put: {
      TableName: tableName(),
      Item: toItem({ ...keys.operatorReference(merchantId, mode, command, record.reference), entity: 'OperatorReference', command, ...record }),
      ConditionExpression: 'attribute_not_exists(PK)',
      ReturnValuesOnConditionCheckFailure: 'ALL_OLD',
    },
  };
}
