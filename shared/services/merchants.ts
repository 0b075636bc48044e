import { randomUUID } from 'node:crypto';
import { hashApiKey, modes, newApiKey, newKeyId, newSecretKey, newWebhookSecret, type Mode } from '#shared/domain/credentials.ts';
import { webhookEventTypes, type WebhookEventType } from '#shared/domain/events.ts';
import { isRefusal } from '#shared/domain/core/decision.ts';
import { decideTestCredit } from '#shared/domain/core/wallet.ts';
import {
  defaultFees,
  defaultSchedule,
  feeRefusal,
  type Fee,
  type FeeProduct,
  type Merchant,
  type SettlementSchedule,
  type WebhookEndpoint,
} from '#shared/domain/merchant.ts';
import type { Currency } from '#shared/domain/money.ts';
import { assertSafeWebhookUrl } from '#shared/domain/webhook-url.ts';
import { masterKey, seal } from '#shared/crypto/seal.ts';
import { transact, TransactionFailed, type TxItem } from '#shared/store/client.ts';
import * as store from '#shared/store/merchants.ts';
import { webhookSecretAssociatedData } from '#shared/store/merchants.ts';
import { OperatorError } from '#shared/domain/errors.ts';
import { armAutoSettlementRuns } from '#shared/store/settlements.ts';
import { nextAutoSettlementRunAt } from '#shared/domain/core/settlement.ts';
import { disableEndpoint, enableEndpoint } from '#shared/store/webhook-health.ts';
import { readShards } from '#shared/store/shards.ts';
import { operatorReferenceWrite, postJournal, type OperatorReferenceRecord } from '#shared/store/wallets.ts';
import { allScopes, type Scope } from '#shared/domain/scopes.ts';
import { journalEntry } from './commit.ts';

/**
 * Operator-side merchant management: what `npm run ops` and the local seed call. Keys and secrets
 * are returned once, here, and stored only hashed (API keys) or sealed (secret keys, webhook
 * secrets).
 */
export { OperatorError };

export interface IssuedCredentials {
  keyId: string;
  apiKey: string;
  secretKey: string;
}

/**
 * A key minted for a dashboard user: recorded on the key (`mintedBy`), and `authorize` runs with
 * the new key's id and scopes before anything is written: it throws to refuse, or returns writes
 * committed in the key's own transaction (the step-up record, audit entries).
 */
export interface Minting {
  by: store.KeyMinter;
  authorize: (key: { keyId: string; scopes: Scope[]; replaces: string[] }) => Promise<TxItem[]>;
}

async function issueKey(
  merchant: Pick<Merchant, 'merchantId' | 'status' | 'defaultCurrency' | 'fees' | 'allowInsecureWebhooks'>,
  mode: Mode,
  scopes: Scope[],
  now: Date,
  mintedBy?: store.KeyMinter,
) {
  const apiKey = newApiKey(mode);
  const secretKey = newSecretKey(mode);
  const keyId = newKeyId();
  const record: store.ApiKeyRecord = {
    keyId,
    hash: hashApiKey(apiKey),
    merchantId: merchant.merchantId,
    mode,
    scopes,
    status: 'active',
    expiresAt: null,
    secretSealed: seal(await masterKey(), secretKey, store.secretAssociatedData(keyId)),
    merchantStatus: merchant.status,
    merchantCurrency: merchant.defaultCurrency,
    merchantFees: merchant.fees,
    merchantAllowInsecureWebhooks: merchant.allowInsecureWebhooks,
    createdAt: now.toISOString(),
    ...(mintedBy ? { mintedBy: { userId: mintedBy.userId, email: mintedBy.email } } : {}),
  };
  return { record, issued: { keyId, apiKey, secretKey } satisfies IssuedCredentials };
}

async function newEndpoint(merchantId: string, mode: Mode, url: string | null) {
  const secret = newWebhookSecret();
  const endpoint: WebhookEndpoint = {
    url,
    secrets: [{ sealed: seal(await masterKey(), secret, webhookSecretAssociatedData(merchantId, mode)), expiresAt: null }],
  };
  return { endpoint, secret };
}

export async function createMerchant(input: {
  name: string;
  currency?: Currency;
  webhookUrl?: string;
  allowInsecureWebhooks?: boolean;
  scopes?: Scope[];
  now?: Date;
}) {
  const now = input.now ?? new Date();
  const allowInsecure = input.allowInsecureWebhooks ?? false;
  if (input.webhookUrl)
    await assertSafeWebhookUrl(input.webhookUrl, { allowInsecure }).catch((e: Error) => {
      throw new OperatorError(`--webhook-url ${e.message}`);
    });
  const merchant: Merchant = {
    merchantId: randomUUID(),
    name: input.name,
    status: 'active',
    defaultCurrency: input.currency ?? 'PKR',
    fees: defaultFees,
    settlementSchedule: defaultSchedule,
    webhooks: {},
    allowInsecureWebhooks: allowInsecure,
    createdAt: now.toISOString(),
    updatedAt: now.toISOString(),
  };
  const credentials = {} as Record<Mode, IssuedCredentials & { webhookSecret: string }>;
  const records: store.ApiKeyRecord[] = [];
  for (const mode of modes) {
    const { record, issued } = await issueKey(merchant, mode, input.scopes ?? [...allScopes], now);
    records.push(record);
    // A signing secret per mode even without a URL: a request's callbackUrl is signed with it.
    const { endpoint, secret } = await newEndpoint(merchant.merchantId, mode, input.webhookUrl ?? null);
    merchant.webhooks[mode] = endpoint;
    credentials[mode] = { ...issued, webhookSecret: secret };
  }
  await store.createMerchant(merchant, records);
  return { merchantId: merchant.merchantId, name: merchant.name, currency: merchant.defaultCurrency, ...credentials };
}

async function requireMerchant(merchantId: string): Promise<Merchant> {
  const merchant = await store.getMerchant(merchantId);
  if (!merchant) throw new OperatorError(`no merchant ${merchantId}`);
  return merchant;
}

/** KEY is the full API key or its id (`key_…`). Takes effect on the next request. */
export async function revokeKey(keyOrId: string) {
  const key = keyOrId.startsWith('key_') ? await store.getApiKeyById(keyOrId) : await store.getApiKeyByHash(hashApiKey(keyOrId));
  if (!key) throw new OperatorError('no such API key');
  await store.revokeApiKey(key.hash);
  return { keyId: key.keyId, merchantId: key.merchantId, mode: key.mode, status: 'revoked' as const };
}

/** New pair for a mode; the old active keys keep working for `graceSeconds` (0 = revoked now). */
export async function rotateKeys(
  merchantId: string,
  mode: Mode,
  graceSeconds = 24 * 3600,
  now = new Date(),
  scopes?: Scope[],
  mint?: Minting,
) {
  if (!Number.isInteger(graceSeconds) || graceSeconds < 0) throw new OperatorError('--grace must be a whole number of seconds >= 0');
  const merchant = await requireMerchant(merchantId);
  const old = (await store.listApiKeys(merchantId, mode)).filter(
    (k) => k.status === 'active' && (!k.expiresAt || Date.parse(k.expiresAt) > now.getTime()),
  );
  const { record, issued } = await issueKey(merchant, mode, scopes ?? old[0]?.scopes ?? [...allScopes], now, mint?.by);
  const also = mint ? await mint.authorize({ keyId: record.keyId, scopes: record.scopes, replaces: old.map((k) => k.keyId) }) : [];
  await store.rotateApiKeys(old, [record], graceSeconds, now, also);
  return {
    merchantId,
    mode,
    ...issued,
    previousKeys: old.map((k) => ({
      keyId: k.keyId,
      ...(graceSeconds === 0 ? { status: 'revoked' } : { expiresAt: new Date(now.getTime() + graceSeconds * 1000).toISOString() }),
    })),
  };
}

/**
 * One more key pair for a mode with the given scopes (the dashboard's "Create key"): the mode's
 * other keys are untouched. The key and secret are returned once and stored only hashed / sealed.
 */
export async function createKey(merchantId: string, mode: Mode, scopes: Scope[], now = new Date(), mint?: Minting) {
  const unknown = scopes.filter((s) => !allScopes.includes(s));
  if (scopes.length === 0 || unknown.length) throw new OperatorError(`scopes must be some of ${allScopes.join(', ')}`);
  const merchant = await requireMerchant(merchantId);
  const { record, issued } = await issueKey(merchant, mode, [...new Set(scopes)], now, mint?.by);
  const also = mint ? await mint.authorize({ keyId: record.keyId, scopes: record.scopes, replaces: [] }) : [];
  await store.rotateApiKeys([], [record], 0, now, also);
  return { merchantId, mode, scopes: record.scopes, ...issued };
}

/**
 * Funds a test wallet from the sandbox (test mode only; live money only comes from payments). With
 * a `reference`, a retried command credits once: the second run reports the first run's credit
 * (`alreadyCredited: true`) and refuses a different amount or currency under the same reference.
 */
export async function creditTestWallet(merchantId: string, mode: Mode, amountMinor: number, currency: Currency, reference?: string) {
  // The money core decides the credit (shared/domain/core/wallet.ts); the journal's id and time are the commit path's.
  const journalReference = reference === undefined ? `operator:${randomUUID()}` : `operator:${reference}`;
  const decision = decideTestCredit(mode, { amountMinor, currency, reference: journalReference });
  if (isRefusal(decision)) throw new OperatorError(decision.message);
  if (reference !== undefined && !/^[\x21-\x7e]{1,128}$/.test(reference))
    throw new OperatorError('--reference must be 1-128 printable ASCII characters');
  await requireMerchant(merchantId);
  // Learn the merchant's shard count first: a fresh process (every `ops` run) has none cached, and
  // postJournal would put the credit on shard 0 instead of spreading it (docs/scaling.md).
  await readShards(merchantId, mode);
  const entry = journalEntry(decision.journals[0]!, { merchantId, mode, currency }, new Date());
  const marker =
    reference === undefined
      ? []
      : [
          operatorReferenceWrite(merchantId, mode, 'wallet.credit', {
            reference,
            journalId: entry.journal.journalId,
            amountMinor,
            currency,
            createdAt: entry.journal.createdAt,
          }),
        ];
  try {
    await transact([...marker, ...postJournal(entry)]);
  } catch (error) {
    const first =
      error instanceof TransactionFailed && marker.length ? (error.reasons[0]?.item as OperatorReferenceRecord | undefined) : undefined;
    if (!first) throw error;
    // The reference ran before: the core decides from its marker (a replay, or a different credit refused).
    const again = decideTestCredit(mode, { amountMinor, currency, reference: journalReference }, first);
    if (isRefusal(again)) throw new OperatorError(again.message);
    return { merchantId, mode, currency, credited: amountMinor, journalId: first.journalId, reference, alreadyCredited: true };
  }
  return {
    merchantId,
    mode,
    currency,
    credited: amountMinor,
    journalId: entry.journal.journalId,
    ...(reference === undefined ? {} : { reference }),
    alreadyCredited: false,
  };
}

export async function setFee(merchantId: string, product: FeeProduct, fee: Fee) {
  const refused = feeRefusal(fee);
  if (refused) throw new OperatorError(refused);
  return store.changeMerchant(merchantId, (merchant) => {
    const fees = { ...merchant.fees, [product]: fee };
    return { patch: { fees }, result: { merchantId, fees } };
  });
}

export async function setSchedule(merchantId: string, schedule: SettlementSchedule) {
  const { frequency, dayOfPeriod, hourUtc } = schedule;
  if (frequency === 'weekly' && !(dayOfPeriod && dayOfPeriod >= 1 && dayOfPeriod <= 7))
    throw new OperatorError('weekly schedules need --day 1-7');
  if (frequency === 'monthly' && !(dayOfPeriod && dayOfPeriod >= 1 && dayOfPeriod <= 28))
    throw new OperatorError('monthly schedules need --day 1-28');
  if (!Number.isInteger(hourUtc) || hourUtc < 0 || hourUtc > 23) throw new OperatorError('--hour must be 0-23');
  if (frequency !== 'manual' && !schedule.destination) throw new OperatorError('automatic settlements need a destination bank account');
  await store.changeMerchant(merchantId, () => ({ patch: { settlementSchedule: schedule }, result: undefined }));
  // The run items the money sweeper picks up (shared/services/settlements.ts), at the core's next run.
  await armAutoSettlementRuns(merchantId, nextAutoSettlementRunAt(schedule, new Date()));
  return { merchantId, settlementSchedule: schedule };
}

export async function setStatus(merchantId: string, status: Merchant['status']) {
  await store.changeMerchant(merchantId, () => ({ patch: { status }, result: undefined }));
  return { merchantId, status };
}

/**
 * Sets a mode's webhook URL. The endpoint keeps its signing secret (rotate it with
 * `webhook-secret rotate`); a merchant created before secrets were always issued gets one now,
 * returned once (`webhookSecret` is null when unchanged).
 */
/**
 * Re-enables a webhook destination the dispatcher disabled (HTTP 410, or 5 days of failures):
 * the mode's endpoint URL, or `url` (a request's callbackUrl). Events recorded as
 * `endpoint_disabled` meanwhile are delivered by a resend or `ops webhooks replay`.
 */
export async function enableWebhook(merchantId: string, mode: Mode, url?: string, now = new Date()) {
  const merchant = await requireMerchant(merchantId);
  const target = url ?? merchant.webhooks[mode]?.url;
  if (!target) throw new OperatorError(`no webhook endpoint configured for ${mode} mode; give --url`);
  await enableEndpoint({ merchantId, mode, url: target }, now);
  return { merchantId, mode, url: target, enabled: true };
}

/**
 * Disables the mode's webhook endpoint at the merchant's request (the dashboard's "Disable"):
 * deliveries are recorded as `endpoint_disabled` until it is enabled again (enableWebhook).
 */
export async function disableWebhook(merchantId: string, mode: Mode, now = new Date()) {
  const merchant = await requireMerchant(merchantId);
  const target = merchant.webhooks[mode]?.url;
  if (!target) throw new OperatorError(`no webhook endpoint configured for ${mode} mode`);
  await disableEndpoint({ merchantId, mode, url: target }, 'merchant', now);
  return { merchantId, mode, url: target, enabled: false };
}

/**
 * `--events A,B` as the endpoint's subscription: undefined = leave it, null = every type (`all`).
 * Unknown names are an operator error, so a typo never silently unsubscribes.
 */
export function parseEventTypes(raw: string | undefined): WebhookEventType[] | null | undefined {
  if (raw === undefined) return undefined;
  const names = raw
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean);
  if (names.length === 1 && names[0] === 'all') return null;
  const unknown = names.filter((n) => !(webhookEventTypes as readonly string[]).includes(n));
  if (names.length === 0 || unknown.length)
    throw new OperatorError(
      `--events must be "all" or a comma-separated list of ${webhookEventTypes.join(', ')}` +
        (unknown.length ? ` (unknown: ${unknown.join(', ')})` : ''),
    );
  return [...new Set(names)] as WebhookEventType[];
}

/**
 * Sets a mode's endpoint URL and/or its event-type subscription (`events`: undefined leaves it,
 * null = every type). A new endpoint gets a signing secret, shown once.
 */
export async function setWebhook(
  merchantId: string,
  mode: Mode,
  url: string | undefined,
  allowInsecure?: boolean,
  events?: WebhookEventType[] | null,
) {
  return store.changeMerchant(merchantId, async (merchant) => {
    const insecure = allowInsecure ?? merchant.allowInsecureWebhooks;
    const existing = merchant.webhooks[mode];
    const target = url ?? existing?.url;
    if (!target) throw new OperatorError(`no webhook endpoint configured for ${mode} mode; give --url`);
    if (url !== undefined) {
      await assertSafeWebhookUrl(url, { allowInsecure: insecure }).catch((e: Error) => {
        throw new OperatorError(`webhook url ${e.message}`);
      });
    }
    const { endpoint, secret } = existing?.secrets.length
      ? { endpoint: { ...existing, url: target }, secret: null }
      : await newEndpoint(merchantId, mode, target);
    const subscribed: WebhookEndpoint = events === undefined ? endpoint : { ...endpoint, events };
    return {
      patch: { webhooks: { ...merchant.webhooks, [mode]: subscribed }, allowInsecureWebhooks: insecure },
      result: { merchantId, mode, url: target, events: subscribed.events ?? [...webhookEventTypes], webhookSecret: secret },
    };
  });
}
