import type { Mode } from '#shared/domain/credentials.ts';
import { ttlIn, type TxItem } from './client.ts';
import { checkEntry, updateEntry, type When } from './entity.ts';
import * as keys from './keys.ts';

/** The window's count is below the limit (no count yet: 0). */
const below = (quota: Quota): When => ({
  expr: 'attribute_not_exists(#count) OR #count < :limit',
  names: { '#count': 'count' },
  values: { ':limit': quota.limit },
});

/**
 * Business quotas (for example webhook resends per event per hour): a fixed-window counter that is
 * incremented in the SAME transaction as the action it limits, on the condition that it is below
 * the limit, so a refused action writes nothing and a quota is never exceeded under concurrency.
 * (Request-rate throttling per key or IP is API Gateway's / WAF's job, not this table's.)
 */
export interface Quota {
  subject: string;
  limit: number;
  windowSeconds: number;
}

export function quotaWindow(quota: Quota, now: Date): { window: string; resetsInSeconds: number } {
  const ms = quota.windowSeconds * 1000;
  const start = Math.floor(now.getTime() / ms) * ms;
  return { window: new Date(start).toISOString(), resetsInSeconds: (start + ms - now.getTime()) / 1000 };
}

export function quotaWrite(mode: Mode, merchantId: string, quota: Quota, now: Date): TxItem {
  const { window } = quotaWindow(quota, now);
  const ttl = ttlIn(quota.windowSeconds * 2);
  return updateEntry('Quota', keys.quota(mode, merchantId, quota.subject, window), {
    add: { count: 1 },
    set: { ttl },
    upsert: true,
    when: below(quota),
  });
}

/** Part of an action that must stay within a quota without counting itself (the counter is unchanged). */
export function quotaCheck(mode: Mode, merchantId: string, quota: Quota, now: Date): TxItem {
  const { window } = quotaWindow(quota, now);
  return checkEntry(keys.quota(mode, merchantId, quota.subject, window), below(quota));
}
