import { UpdateItemCommand } from '@aws-sdk/client-dynamodb';
import { again, retry, retryPolicies } from '#shared/retry.ts';
import type { Mode } from '#shared/domain/credentials.ts';
import type { Merchant } from '#shared/domain/merchant.ts';
import type { Currency } from '#shared/domain/money.ts';
import type { Scope } from '#shared/domain/scopes.ts';
import { ConflictError, NotFoundError } from '#shared/domain/errors.ts';
import { db, queryAll, tableName, toItem, toValues, transact, TransactionFailed, type TxItem } from './client.ts';
import { get, putEntry, updateEntry } from './entity.ts';
import * as keys from './keys.ts';

/**
 * Merchants and their API keys. A key item carries what a request needs to be authenticated and
 * its signature checked in ONE read: the merchant's status and currency are copied onto it and
 * kept in step by updateMerchant.
 */
export interface ApiKeyRecord {
  keyId: string;
  hash: string;
  merchantId: string;
  mode: Mode;
  scopes: Scope[];
  status: 'active' | 'revoked';
  /** Rotation grace: the key stops working at this instant (ISO), null = no expiry. */
  expiresAt: string | null;
  /** The paired secret key, sealed (see shared/crypto/seal.ts), associated data `secret:<keyId>`. */
  secretSealed: string;
  merchantStatus: Merchant['status'];
  merchantCurrency: Currency;
  /** Copied from the merchant (kept in step by updateMerchant) so a create request prices itself without a second read. */
  merchantFees: Merchant['fees'];
  merchantAllowInsecureWebhooks: boolean;
  createdAt: string;
  revokedAt?: string;
  /** When the key last authenticated a request, to within `keyUseInterval` (recordKeyUse); absent: never since recorded. */
  lastUsedAt?: string;
  /**
   * The dashboard user who minted the key (create or roll); absent for keys of the operator's tool
   * and keys minted before this was recorded. Payouts, settlements and refunds created with the key
   * have this user as their maker (maker-checker).
   */
  mintedBy?: KeyMinter;
}

/** Who minted a key in the dashboard. */
export interface KeyMinter {
  userId: string;
  email: string;
}

export const secretAssociatedData = (keyId: string) => `secret:${keyId}`;
/** Binds a sealed webhook signing secret to its merchant and mode. */
export const webhookSecretAssociatedData = (merchantId: string, mode: Mode) => `whsec:${merchantId}:${mode}`;

function apiKeyWrites(key: ApiKeyRecord): TxItem[] {
  return [
    putEntry('ApiKey', keys.apiKey(key.hash), { ...keys.apiKeyListing(key.merchantId, key.mode, key.createdAt, key.keyId), ...key }),
    putEntry('ApiKeyId', keys.apiKeyId(key.keyId), { keyId: key.keyId, hash: key.hash }),
  ];
}

/** Creates a merchant and its first keys in one transaction. */
export async function createMerchant(merchant: Merchant, apiKeys: ApiKeyRecord[]): Promise<void> {
  const listing = keys.merchantListing(merchant.createdAt, merchant.merchantId);
  await transact([putEntry('Merchant', keys.merchant(merchant.merchantId), { ...listing, ...merchant }), ...apiKeys.flatMap(apiKeyWrites)]);
}

/** Access pattern: merchant profile by id (GetItem). */
export async function getMerchant(merchantId: string, consistent = false): Promise<Merchant | undefined> {
  return get<Merchant>(keys.merchant(merchantId), consistent);
}

/**
 * The merchant profile as the hot paths read it, from a per-process (per Lambda container) cache:
 * the hosted checkout page and its payments (docs/scaling.md: one partition key takes at most
 * 3,000 read units/s, and a big merchant's every checkout read its one profile item twice) and the
 * webhook dispatcher. An entry is read strongly consistent and used for at most `maxAgeMs`
 * (MERCHANT_CACHE_MS, default 30 s): a change made in another process (an operator suspending the
 * merchant, a dashboard edit in another container) reaches these paths within that time; a change
 * made through changeMerchant in this process drops the entry at once.
 */
const profiles = new Map<string, { at: number; merchant: Promise<Merchant | undefined> }>();
const maxCachedProfiles = 10_000;
export const merchantCacheMs = () => Number(process.env.MERCHANT_CACHE_MS ?? 30_000);

export function getMerchantCached(merchantId: string, maxAgeMs = merchantCacheMs()): Promise<Merchant | undefined> {
  const hit = profiles.get(merchantId);
  if (hit && Date.now() - hit.at < maxAgeMs) return hit.merchant;
  const merchant = getMerchant(merchantId, true);
  const entry = { at: Date.now(), merchant };
  profiles.set(merchantId, entry);
  merchant.catch(() => profiles.get(merchantId) === entry && profiles.delete(merchantId));
  if (profiles.size > maxCachedProfiles) profiles.delete(profiles.keys().next().value!);
  return merchant;
}

/** Drops a merchant's cached profile (its profile changed in this process). */
export function forgetCachedMerchant(merchantId: string): void {
  profiles.delete(merchantId);
}

/** Access pattern: authenticate a request by the SHA-256 of its API key (strongly consistent GetItem). */
export async function getApiKeyByHash(hash: string): Promise<ApiKeyRecord | undefined> {
  return get<ApiKeyRecord>(keys.apiKey(hash));
}

/** Access pattern: API key by its public id (pointer GetItem, then the key). */
export async function getApiKeyById(keyId: string): Promise<ApiKeyRecord | undefined> {
  const pointer = await get<{ hash: string }>(keys.apiKeyId(keyId));
  return pointer ? getApiKeyByHash(pointer.hash) : undefined;
}

/** Access pattern: a merchant's API keys, optionally of one mode (GSI1 query). */
export async function listApiKeys(merchantId: string, mode?: Mode): Promise<ApiKeyRecord[]> {
  const k = keys.apiKeysOfMerchant(merchantId, mode);
  return queryAll<ApiKeyRecord>({
    IndexName: 'GSI1',
    KeyConditionExpression: 'GSI1PK = :pk AND begins_with(GSI1SK, :sk)',
    ExpressionAttributeValues: toValues({ ':pk': k.GSI1PK, ':sk': k.GSI1SKPrefix }),
  });
}

/** How stale a key's `lastUsedAt` may be before a request records it again: at most one write per key per interval. */
export const keyUseIntervalMs = 5 * 60_000;

/** Whether a request authenticated by `key` at `now` should record the use (the stored value is missing or older than the interval). */
export const keyUseDue = (key: Pick<ApiKeyRecord, 'lastUsedAt'>, now: Date) =>
  !key.lastUsedAt || Date.parse(key.lastUsedAt) <= now.getTime() - keyUseIntervalMs;

/**
 * Access pattern 1b: record that a key was used. One conditional UpdateItem on the key item, applied
 * only while the stored `lastUsedAt` is missing or older than the interval, so concurrent requests
 * that all read a stale value write it once (the others fail the condition: false).
 */
export async function recordKeyUse(hash: string, now = new Date()): Promise<boolean> {
  try {
    await db().send(
      new UpdateItemCommand({
        TableName: tableName(),
        Key: toItem(keys.apiKey(hash)),
        // Names PK and lastUsedAt only and returns nothing: the IAM grant of read-only routes allows
        // exactly that (infra/route-stack.ts keyUsePolicy: dynamodb:Attributes, dynamodb:ReturnValues).
        UpdateExpression: 'SET lastUsedAt = :now',
        ConditionExpression: 'attribute_exists(PK) AND (attribute_not_exists(lastUsedAt) OR lastUsedAt <= :stale)',
        ReturnValues: 'NONE',
        ExpressionAttributeValues: toValues({
          ':now': now.toISOString(),
          ':stale': new Date(now.getTime() - keyUseIntervalMs).toISOString(),
        }),
      }),
    );
    return true;
  } catch (error) {
    if ((error as { name?: string }).name === 'ConditionalCheckFailedException') return false;
    throw error;
  }
}

const keyUpdate = (hash: string, set: Record<string, unknown>): TxItem =>
  updateEntry('ApiKey', keys.apiKey(hash), { set, when: { exists: true } });

export async function revokeApiKey(hash: string, now = new Date()): Promise<void> {
  await transact([keyUpdate(hash, { status: 'revoked', revokedAt: now.toISOString() })]);
}

/**
 * Rotation: the new keys are written and the old ones either revoked (grace 0) or given an expiry,
 * in one transaction, so there is never a moment with no working key. `also`: more writes of the
 * same transaction (the dashboard's step-up record and audit entries).
 */
export async function rotateApiKeys(
  oldKeys: ApiKeyRecord[],
  newKeys: ApiKeyRecord[],
  graceSeconds: number,
  now = new Date(),
  also: TxItem[] = [],
): Promise<void> {
  const ending =
    graceSeconds === 0
      ? { status: 'revoked', revokedAt: now.toISOString() }
      : { expiresAt: new Date(now.getTime() + graceSeconds * 1000).toISOString() };
  await transact([...oldKeys.map((k) => keyUpdate(k.hash, ending)), ...newKeys.flatMap(apiKeyWrites), ...also]);
}

/**
 * Updates merchant settings. Status, currency, fees and the insecure-webhook switch are also copied
 * onto every key of the merchant in the same transaction, so the very next request sees them.
 */
export type MerchantPatch = Partial<Omit<Merchant, 'merchantId' | 'createdAt' | 'version'>>;

const merchantChangeAttempts = 20; // each round has a winner: 20 rounds outlast 20 concurrent commands

/**
 * THE way to change a merchant item: read it (strongly consistent), let `change` compute the patch
 * from what was read, and write it on the condition that the version is still the one read (the
 * version is bumped). A concurrent change makes the condition fail; `change` then runs again on the
 * fresh item, so concurrent commands all take effect. After repeated losses it throws
 * a ConflictError having written nothing (a missing merchant: NotFoundError). `change` may throw to refuse.
 */
export async function changeMerchant<T>(
  merchantId: string,
  change: (merchant: Merchant) => Promise<{ patch: MerchantPatch; result: T }> | { patch: MerchantPatch; result: T },
  now = new Date(),
): Promise<T> {
  return retry(
    { ...retryPolicies.itemRace, attempts: merchantChangeAttempts },
    async () => {
      const merchant = await getMerchant(merchantId, true);
      if (!merchant) throw new NotFoundError(`no merchant ${merchantId}`);
      const { patch, result } = await change(merchant);
      try {
        await updateMerchant(merchantId, patch, now, merchant.version ?? 0);
        return result;
      } catch (error) {
        if (!(error instanceof TransactionFailed && error.failedAt(0))) throw error;
        return again;
      }
    },
    // Another change of the same merchant kept winning the race; nothing of this change was written.
    () => new ConflictError(`merchant ${merchantId} was changed concurrently by other commands; nothing was changed, retry the command`),
  );
}

/** One conditional write of the merchant (and the copies on its API keys); only changeMerchant calls it. */
async function updateMerchant(merchantId: string, patch: MerchantPatch, now: Date, expectedVersion: number): Promise<void> {
  const writes: TxItem[] = [
    updateEntry('Merchant', keys.merchant(merchantId), {
      set: { ...patch, updatedAt: now.toISOString(), version: expectedVersion + 1 },
      when:
        expectedVersion === 0
          ? { exists: true, expr: 'attribute_not_exists(#version)' }
          : { exists: true, eq: { version: expectedVersion } },
    }),
  ];
  const denormalised: Record<string, unknown> = {};
  if (patch.status) denormalised.merchantStatus = patch.status;
  if (patch.defaultCurrency) denormalised.merchantCurrency = patch.defaultCurrency;
  if (patch.fees) denormalised.merchantFees = patch.fees;
  if (patch.allowInsecureWebhooks !== undefined) denormalised.merchantAllowInsecureWebhooks = patch.allowInsecureWebhooks;
  if (Object.keys(denormalised).length) {
    for (const key of await listApiKeys(merchantId)) writes.push(keyUpdate(key.hash, denormalised));
  }
  try {
    await transact(writes);
  } finally {
    forgetCachedMerchant(merchantId); // whatever the outcome: the next read sees what is stored
  }
}
