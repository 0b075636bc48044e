import { named, type TxItem } from './client.ts';
import { get, updateEntry } from './entity.ts';
import { queryDueIndex } from './due-index.ts';
import * as keys from './keys.ts';
import type { Key } from './keys.ts';
import { outboxWrites } from './webhooks.ts';
import type { Mode } from '#shared/domain/credentials.ts';
import type { WebhookEvent } from '#shared/domain/events.ts';

/**
 * The due index of settlements, refunds, automatic-settlement runs and large breakdowns being summed (GSI2, `MONEYDUE#<shard>`,
 * sparse): an item carries GSI2PK/GSI2SK/dueAt only while something is due at a time. Also the
 * one versioned, status-conditioned update these entities use for every change.
 */
export type DueEntity = 'Settlement' | 'Refund' | 'AutoSettlement' | 'SettlementBreakdown';

export interface DueItem {
  entity: DueEntity;
  /** Settlement or refund id; for AutoSettlement the merchant id. */
  id: string;
  mode?: string;
  dueAt: string;
}

/** Access pattern: money items due by `now` (the due index, shards `MONEYDUE#0-31`, or the given ones). For the sweep. */
export async function listDueMoneyItems(
  now: Date,
  limitPerShard = 100,
  shards: readonly string[] = keys.moneyDueShards(),
): Promise<DueItem[]> {
  const due: DueItem[] = [];
  for (const raw of await queryDueIndex(shards, now, limitPerShard)) {
    const item = raw as { entity: DueEntity; id?: string; merchantId?: string; mode?: string; dueAt: string };
    if (item.entity === 'Settlement' || item.entity === 'Refund' || item.entity === 'SettlementBreakdown')
      due.push({ entity: item.entity, id: item.id!, dueAt: item.dueAt });
    else if (item.entity === 'AutoSettlement') due.push({ entity: item.entity, id: item.merchantId!, mode: item.mode!, dueAt: item.dueAt });
  }
  return due;
}

/**
 * A change of a versioned item read at (status, version): SET `set` (which includes the new status
 * and version), and put it in the due index at `dueAt` (string), take it out (null), or leave the
 * due attributes as they are (undefined). Refused (ConditionalCheckFailed) if anyone changed it first.
 */
function versionedUpdate(
  tag: 'Settlement' | 'Refund',
  key: Key,
  dueId: string,
  read: { status: number; version: number },
  set: Record<string, unknown>,
  dueAt: string | null | undefined,
): TxItem {
  return updateEntry(tag, key, {
    set: { ...set, ...(typeof dueAt === 'string' ? { ...keys.moneyDue(dueId, dueAt), dueAt } : {}) },
    ...(dueAt === null ? { remove: ['GSI2PK', 'GSI2SK', 'dueAt'] } : {}),
    when: { eq: { status: read.status, version: read.version } },
  });
}

/**
 * A change of a versioned money item (a settlement or a refund) read as `current`: the item after
 * the change (updatedAt, version + 1) and its conditional write named `subject` (versionedUpdate).
 */
function versionedChange<T extends { id: string; status: number; version: number; updatedAt: string }>(
  subject: 'settlement' | 'refund',
  key: Key,
  current: T,
  changes: Partial<T>,
  dueAt: string | null | undefined,
  now: Date,
): { next: T; write: TxItem } {
  const next: T = { ...current, ...changes, updatedAt: now.toISOString(), version: current.version + 1 };
  const set: Record<string, unknown> = { updatedAt: next.updatedAt, version: next.version };
  for (const k of Object.keys(changes) as (keyof T & string)[]) set[k] = next[k];
  const tag = subject === 'settlement' ? 'Settlement' : 'Refund';
  return { next, write: named(subject, versionedUpdate(tag, key, current.id, current, set, dueAt)) };
}

type MoneyItem = { id: string; merchantId: string; mode: Mode; status: number; version: number; updatedAt: string };

/**
 * The writes of one kind of versioned money item (settlements, refunds): `change`, its
 * versionedChange named `subject`; `eventWrites`, the event of a status change (none when the
 * status stays) in the item's partition, to the merchant's endpoint for the mode, for the same
 * transaction as the change.
 */
export function moneyItemWrites<T extends MoneyItem, Fixed extends keyof T>(
  subject: 'settlement' | 'refund',
  key: (id: string) => Key,
  statusEvent: (next: T, previous: T['status'], at: Date) => WebhookEvent,
  paymentIntentId: (item: T) => string | null,
) {
  return {
    change: (current: T, changes: Partial<Omit<T, Fixed>>, dueAt: string | null | undefined, now: Date) =>
      versionedChange(subject, key(current.id), current, changes as Partial<T>, dueAt, now),
    eventWrites(previous: T, next: T): TxItem[] {
      if (previous.status === next.status) return [];
      const event = statusEvent(next, previous.status, new Date(next.updatedAt));
      const { merchantId, mode } = next;
      const addressed = {
        eventId: event.id,
        paymentIntentId: paymentIntentId(next),
        subject: { kind: subject, id: next.id },
        merchantId,
        mode,
      };
      return named('event', outboxWrites({ ...addressed, callbackUrl: null, event }, event.data.Timestamp));
    },
  };
}

const uuidShape = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** Access pattern: a settlement or refund by id (GetItem). A non-uuid id is simply not found. */
export async function getMoneyItem<T>(key: (id: string) => Key, id: string, consistent: boolean): Promise<T | undefined> {
  if (!uuidShape.test(id)) return undefined;
  const item = await get(key(id), consistent);
  return item ? stripKeys<T>(item) : undefined;
}

/** Strips the table's own attributes from an item. */
export function stripKeys<T>(item: Record<string, unknown>): T {
  const {
    PK: _pk,
    SK: _sk,
    GSI1PK: _g1,
    GSI1SK: _g1s,
    GSI2PK: _g2,
    GSI2SK: _g2s,
    GSI3PK: _g3,
    GSI3SK: _g3s,
    entity: _e,
    dueAt: _d,
    ...rest
  } = item;
  return rest as T;
}
