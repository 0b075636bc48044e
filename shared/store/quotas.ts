import type { Mode } from '#shared/domain/credentials.ts';
import { tableName, toItem, toValues, ttlIn, type TxItem } from './client.ts';
import * as keys from './keys.ts';

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
  return {
    Update: {
      TableName: tableName(),
      Key: toItem(keys.quota(mode, merchantId, quota.subject, window)),
      UpdateExpression: 'ADD #count :one SET entity = :entity, #ttl = :ttl',
      ConditionExpression: 'attribute_not_exists(#count) OR #count < :limit',
      ExpressionAttributeNames: { '#count': 'count', '#ttl': 'ttl' },
      ExpressionAttributeValues: toValues({ ':one': 1, ':limit': quota.limit, ':entity': 'Quota', ':ttl': ttlIn(quota.windowSeconds * 2) }),
    },
  };
}

/** Part of an action that must stay within a quota without counting itself (the counter is unchanged). */
export function quotaCheck(mode: Mode, merchantId: string, quota: Quota, now: Date): TxItem {
  const { window } = quotaWindow(quota, now);
  return {
    ConditionCheck: {
      TableName: tableName(),
      Key: toItem(keys.quota(mode, merchantId, quota.subject, window)),
      ConditionExpression: 'attribute_not_exists(#count) OR #count < :limit',
      ExpressionAttributeNames: { '#count': 'count' },
      ExpressionAttributeValues: toValues({ ':limit': quota.limit }),
    },
  };
}
