import { createHash } from 'node:crypto';
import { again, pause, retry, retryPolicies } from '#shared/retry.ts';
import * as hold from '#shared/domain/core/hold-placement.ts';
import { BatchGetItemCommand, TransactGetItemsCommand, TransactionCanceledException } from '@aws-sdk/client-dynamodb';
import type { Mode } from '#shared/domain/credentials.ts';
import { holdTypes, type Journal, type WalletDelta } from '#shared/domain/ledger.ts';
import type { Currency } from '#shared/domain/money.ts';
import { ConflictError } from '#shared/domain/errors.ts';
import {
  cutoffRefused,
  db,
  fromItem,
  named,
  namedBy,
  queryAll,
  tableName,
  toItem,
  transact,
  TransactionFailed,
  type TxItem,
} from './client.ts';
import { get, inPartition, putEntry, updateEntry, type When } from './entity.ts';
import * as keys from './keys.ts';
import { getShardConfig, readShards, shardOf, writeShards } from './shards.ts';

/**
 * Wallet shards (docs/scaling.md). A merchant with one shard (every merchant until an operator
 * raises it: `ops shards raise`) has exactly the one wallet item and journals it always had. A big
 * merchant's wallet is N items of the same account. Credits (a paid checkout, a deposit, an
 * operator credit) go to a shard chosen per journal, unconditionally (an ADD, never refused). A
 * hold (withdrawal, settlement, refund) is taken from a shard that has the amount, under the
 * no-overdraft condition on that shard (withFunds), and the shard is recorded on the business
 * object (`walletShard`), so its release or completion moves the held bucket of the same shard.
 * Journals sit in their own shard's partition. The balance is the sum of the shards, read in ONE
 * call (a TransactGetItems when it must be exact, so a rebalance in flight is never counted twice).
 * When no shard has a hold's amount, the missing part is moved into shard 0 (one transaction,
 * each move conditioned) and the hold is taken there.
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

const shardKeysOf = (merchantId: string, mode: Mode, currency: Currency, shards: number) =>
  Array.from({ length: shards }, (_, n) => keys.walletShard(merchantId, mode, currency, n));

/**
 * Every shard's item of one wallet, as ONE snapshot (TransactGetItems: serializable with respect to
 * every TransactWriteItems, so a move or hold in flight is seen whole or not at all; a read that meets
 * one is cancelled and read again). One TransactGetItems reads at most 100 items: maxShards (64) stays
 * below (balance-snapshot.test.ts).
 */
async function readWalletShards(merchantId: string, mode: Mode, currency: Currency, shards: number): Promise<(WalletItem | undefined)[]> {
  const shardKeys = shardKeysOf(merchantId, mode, currency, shards);
  let cancelled: unknown;
  return retry(
    retryPolicies.snapshotRead,
    async () => {
      try {
        const out = await db().send(
          new TransactGetItemsCommand({ TransactItems: shardKeys.map((k) => ({ Get: { TableName: tableName(), Key: toItem(k) } })) }),
        );
        return (out.Responses ?? []).map((r) => (r.Item ? fromItem<WalletItem>(r.Item) : undefined));
      } catch (error) {
        // A transaction writing one of the shards at this moment: read again (nothing was read).
        if (!(error instanceof TransactionCanceledException)) throw error;
        cancelled = error;
        return again;
      }
    },
    () => cancelled as Error,
  );
}

/**
 * Every shard's item as a placement hint for a hold: one eventually consistent BatchGetItem, which can
 * see half of a move, so never a balance anyone is shown (the shard's own condition is the guard). A
 * function of its own so that only bundles that place holds carry BatchGetItem (and are granted it).
 */
async function hintWalletShards(merchantId: string, mode: Mode, currency: Currency, shards: number): Promise<(WalletItem | undefined)[]> {
  const shardKeys = shardKeysOf(merchantId, mode, currency, shards);
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
 * Access pattern: wallet of a merchant, mode and currency: a balance that existed. One shard: GetItem (strongly consistent
 * when `consistent`). A sharded wallet: its shards in ONE TransactGetItems (a snapshot, whatever `consistent` says), summed;
 * never a BatchGetItem, which can count a move between shards twice or not at all.
 */
export async function getWallet(merchantId: string, mode: Mode, currency: Currency, consistent = false): Promise<WalletRecord> {
  const shards = await readShards(merchantId, mode);
  if (shards > 1) {
    const items = (await readWalletShards(merchantId, mode, currency, shards)).filter((i): i is WalletItem => i !== undefined);
    return toRecord(merchantId, mode, currency, sumWalletItems(items));
  }
  return toRecord(merchantId, mode, currency, await get<WalletItem>(keys.wallet(merchantId, mode, currency), consistent));
}

/**
 * Access pattern: the currencies a merchant has a wallet in, in one mode (the dashboard's balances): each shard partition's
 * wallet keys. Only the currencies: each balance is then read as a snapshot by getWallet (a per-partition sum is not one).
 */
export async function listWalletCurrencies(merchantId: string, mode: Mode): Promise<Currency[]> {
  const shards = await readShards(merchantId, mode);
  const currencies = new Set<Currency>();
  for (let n = 0; n < shards; n++) {
    const k = keys.walletsOfMerchant(merchantId, mode, n);
    const items = await queryAll<{ SK: string }>({ ...inPartition(k), ProjectionExpression: 'SK' });
    for (const item of items) currencies.add(item.SK.slice(k.SKPrefix.length) as Currency);
  }
  return [...currencies].sort();
}

/** One shard's `available` moved by `amount` (a rebalance): conditioned when it leaves the shard. */
function moveWrite({ merchantId, mode, currency }: WalletRef, n: number, amount: number, at: string): TxItem {
  return updateEntry('Wallet', keys.walletShard(merchantId, mode, currency, n), {
    set: { updatedAt: at, merchantId, mode, currency },
    add: { available: amount },
    upsert: true,
    ...(amount < 0 ? { when: { expr: '#available >= :need', values: { ':need': -amount } } } : {}),
  });
}

/**
 * Moves `amount` of each listed shard's available, `total` in all, into shard `into` in ONE transaction, each
 * move conditioned on the shard still having it. Not a ledger movement: the money stays in the same account, so
 * no journal. False when refused (another move or a hold took it first).
 */
async function moveIntoShard(
  wallet: WalletRef,
  { moves, into, total }: { moves: hold.ShardMove[]; into: number; total: number },
  now = new Date(),
) {
  if (total === 0) return true;
  const at = now.toISOString();
  try {
    await transact([...moves.map((m) => moveWrite(wallet, m.n, -m.amount, at)), moveWrite(wallet, into, total, at)]);
    return true;
  } catch (error) {
    if (error instanceof TransactionFailed) return false;
    throw error;
  }
}

/** Every shard's available from one snapshot; null when the shards stayed too busy to be read (TransactGetItems cancelled). */
async function snapshotAvailable({ merchantId, mode, currency }: WalletRef, shards: number): Promise<number[] | null> {
  try {
    return (await readWalletShards(merchantId, mode, currency, shards)).map((i) => i?.available ?? 0);
  } catch (error) {
    if (error instanceof TransactionCanceledException) return null;
    throw error;
  }
}

/**
 * Every other shard's available moved into shard 0 (or `into`), from a snapshot (ops, tests).
 * Returns the amount moved (0: nothing to move, one shard, or the shards changed meanwhile).
 */
export async function rebalanceWallet(
  merchantId: string,
  mode: Mode,
  currency: Currency,
  options: { now?: Date; into?: number } = {},
): Promise<number> {
  const into = options.into ?? 0;
  const shards = await readShards(merchantId, mode);
  if (shards <= 1) return 0;
  if (!Number.isInteger(into) || into < 0 || into >= shards) throw new RangeError(`no shard ${into} of ${shards}`);
  const available = await snapshotAvailable({ merchantId, mode, currency }, shards);
  if (!available) return 0;
  const moves = available.map((amount, n) => ({ n, amount })).filter((m) => m.n !== into && m.amount > 0);
  const total = moves.reduce((a, m) => a + m.amount, 0);
  return (await moveIntoShard({ merchantId, mode, currency }, { moves, into, total }, options.now)) ? total : 0;
}

type WalletRef = { merchantId: string; mode: Mode; currency: Currency };

/** What a hold needs: its wallet, the business object it is for (its id) and the amount taken from available. */
export interface HoldRef extends WalletRef {
  reference: string;
  need: number;
}

/** Where a hold goes: the wallet shard its debit is taken from (0 for a one-shard merchant). */
export type PlaceHold = (hold: HoldRef) => Promise<number>;

/**
 * The reads and the consolidation a placement asks for before its try (shared/domain/core/hold-placement.ts decides
 * each step): a hint of every shard (one BatchGetItem, only for a sharded wallet), a snapshot (TransactGetItems), the
 * missing part moved into shard 0 (one TransactWriteItems). Returns the placement whose step is the try.
 */
async function placeOn(ref: HoldRef, shards: number, p: hold.HoldPlacement): Promise<hold.HoldPlacement> {
  for (;;) {
    const { step } = p;
    if (step.do === 'hint') {
      const items = await hintWalletShards(ref.merchantId, ref.mode, ref.currency, shards);
      p = hold.onHint(
        p,
        items.map((i) => i?.available ?? 0),
      );
    } else if (step.do === 'snapshot') p = hold.onSnapshot(p, await snapshotAvailable(ref, shards));
    else if (step.do === 'move') p = hold.onMoved(p, await moveIntoShard(ref, step));
    else return p;
  }
}

/**
 * Runs a transaction that takes a hold from a wallet (withdrawal, settlement, refund). `run` asks `place(hold)` for
 * the shard (once per attempt; the same answer however often it asks) and records it on its business object
 * (`walletShard`, so the release or completion journal moves the same shard) and on the hold journal. Where the hold
 * goes, when the shards are read again, when the missing part is moved into shard 0, and whether a refusal is a real
 * shortfall (rethrown: the caller's `insufficient_balance`) or contention (tried again after `retryPolicies.hold`'s
 * backoff, then a 409 `concurrent_update` with nothing held, safe to retry with the same Idempotency-Key) are decided
 * by the money core (shared/domain/core/hold-placement.ts, proven in memory by test/unit/hold-placement.model.test.ts);
 * this loop does the I/O each decision asks for. A TransactionConflict (a concurrent transaction, no condition failed)
 * never reaches here as a refusal: transact retries it, then answers 409 `concurrent_update` (shared/http/presenter.ts).
 */
export async function withFunds<T>(run: (place: PlaceHold) => Promise<T>): Promise<T> {
  let p = hold.startHold(retryPolicies.hold.attempts);
  for (;;) {
    let asked: HoldRef | undefined;
    let placed: Promise<number> | undefined;
    const place: PlaceHold = (ref) => {
      asked ??= ref;
      placed ??= (async () => {
        const shards = await readShards(ref.merchantId, ref.mode);
        p = await placeOn(ref, shards, hold.onAttempt(p, shards, ref.need, ref.reference));
        return p.step.do === 'try' ? p.step.shard : 0;
      })();
      return placed;
    };
    try {
      return await run(place);
    } catch (error) {
      if (!(error instanceof TransactionFailed && error.on('wallet')) || placed === undefined || asked === undefined) throw error;
      await placed;
      p = hold.onRefused(p, Number(error.refusedItem('wallet')?.available ?? 0));
      if (p.step.do === 'settle') p = hold.onSnapshot(p, await snapshotAvailable(asked, await readShards(asked.merchantId, asked.mode)));
      if (p.step.do === 'short') throw error;
      if (p.step.do !== 'attempt')
        throw new ConflictError('Too many concurrent changes to this balance; nothing was held. Retry with the same Idempotency-Key.');
      if (p.step.backoff) await pause(retryPolicies.hold, p.attempt);
    }
  }
}

/** A journal's position: `<createdAt>#<journalId>`, the order of every journal listing and of settlement cut-offs. */
export const journalPosition = (j: Pick<Journal, 'createdAt' | 'journalId'>) => `${j.createdAt}#${j.journalId}`;

/**
 * A settlement's cut-off (docs/merchant-guide.md, Settlement breakdowns): its hold journal's position, written onto
 * every shard of the wallet (attribute `cutoff`, with `cutoffSettlementId`) in the hold's own transaction, each shard
 * conditioned on the cut-off it had when read (`previous`, null: none), so two settlements never share a window.
 */
export interface SettlementCutoff {
  settlementId: string;
  /** Every shard's cut-off as read (index = shard; null: none yet). */
  observed: (string | null)[];
}

/**
 * The writes that post a journal: the journal item (never overwritten) and one wallet update whose
 * condition refuses any movement that would take `available` or a held bucket below zero, and any
 * journal positioned at or before the wallet's settlement cut-off (a journal decided before a
 * settlement but committed after it: refused as `cutoff`, decided again later, so it belongs to the
 * next settlement). A settlement's hold (`cutoff` given) moves the cut-off to its own position instead.
 * Callers add these to the same TransactWriteItems as their business change.
 */
export function postJournal(entry: { journal: Journal; delta: WalletDelta }, cutoff?: SettlementCutoff): TxItem[] {
  const { journal, delta } = entry;
  const position = journalPosition(journal);
  const add: Record<string, number> = {};
  const conditions: string[] = [];
  const needs: Record<string, number> = {};
  let heldTotal = 0;
  let countDelta = 0;

  const move = (attribute: string, amount: number) => {
    add[attribute] = amount;
    if (amount < 0) {
      needs[`:${attribute}Need`] = -amount;
      conditions.push(`#${attribute} >= :${attribute}Need`);
    }
  };

  if (delta.available !== 0) move('available', delta.available);
  for (const [type, amount] of Object.entries(delta.held)) {
    if (!amount) continue;
    move(`held_${type}`, amount);
    heldTotal += amount;
    countDelta += Math.sign(amount);
  }
  if (heldTotal !== 0) move('held', heldTotal);
  // A credit (available only grows, nothing held moves) goes to a shard of a sharded wallet chosen
  // by its journal id; every other movement to the shard its hold was taken from (the business
  // object's walletShard, carried by the journal; absent = 0). The journal item goes to its own
  // shard's partition either way (one shard: shard 0 for everything, exactly as before).
  const credit = delta.available > 0 && heldTotal === 0 && countDelta === 0 && Object.values(delta.held).every((v) => !v);
  const journalShard = shardOf(journal.journalId, writeShards(journal.merchantId, journal.mode));
  const shard = credit ? journalShard : (journal.walletShard ?? 0);
  if (countDelta !== 0) add.pendingCount = countDelta;

  const writes: TxItem[] = [
    named(
      'journal',
      putEntry('Journal', keys.journal(journal.merchantId, journal.mode, journal.createdAt, journal.journalId, journalShard), {
        ...journalIndexKeys(journal, journalShard),
        ...journal,
      }),
    ),
  ];
  if (Object.keys(add).length > 0) {
    const previous = cutoff?.observed[shard] ?? null;
    const { merchantId, mode, currency } = journal;
    const cutoffCondition: When = !cutoff
      ? { expr: '(attribute_not_exists(#cutoff) OR #cutoff < :position)', values: { ':position': position } }
      : previous === null
        ? { expr: 'attribute_not_exists(#cutoff)' }
        : { expr: '#cutoff = :previous', values: { ':previous': previous } };
    const wallet = updateEntry('Wallet', keys.walletShard(merchantId, mode, currency, shard), {
      set: {
        updatedAt: journal.createdAt,
        merchantId,
        mode,
        currency,
        ...(cutoff ? { cutoff: position, cutoffSettlementId: cutoff.settlementId } : {}),
      },
      add,
      upsert: true,
      when: {
        expr: [cutoffCondition.expr, ...conditions].join(' AND '),
        names: { '#cutoff': 'cutoff' },
        values: { ...cutoffCondition.values, ...needs },
      },
      old: true,
    });
    // Refused with the cut-off as it was: the journal came too late (or the cut-off moved), not an overdraft.
    writes.push(
      namedBy('wallet', wallet, (old) => {
        const at = typeof old.cutoff === 'string' ? old.cutoff : null;
        return (cutoff ? at !== previous : at !== null && at >= position) ? cutoffRefused : 'wallet';
      }),
    );
    if (cutoff) writes.push(...otherShardCutoffs(journal, shard, position, cutoff));
  }
  return writes;
}

/**
 * A settlement hold's cut-off on every other shard of the wallet (each conditioned on the cut-off read). The shard count
 * is read (consistently) after the hold's time was taken, and a credit goes to a shard added by a raise only once it was
 * decided after the raise: so no journal positioned before this cut-off can land on a shard this settlement did not see.
 */
function otherShardCutoffs(journal: Journal, holdShard: number, position: string, cutoff: SettlementCutoff): TxItem[] {
  const { merchantId, mode, currency } = journal;
  return cutoff.observed.flatMap((previous, n) =>
    n === holdShard
      ? []
      : [
          named(
            cutoffRefused,
            updateEntry('Wallet', keys.walletShard(merchantId, mode, currency, n), {
              set: { cutoff: position, cutoffSettlementId: cutoff.settlementId, merchantId, mode, currency },
              upsert: true,
              when: previous === null ? { expr: 'attribute_not_exists(#cutoff)' } : { eq: { cutoff: previous } },
            }),
          ),
        ],
  );
}

/**
 * The settlement cut-offs of a wallet as they are now, for a settlement's hold (postJournal): the shard count from a
 * consistent read of the config, every shard's cut-off from one snapshot. `latest`: the newest (the previous settlement's).
 */
export async function readCutoffs(
  merchantId: string,
  mode: Mode,
  currency: Currency,
): Promise<{ observed: (string | null)[]; latest: { position: string; settlementId: string } | null }> {
  const { shards } = await getShardConfig(merchantId, mode);
  const items = await readWalletShards(merchantId, mode, currency, shards);
  const observed = items.map((i) => (typeof i?.cutoff === 'string' ? i.cutoff : null));
  let latest: { position: string; settlementId: string } | null = null;
  for (const i of items) {
    if (typeof i?.cutoff === 'string' && (!latest || i.cutoff > latest.position))
      latest = { position: i.cutoff, settlementId: String(i.cutoffSettlementId) };
  }
  return { observed, latest };
}

/** A journal's balance-transaction index keys (by type, by source object), in its own shard (keys.ts). */
export function journalIndexKeys(journal: Journal, shard: number) {
  return {
    ...keys.journalByKind(journal.merchantId, journal.mode, journal.kind, journal.createdAt, journal.journalId, shard),
    ...keys.journalBySource(journal.merchantId, journal.mode, journal.reference, journal.createdAt, journal.journalId),
  };
}

/** Index of the wallet update inside postJournal's writes (to read its cancellation reason). */
export const walletWriteIndex = 1;

/** Access pattern: a merchant's journals in one mode, oldest first (audit, zero-sum checks): every shard partition's, merged. */
export async function listJournals(merchantId: string, mode: Mode): Promise<Journal[]> {
  const shards = await readShards(merchantId, mode);
  const parts = await Promise.all(
    Array.from({ length: shards }, (_, n) => {
      const k = keys.journalsOfMerchant(merchantId, mode, n);
      return queryAll<Journal & { SK: string }>(inPartition(k));
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
  return putEntry(
    'OperatorReference',
    keys.operatorReference(merchantId, mode, command, record.reference),
    { command, ...record },
    { old: true },
  );
}
