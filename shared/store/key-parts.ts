import type { EventSubject } from '#shared/domain/events.ts';

/** A table item's primary key. */
export type Key = { PK: string; SK: string };

/**
 * The few helpers the generated key builders (./keys.gen.ts) use beside their templates; ./keys.ts re-exports them
 * with the builders.
 */

const subjectPrefix: Record<EventSubject['kind'], string> = { transaction: 'TXN', refund: 'REFUND', settlement: 'SETTLEMENT' };
/** An event's home: the partition of what it is about (its transaction, refund or settlement): its outbox item, delivery log, resends. */
export const eventHome = (subject: EventSubject): string => `${subjectPrefix[subject.kind]}#${subject.id}`;

/**
 * Shards of the platform-wide due indexes (GSI2 `DUE#`, `MONEYDUE#`, `WEBHOOKDUE#`): every intent
 * update rewrites its due entry while it is due, so one big merchant alone puts several write units
 * per checkout here (docs/scaling.md). 32 partitions take ~32,000 WCU/s; a sweep reads 32 small
 * queries per family. Items written under the earlier 4 shards sit in DUE#0-3, still read.
 */
export const dueShardCount = 32;
export function dueShard(id: string): number {
  let h = 0;
  for (const c of id) h = (h * 31 + c.charCodeAt(0)) >>> 0;
  return h % dueShardCount;
}
