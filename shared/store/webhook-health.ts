import { createHash } from 'node:crypto';
import { type AttributeValue, UpdateItemCommand } from '@aws-sdk/client-dynamodb';
import type { Mode } from '#shared/domain/credentials.ts';
import { batchGetConsistent, db, fromItem, tableName, toItem, toValues } from './client.ts';
import * as keys from './keys.ts';

/**
 * The health of a merchant's webhook destination (per merchant, mode and URL; docs/webhooks-operations.md):
 * since when every attempt failed, and whether it is disabled. One item next to the merchant's
 * profile; the dispatcher reads a batch's destinations in the BatchGetItem that reads its delivery items.
 */
export interface EndpointHealth {
  merchantId: string;
  mode: Mode;
  url: string;
  /** The first failure since the last success (absent = the last attempt succeeded). */
  failingSince?: string;
  lastFailureAt: string | null;
  disabledAt: string | null;
  /** Why: `gone` (HTTP 410), `failing` (every attempt failed for 5 days) or `merchant` (disabled in the dashboard). */
  disabledReason: 'gone' | 'failing' | 'merchant' | null;
  updatedAt: string;
}

export interface Destination {
  merchantId: string;
  mode: Mode;
  url: string;
}

const urlHash = (url: string) => createHash('sha256').update(url).digest('hex').slice(0, 32);
export const healthKey = (d: Destination) => keys.webhookHealth(d.merchantId, d.mode, urlHash(d.url));
const healthEntity = 'WebhookHealth';
export const destinationKey = (d: Destination) => `${d.merchantId}/${d.mode}/${d.url}`;

/** Access pattern: the health items of these destinations (one BatchGetItem, consistent), keyed by destinationKey. */
export async function getEndpointHealth(destinations: readonly Destination[]): Promise<Map<string, EndpointHealth>> {
  return healthByDestination(await batchGetConsistent(destinations.map(healthKey)));
}

/** The health items among `items` (read with other items by the dispatcher's one BatchGetItem), keyed by destinationKey. */
export function healthByDestination(items: readonly Record<string, AttributeValue>[]): Map<string, EndpointHealth> {
  const found = new Map<string, EndpointHealth>();
  for (const item of items) {
    if (item.entity?.S !== healthEntity) continue;
    const h = fromItem<EndpointHealth>(item);
    found.set(destinationKey(h), h);
  }
  return found;
}

async function update(d: Destination, expression: string, values: Record<string, unknown>): Promise<void> {
  await db().send(
    new UpdateItemCommand({
      TableName: tableName(),
      Key: toItem(healthKey(d)),
      UpdateExpression: `SET entity = :entity, merchantId = :merchantId, #mode = :mode, #url = :url, ${expression}`,
      ExpressionAttributeNames: { '#mode': 'mode', '#url': 'url' },
      ExpressionAttributeValues: toValues({
        ':entity': healthEntity,
        ':merchantId': d.merchantId,
        ':mode': d.mode,
        ':url': d.url,
        ...values,
      }),
    }),
  );
}

/** A failed attempt: remembers the first failure of the streak (if_not_exists keeps the oldest). */
export async function recordFailure(d: Destination, now: Date): Promise<void> {
  const at = now.toISOString();
  await update(d, 'failingSince = if_not_exists(failingSince, :at), lastFailureAt = :at, updatedAt = :at', { ':at': at });
}

/** A successful attempt ends the streak. */
export async function recordSuccess(d: Destination, now: Date): Promise<void> {
  await update(d, 'updatedAt = :at REMOVE failingSince', { ':at': now.toISOString() });
}

export async function disableEndpoint(d: Destination, reason: 'gone' | 'failing' | 'merchant', now: Date): Promise<void> {
  const at = now.toISOString();
  await update(d, 'disabledAt = :at, disabledReason = :reason, updatedAt = :at', { ':at': at, ':reason': reason });
}

/** The operator's or merchant's re-enable: not disabled, no failure streak. */
export async function enableEndpoint(d: Destination, now: Date): Promise<void> {
  await update(d, 'disabledAt = :null, disabledReason = :null, updatedAt = :at REMOVE failingSince', {
    ':null': null,
    ':at': now.toISOString(),
  });
}
