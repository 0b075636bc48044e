import { createHash } from 'node:crypto';
import { BatchGetItemCommand, GetItemCommand, TransactGetItemsCommand, TransactionCanceledException } from '@aws-sdk/client-dynamodb';
import type { Mode } from '#shared/domain/credentials.ts';
import { holdTypes, type Journal, type WalletDelta } from '#shared/domain/ledger.ts';
import type { Currency } from '#shared/domain/money.ts';
import { db, fromItem, named, queryAll, tableName, toItem, toValues, transact, TransactionFailed, type TxItem } from './client.ts';
import { keys } from './keys.ts';
import { readShards, shardOf, writeShards } from './shards.ts';

/**
 * Wallet shards (docs/scaling.md). A merchant with one shard (every merchant until an operator
 * raises it: `ops shards raise`) has exactly the one wallet item and journals it always had. A big
 * merchant's wallet is N items of the same account: shard 0 (the original item) carries every debit
 * and hold, with the no-overdraft condition; credits (a paid checkout, a deposit, an operator
 * credit) go to a shard chosen per journal, unconditionally (an ADD, never refused), each with its
 * journal in the shard's own partition. The balance is the sum of the shards, read in ONE call (a
 * TransactGetItems when it must be exact, so a rebalance in flight is never counted twice). When a
 * debit finds shard 0 short, rebalanceWallet() moves every credit shard's available into shard 0
 * in one transaction (conditioned per shard) and the debit runs again (withFunds).
 */

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
  const variant = ((parseInt(h.slice(16, 17), 16) & 3) | 8).toString(16);
  return `${h.slice(0, 8)}-${h.slice(8, 12)}-5${h.slice(13, 16)}-${variant}${h.slice(17, 20)}-${h.slice(20, 32)}`;
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

/** The shards' items summed: one wallet item's worth (balances by attribute). */
export function sumWalletItems<T extends Record<string, unknown>>(items: T[]): T | undefined {
  if (items.length === 0) return undefined;
  const sum: Record<string, unknown> = { ...items[0] };
  for (const item of items.slice(1)) {
    for (const [attribute, value] of Object.entries(item)) {
      if (
        typeof value === 'number' &&
        (attribute === 'available' || attribute === 'held' || attribute === 'pendingCount' || attribute.startsWith('held_'))
      ) {
        sum[attribute] = ((sum[attribute] as number | undefined) ?? 0) + value;
      } else if (attribute === 'updatedAt' && typeof value === 'string' && (typeof sum.updatedAt !== 'string' || value > sum.updatedAt))
        sum.updatedAt = value;
      else if (!(attribute in sum)) sum[attribute] = value;
    }
  }
  return sum as T;
}

/** Every shard's item of one wallet, in ONE call: TransactGetItems (a snapshot) when consistent, else BatchGetItem. */
async function readWalletShards(
  merchantId: string,
  mode: Mode,
  currency: Currency,
  shards: number,
  consistent: boolean,
): Promise<(WalletItem | undefined)[]> {
  const shardKeys = Array.from({ length: shards }, (_, n) => keys.walletShard(merchantId, mode, currency, n));
  if (consistent) {
    for (let attempt = 1; ; attempt++) {
      try {
        const out = await db().send(
          new TransactGetItemsCommand({ TransactItems: shardKeys.map((k) => ({ Get: { TableName: tableName(), Key: toItem(k) } })) }),
        );
        return (out.Responses ?? []).map((r) => (r.Item ? fromItem<WalletItem>(r.Item) : undefined));
      } catch (error) {
        // A transaction writing one of the shards at this moment: read again (nothing was read).
        if (!(error instanceof TransactionCanceledException) || attempt >= 10) throw error;
        await new Promise((resolve) => setTimeout(resolve, Math.random() * 20 * attempt));
      }
    }
  }
  const found = new Map<string, WalletItem>();
  let requested = shardKeys.map((k) => toItem(k));
  while (requested.length) {
    const out = await db().send(new BatchGetItemCommand({ RequestItems: { [tableName()]: { Keys: requested } } }));
    for (const raw of out.Responses?.[tableName()] ?? []) {
      const item = fromItem<WalletItem & { PK: string }>(raw);
      found.set(item.PK, item);
    }
    requested = out.UnprocessedKeys?.[tableName()]?.Keys ?? [];
  }
  return shardKeys.map((k) => found.get(k.PK));
}

/**
 * Access pattern: wallet of a merchant, mode and currency (GetItem; a sharded wallet: its shards in one TransactGetItems/BatchGetItem,
 * summed).
 */
export async function getWallet(merchantId: string, mode: Mode, currency: Currency, consistent = false): Promise<WalletRecord> {
  const shards = await readShards(merchantId, mode);
  if (shards > 1) {
    const items = (await readWalletShards(merchantId, mode, currency, shards, consistent)).filter((i): i is WalletItem => i !== undefined);
    return toRecord(merchantId, mode, currency, sumWalletItems(items));
  }
  const out = await db().send(
    new GetItemCommand({ TableName: tableName(), Key: toItem(keys.wallet(merchantId, mode, currency)), ConsistentRead: consistent }),
  );
  return toRecord(merchantId, mode, currency, out.Item ? fromItem<WalletItem>(out.Item) : undefined);
}

/**
 * Access pattern: a merchant's wallets in one mode, every currency (the dashboard's balances): each shard partition's wallets, summed by
 * currency.
 */
export async function listWallets(merchantId: string, mode: Mode): Promise<WalletRecord[]> {
  const shards = await readShards(merchantId, mode);
  const byCurrency = new Map<string, WalletItem[]>();
  for (let n = 0; n < shards; n++) {
    const k = keys.walletsOfMerchant(merchantId, mode, n);
    const items = await queryAll<WalletItem & { SK: string }>({
      KeyConditionExpression: 'PK = :pk AND begins_with(SK, :sk)',
      ExpressionAttributeValues: toValues({ ':pk': k.PK, ':sk': k.SKPrefix }),
    });
    for (const item of items)
      byCurrency.set(item.SK.slice(k.SKPrefix.length), [...(byCurrency.get(item.SK.slice(k.SKPrefix.length)) ?? []), item]);
  }
  return [...byCurrency].map(([currency, items]) => toRecord(merchantId, mode, currency as Currency, sumWalletItems(items)));
}

/**
 * A sharded wallet's credit shards moved into shard 0, where debits are taken: ONE transaction,
 * each shard's move conditioned on what was read (so a concurrent rebalance makes this one change
 * nothing). Not a ledger movement: the money stays in the same account, so no journal. Returns
 * the amount moved (0: nothing to move, one shard, or another rebalance won).
 */
export async function rebalanceWallet(merchantId: string, mode: Mode, currency: Currency, now = new Date()): Promise<number> {
  return (await rebalance(merchantId, mode, currency, now)).moved;
}

/** The rebalance, also telling whether its snapshot found every credit shard empty. */
async function rebalance(merchantId: string, mode: Mode, currency: Currency, now = new Date()): Promise<{ moved: number; empty: boolean }> {
  const shards = await readShards(merchantId, mode);
  if (shards <= 1) return { moved: 0, empty: true };
  let items: (WalletItem | undefined)[];
  try {
    items = await readWalletShards(merchantId, mode, currency, shards, true);
  } catch (error) {
    if (error instanceof TransactionCanceledException) return { moved: 0, empty: false }; // shards busy: look again
    throw error;
  }
  const moves = items.map((item, n) => ({ n, amount: item?.available ?? 0 })).filter((m) => m.n > 0 && m.amount > 0);
  const total = moves.reduce((a, m) => a + m.amount, 0);
  if (total === 0) return { moved: 0, empty: true };
  const at = now.toISOString();
  const update = (n: number, amount: number, condition: boolean): TxItem => ({
    Update: {
      TableName: tableName(),
      Key: toItem(keys.walletShard(merchantId, mode, currency, n)),
      UpdateExpression: 'SET updatedAt = :now, entity = :entity, merchantId = :m, #mode = :mode, currency = :c ADD available :amount',
      ...(condition ? { ConditionExpression: 'available >= :need' } : {}),
      ExpressionAttributeNames: { '#mode': 'mode' },
      ExpressionAttributeValues: toValues({
        ':now': at,
        ':entity': 'Wallet',
        ':m': merchantId,
        ':mode': mode,
        ':c': currency,
        ':amount': condition ? -amount : amount,
        ...(condition ? { ':need': amount } : {}),
      }),
    },
  });
  try {
    await transact([...moves.map((m) => update(m.n, m.amount, true)), update(0, total, false)]);
  } catch (error) {
    // another rebalance moved it first, or contention: look again
    if (error instanceof TransactionFailed) return { moved: 0, empty: false };
    throw error;
  }
  return { moved: total, empty: false };
}

/**
 * Runs a transaction that debits a wallet (a hold: withdrawal, settlement, refund). When its wallet
 * condition refuses and the wallet is sharded, the credit shards are moved into shard 0 and it runs
 * again: the no-overdraft rule stays the database condition on shard 0. It is a real shortfall
 * (the refusal is rethrown) once an attempt made after a snapshot that found every credit shard
 * empty is refused too. One shard: exactly the one attempt it always was.
 */
type WalletRef = { merchantId: string; mode: Mode; currency: Currency };
export async function withFunds<T>(of: WalletRef | (() => Promise<WalletRef | undefined>), run: () => Promise<T>): Promise<T> {
  let emptySeen = false;
  for (let attempt = 0; ; attempt++) {
    try {
      return await run();
    } catch (error) {
      if (!(error instanceof TransactionFailed && error.on('wallet')) || emptySeen || attempt >= 12) throw error;
      const wallet = typeof of === 'function' ? await of() : of; // read only when refused
      if (!wallet || (await readShards(wallet.merchantId, wallet.mode)) <= 1) throw error;
      const r = await rebalance(wallet.merchantId, wallet.mode, wallet.currency);
      emptySeen = r.empty;
      if (!r.empty && r.moved === 0) await new Promise((resolve) => setTimeout(resolve, Math.random() * 20 * (attempt + 1)));
    }
  }
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
  // A credit (available only grows, nothing held moves) goes to a shard of a sharded wallet; every
  // other movement to shard 0, which holds the held buckets and takes every debit. The journal
  // item goes to its own shard's partition either way, so debits put only the wallet write on
  // shard 0's partition (one shard: shard 0, exactly as before).
  const credit = delta.available > 0 && heldTotal === 0 && countDelta === 0 && Object.values(delta.held).every((v) => !v);
  const journalShard = shardOf(journal.journalId, writeShards(journal.merchantId, journal.mode));
  const shard = credit ? journalShard : 0;
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
          ...keys.journal(journal.merchantId, journal.mode, journal.createdAt, journal.journalId, journalShard),
          entity: 'Journal',
          ...journal,
        }),
        ConditionExpression: 'attribute_not_exists(PK)',
      },
    }),
  ];
  if (adds.length > 0) {
    writes.push(
      named('wallet', {
        Update: {
          TableName: tableName(),
          Key: toItem(keys.walletShard(journal.merchantId, journal.mode, journal.currency, shard)),
          UpdateExpression:
            `SET #updatedAt = :now, entity = :entity, merchantId = :merchantId, ` +
            `#mode = :mode, currency = :currency ADD ${adds.join(', ')}`,
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
      }),
    );
  }
  return writes;
}

/** Index of the wallet update inside postJournal's writes (to read its cancellation reason). */
export const walletWriteIndex = 1;

/** Access pattern: a merchant's journals in one mode, oldest first (audit, zero-sum checks): every shard partition's, merged. */
export async function listJournals(merchantId: string, mode: Mode): Promise<Journal[]> {
  const shards = await readShards(merchantId, mode);
  const parts = await Promise.all(
    Array.from({ length: shards }, (_, n) => {
      const k = keys.journalsOfMerchant(merchantId, mode, n);
      return queryAll<Journal & { SK: string }>({
        KeyConditionExpression: 'PK = :pk AND begins_with(SK, :sk)',
        ExpressionAttributeValues: toValues({ ':pk': k.PK, ':sk': k.SKPrefix }),
      });
    }),
  );
  if (parts.length === 1) return parts[0]!;
  return parts.flat().sort((a, b) => (a.SK < b.SK ? -1 : a.SK > b.SK ? 1 : 0));
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
      Item: toItem({
        ...keys.operatorReference(merchantId, mode, command, record.reference),
        entity: 'OperatorReference',
        command,
        ...record,
      }),
      ConditionExpression: 'attribute_not_exists(PK)',
      ReturnValuesOnConditionCheckFailure: 'ALL_OLD',
    },
  };
}
