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

/**
 * What one dispatcher batch's attempts to a destination observed, in the order they finished:
 * `failures` after its last success (`restart`: a success of this batch came before them, so the
 * streak they start is a new one), or `succeeded` (the last attempt succeeded and the stored streak
 * ends), and whether the destination is now disabled.
 */
export interface HealthObservation {
  failures?: { firstAt: string; lastAt: string; restart: boolean };
  succeeded?: boolean;
  disable?: { reason: 'gone' | 'failing'; at: string };
}

/**
 * A batch's attempts to one destination as ONE UpdateItem (the dispatcher writes each destination
 * once per batch, not once per attempt: a merchant endpoint that is down would otherwise draw one
 * write per failed delivery onto this one item). A failure streak keeps its first failure
 * (if_not_exists) unless a success of the batch ended it; a success removes it.
 */
export async function recordAttempts(d: Destination, seen: HealthObservation, now: Date): Promise<void> {
  const set = ['updatedAt = :now'];
  const values: Record<string, unknown> = { ':now': now.toISOString() };
  let remove = '';
  if (seen.failures) {
    set.push(`failingSince = ${seen.failures.restart ? ':first' : 'if_not_exists(failingSince, :first)'}`, 'lastFailureAt = :last');
    Object.assign(values, { ':first': seen.failures.firstAt, ':last': seen.failures.lastAt });
  } else if (seen.succeeded) remove = ' REMOVE failingSince';
  if (seen.disable) {
    set.push('disabledAt = :disabledAt', 'disabledReason = :reason');
    Object.assign(values, { ':disabledAt': seen.disable.at, ':reason': seen.disable.reason });
  }
  await update(d, `${set.join(', ')}${remove}`, values);
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
