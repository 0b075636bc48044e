import { createHash } from 'node:crypto';
import { type AttributeValue, UpdateItemCommand } from '@aws-sdk/client-dynamodb';
import type { Mode } from '#shared/domain/credentials.ts';
import { batchGetConsistent, db, fromItem } from './client.ts';
import { updateEntry, type Change } from './entity.ts';
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

/** Sets the destination's health (creating its item: its destination too), under no condition. */
async function update(d: Destination, change: Omit<Change, 'upsert' | 'when'>): Promise<void> {
  const set = { merchantId: d.merchantId, mode: d.mode, url: d.url, ...change.set };
  await db().send(new UpdateItemCommand(updateEntry(healthEntity, healthKey(d), { ...change, set, upsert: true }).Update!));
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
  const set: Record<string, unknown> = { updatedAt: now.toISOString() };
  const change: Omit<Change, 'upsert' | 'when'> = { set };
  if (seen.failures) {
    if (seen.failures.restart) set.failingSince = seen.failures.firstAt;
    else change.setOnce = { failingSince: seen.failures.firstAt };
    set.lastFailureAt = seen.failures.lastAt;
  } else if (seen.succeeded) change.remove = ['failingSince'];
  if (seen.disable) Object.assign(set, { disabledAt: seen.disable.at, disabledReason: seen.disable.reason });
  await update(d, change);
}

export async function disableEndpoint(d: Destination, reason: 'gone' | 'failing' | 'merchant', now: Date): Promise<void> {
  const at = now.toISOString();
  await update(d, { set: { disabledAt: at, disabledReason: reason, updatedAt: at } });
}

/** The operator's or merchant's re-enable: not disabled, no failure streak. */
export async function enableEndpoint(d: Destination, now: Date): Promise<void> {
  await update(d, { set: { disabledAt: null, disabledReason: null, updatedAt: now.toISOString() }, remove: ['failingSince'] });
}
