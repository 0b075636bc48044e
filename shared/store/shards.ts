import { UpdateItemCommand } from '@aws-sdk/client-dynamodb';
import type { Mode } from '#shared/domain/credentials.ts';
import { db } from './client.ts';
import { get, updateEntry } from './entity.ts';
import * as keys from './keys.ts';

/**
 * How many partitions one merchant's heat is spread over, per mode (docs/scaling.md). A small
 * merchant has no config item and ONE shard: every key is exactly what it was before sharding
 * existed. A big merchant's listings (GSI1 `MERCHANT#<id>#<mode>#TXN`, GSI3 by type and status,
 * the events feed's `EVENTS#<id>#<mode>` partitions, the refunds list; the all-transactions listing on
 * twice the count: transactionListShards) get a shard suffix `#<n>` for n ≥ 1, shard 0
 * keeping the unsuffixed key, so data written before the raise stays where it is and is still read.
 *
 * Raising without downtime: writers learn the count from a cache (at most `cacheMs` old), readers
 * must never read fewer shards than any writer writes. So a raise records `shards` (what readers
 * read, at once) and `effectiveAt` = now + 2 × cacheMs: before that instant writers keep
 * `previousShards`. A reader's cache is at most cacheMs old, so by effectiveAt every reader knows
 * the new count. The count only grows (shrinking would strand items in the dropped partitions).
 *
 *   item  PK MERCHANT#<merchantId>  SK SHARDS#<mode>  { shards, previousShards, effectiveAt, updatedAt }
 */
export const maxShards = 64;
export const cacheMs = 60_000;

export interface ShardConfig {
  /** Partitions readers read (and writers write from effectiveAt on). */
  shards: number;
  /** What writers keep writing until effectiveAt. */
  previousShards: number;
  effectiveAt: string | null;
}

const single: ShardConfig = { shards: 1, previousShards: 1, effectiveAt: null };
const cache = new Map<string, { config: ShardConfig; loadedAt: number; loading?: Promise<ShardConfig> }>();
const cacheKey = (merchantId: string, mode: Mode) => `${merchantId}#${mode}`;

/** Access pattern: a merchant's shard config in one mode (GetItem; absent = one shard). */
export async function getShardConfig(merchantId: string, mode: Mode): Promise<ShardConfig> {
  const item = await get<ShardConfig>(keys.shardConfig(merchantId, mode));
  if (!item) return single;
  return { shards: item.shards, previousShards: item.previousShards, effectiveAt: item.effectiveAt ?? null };
}

function load(merchantId: string, mode: Mode, now: number): Promise<ShardConfig> {
  const k = cacheKey(merchantId, mode);
  const entry = cache.get(k);
  if (entry?.loading) return entry.loading;
  const loading = getShardConfig(merchantId, mode).then(
    (config) => {
      cache.set(k, { config, loadedAt: now });
      return config;
    },
    (error: unknown) => {
      const e = cache.get(k);
      if (e) delete e.loading;
      else cache.delete(k);
      throw error;
    },
  );
  cache.set(k, { config: entry?.config ?? single, loadedAt: entry?.loadedAt ?? 0, loading });
  return loading;
}

/** The shards readers must read now (awaits a fresh config when the cached one is older than cacheMs). */
export async function readShards(merchantId: string, mode: Mode, now = Date.now()): Promise<number> {
  const entry = cache.get(cacheKey(merchantId, mode));
  if (entry && entry.loadedAt > 0 && now - entry.loadedAt < cacheMs) return entry.config.shards;
  return (await load(merchantId, mode, now)).shards;
}

/**
 * The shards a write may use now, without a round trip: the cached config (refreshed in the
 * background when stale), one shard while nothing is cached yet. Always ≤ what readers read.
 */
export function writeShards(merchantId: string, mode: Mode, now = Date.now()): number {
  const entry = cache.get(cacheKey(merchantId, mode));
  if (!entry || now - entry.loadedAt >= cacheMs) load(merchantId, mode, now).catch(() => undefined);
  if (!entry) return 1;
  const c = entry.config;
  return c.effectiveAt !== null && now >= Date.parse(c.effectiveAt) ? c.shards : c.previousShards;
}

/**
 * Partitions of a merchant's all-transactions listing (GSI1 `MERCHANT#<id>#<mode>#TXN[#<n>]`) on
 * `shards` shards: twice as many for a sharded merchant. Every write of every intent rewrites its
 * entry there (the index projects ALL), so with one partition per shard 2,000 paid checkouts/s and
 * 500 payouts/s asked about 1,110 WCU/s of each (test/integration/capacity.test.ts). Monotonic in
 * `shards`, so readers (readShards) still read every partition any writer (writeShards) writes, and
 * an intent written on N shards (shard < N) is read on 2N. One shard stays one partition.
 */
export const transactionListShards = (shards: number) => (shards > 1 ? shards * 2 : 1);

/** Stable shard of an object: FNV-1a of its id, modulo the count (the money core's, which places holds with it). */
export { shardOf } from '#shared/domain/core/hold-placement.ts';

/**
 * Ops (`ops shards raise`): raise a merchant's shard count. Readers read the new count at once,
 * writers use it from effectiveAt (now + 2 × cacheMs). `immediate` makes it effective at once:
 * only for a merchant with no traffic (tests, a migration before go-live).
 */
export async function raiseShards(
  merchantId: string,
  mode: Mode,
  shards: number,
  options: { now?: Date; immediate?: boolean } = {},
): Promise<ShardConfig> {
  if (!Number.isInteger(shards) || shards < 1 || shards > maxShards) throw new RangeError(`shards must be 1-${maxShards}`);
  const now = options.now ?? new Date();
  const current = await getShardConfig(merchantId, mode);
  if (shards < current.shards) throw new RangeError(`shards only grow: ${merchantId} (${mode}) has ${current.shards}`);
  const writing =
    current.effectiveAt !== null && now.getTime() >= Date.parse(current.effectiveAt) ? current.shards : current.previousShards;
  const next: ShardConfig = {
    shards,
    previousShards: options.immediate ? shards : writing,
    effectiveAt: new Date(now.getTime() + (options.immediate ? 0 : 2 * cacheMs)).toISOString(),
  };
  const raise = updateEntry('ShardConfig', keys.shardConfig(merchantId, mode), {
    set: { ...next, updatedAt: now.toISOString(), merchantId, mode },
    upsert: true,
    // Never lower it, even against a concurrent raise (refused: ConditionalCheckFailedException).
    when: { expr: 'attribute_not_exists(#shards) OR #shards <= :shards' },
  });
  await db().send(new UpdateItemCommand(raise.Update!));
  cache.set(cacheKey(merchantId, mode), { config: next, loadedAt: now.getTime() });
  return next;
}

/** Tests: forget every cached config (another process changed one). */
export function forgetShardConfigs(): void {
  cache.clear();
}
