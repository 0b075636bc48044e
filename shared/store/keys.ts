import type { Mode } from '#shared/domain/credentials.ts';
import type { EventSubject } from '#shared/domain/events.ts';
import * as E from './entities.ts';
import { fill, partitionFamilies, partitionOf, prefix } from './entity.ts';

/**
 * The key builders of the single table, each derived from its entity's declaration (shared/store/entities.ts,
 * where every key template is written once). docs/access-patterns.md lists the access patterns they serve and is
 * generated from the same declarations; nothing outside shared/store builds a key. Imported as a namespace
 * (`import * as keys from '#shared/store/keys.ts'`), so each Lambda bundles only the builders it calls (issue 26).
 */
export type { Key } from './entity.ts';
type Key = import('./entity.ts').Key;

/** Partition key of shard `n` of a sharded listing: shard 0 is the unsuffixed key (shared/store/shards.ts). */
export const shardKey = (base: string, n: number) => (n === 0 ? base : `${base}#${n}`);

/**
 * The partition key prefix of each item family a function may be confined to with an IAM `dynamodb:LeadingKeys`
 * condition (functions/routes.ts `partitions`, infra/route-stack.ts): each declared `family` and the literal head of its
 * entities' partition key template. test/infra/stack.test.ts checks them against the key builders below.
 */
export const partitionPrefixes = /* @__PURE__ */ partitionFamilies(E.allEntities);
export type PartitionFamily = keyof typeof partitionPrefixes;

const subjectPrefix: Record<EventSubject['kind'], string> = { transaction: 'TXN', refund: 'REFUND', settlement: 'SETTLEMENT' };

/**
 * Shards of the platform-wide due indexes (GSI2 `DUE#`, `MONEYDUE#`, `WEBHOOKDUE#`): every intent
 * update rewrites its due entry while it is due, so one big merchant alone puts several write units
 * per checkout here (docs/scaling.md). 32 partitions take ~32,000 WCU/s; a sweep reads 32 small
 * queries per family. Items written under the earlier 4 shards sit in DUE#0-3, still read.
 */
export const dueShardCount = 32;
function dueShard(id: string): number {
  let h = 0;
  for (const c of id) h = (h * 31 + c.charCodeAt(0)) >>> 0;
  return h % dueShardCount;
}
const shardNames = (family: string) => Array.from({ length: dueShardCount }, (_, i) => `${family}#${i}`);
const dueValues = (id: string, dueAt: string) => ({ id, dueAt, dueShard: dueShard(id) });

export const merchant = (merchantId: string): Key => E.Merchant.key({ merchantId });
export const merchantListing = (createdAt: string, merchantId: string) => E.Merchant.index('listing', { createdAt, merchantId });
export const allMerchants = () => ({ GSI1PK: E.Merchant.decl.indexes.listing.GSI1PK });

export const apiKey = (hash: string): Key => E.ApiKey.key({ hash });
export const apiKeyListing = (merchantId: string, mode: Mode, createdAt: string, keyId: string) =>
  E.ApiKey.index('ofMerchant', { merchantId, mode, createdAt, keyId });
export const apiKeysOfMerchant = (merchantId: string, mode?: Mode) => {
  const { GSI1PK, GSI1SK } = E.ApiKey.decl.indexes.ofMerchant;
  return { GSI1PK: prefix(GSI1PK, { merchantId }), GSI1SKPrefix: prefix(GSI1SK, { mode }) };
};
export const apiKeyId = (keyId: string): Key => E.ApiKeyId.key({ keyId });

export const wallet = (merchantId: string, mode: Mode, currency: string): Key => E.Wallet.key({ merchantId, mode, currency });
export const walletsOfMerchant = (merchantId: string, mode: Mode, shard = 0) => partitionOf(E.Wallet, { merchantId, mode, shard });
/** A merchant's completed payment volume of a UTC day, mode and currency (daily-volume.ts), beside the wallet shard it credits. */
export const dailyVolume = (merchantId: string, mode: Mode, day: string, currency: string, shard = 0): Key =>
  E.DailyVolume.key({ merchantId, mode, day, currency, shard });
export const dailyVolumesOfMerchant = (merchantId: string, mode: Mode, shard = 0) =>
  partitionOf(E.DailyVolume, { merchantId, mode, shard });
/** Wallet shard n of a big merchant (wallets.ts): shard 0 is the wallet item, n ≥ 1 the same sort key in `MERCHANT#<id>#SHARD#<n>`. */
export const walletShard = (merchantId: string, mode: Mode, currency: string, shard: number): Key =>
  E.Wallet.key({ merchantId, mode, currency, shard });

export const journal = (merchantId: string, mode: Mode, createdAt: string, journalId: string, shard = 0): Key =>
  E.Journal.key({ merchantId, mode, createdAt, journalId, shard });
export const journalsOfMerchant = (merchantId: string, mode: Mode, shard = 0) => partitionOf(E.Journal, { merchantId, mode, shard });
/** A balance checkpoint (balance-checkpoints.ts): in the merchant's own partition (a checkpoint sums every shard), sorted by boundary. */
export const balanceCheckpoint = (merchantId: string, mode: Mode, currency: string, boundary: string): Key =>
  E.BalanceCheckpoint.key({ merchantId, mode, currency, boundary });
export const balanceCheckpointsOf = (merchantId: string, mode: Mode, currency: string) =>
  partitionOf(E.BalanceCheckpoint, { merchantId, mode, currency });
/** The balance transactions' indexes on a journal (balance-transactions.ts): GSI3 by kind (sharded like the journal), GSI1 by source. */
export const journalByKind = (merchantId: string, mode: Mode, kind: string, createdAt: string, journalId: string, shard = 0) =>
  E.Journal.index('byKind', { merchantId, mode, kind, createdAt, journalId, shard });
export const journalBySource = (merchantId: string, mode: Mode, reference: string, createdAt: string, journalId: string) =>
  E.Journal.index('bySource', { merchantId, mode, reference, createdAt, journalId });

export const intent = (paymentIntentId: string): Key => E.Intent.key({ paymentIntentId });
/** Listings are sharded for a big merchant (shards.ts): shard n ≥ 1 appends `#<n>`, shard 0 is the unsuffixed key. */
export const intentListing = (merchantId: string, mode: Mode, createdAt: string, paymentIntentId: string, shard = 0) =>
  E.Intent.index('listing', { merchantId, mode, createdAt, paymentIntentId, shard });
export const intentsOfMerchant = (merchantId: string, mode: Mode, shard = 0) => ({
  GSI1PK: fill(E.Intent.decl.indexes.listing.GSI1PK, { merchantId, mode, shard }),
});
/** GSI3: one partition per (type, status) (and shard); moved on every status change. */
export const intentByTypeStatus = (
  merchantId: string,
  mode: Mode,
  intentType: string,
  status: string,
  createdAt: string,
  paymentIntentId: string,
  shard = 0,
) => E.Intent.index('byTypeStatus', { merchantId, mode, intentType, status, createdAt, paymentIntentId, shard });
/** A merchant's shard count in a mode (shards.ts); absent = 1. */
export const shardConfig = (merchantId: string, mode: Mode): Key => E.ShardConfig.key({ merchantId, mode });
export const orderRef = (mode: Mode, merchantId: string, orderRef: string): Key => E.OrderRef.key({ mode, merchantId, orderRef });
export const transactionReference = (mode: Mode, merchantId: string, reference: string): Key =>
  E.TxRef.key({ mode, merchantId, reference });
/**
 * The reference index (dashboard prefix search; reference-index.ts): the orderRef and transaction-reference pointers carry
 * GSI1 keys (the normalized reference) and the transaction-reference pointer GSI3 keys (the payment id), in the merchant's
 * and mode's `REFS` partition (sharded like the listings), so `begins_with` finds every reference starting with what was typed.
 */
export const referenceSearch = (merchantId: string, mode: Mode, normalized: string, shard = 0) =>
  E.TxRef.index('search', { merchantId, mode, normalized, shard });
export const paymentIdSearch = (merchantId: string, mode: Mode, paymentIntentId: string, shard = 0) =>
  E.TxRef.index('paymentId', { merchantId, mode, paymentId: paymentIntentId.toLowerCase(), shard });
export const referencesOfMerchant = (merchantId: string, mode: Mode, shard = 0) =>
  fill(E.TxRef.decl.indexes.search.GSI1PK, { merchantId, mode, shard });
/** A customer's payments (customer-index.ts): a partition named by a digest of merchant, mode and contact, never the contact itself. */
export const customerPayment = (
  mode: Mode,
  merchantId: string,
  kind: string,
  digest: string,
  createdAt: string,
  paymentIntentId: string,
): Key => E.CustomerPayment.key({ mode, merchantId, kind, digest, createdAt, paymentIntentId });
export const paymentsOfCustomer = (mode: Mode, merchantId: string, kind: string, digest: string) => ({
  PK: fill(E.CustomerPayment.decl.pk, { mode, merchantId, kind, digest }),
});
/** An event's home: the partition of what it is about (its transaction, refund or settlement): its outbox item, delivery log, resends. */
export const eventHome = (subject: EventSubject): string => `${subjectPrefix[subject.kind]}#${subject.id}`;
export const outboxEvent = (subject: EventSubject, createdAt: string, eventId: string): Key =>
  E.OutboxEvent.key({ home: eventHome(subject), createdAt, eventId });
export const eventsOf = (subject: EventSubject) => partitionOf(E.OutboxEvent, { home: eventHome(subject) });

/** Webhooks (webhooks.ts): the delivery log lives in the event's home partition. */
export const eventPointer = (eventId: string): Key => E.EventPointer.key({ eventId });
export const webhookDelivery = (subject: EventSubject, eventId: string): Key =>
  E.WebhookDelivery.key({ home: eventHome(subject), eventId });
export const deliveriesOfIntent = (paymentIntentId: string) =>
  partitionOf(E.WebhookDelivery, { home: eventHome({ kind: 'transaction', id: paymentIntentId }) });
/** The events feed (event-feed.ts): GSI1 a merchant's events in a mode; GSI3 by type and delivery state (moved when it changes). */
export const eventFeed = (eventId: string): Key => E.EventFeed.key({ eventId });
export const eventFeedListing = (merchantId: string, mode: Mode, createdAt: string, eventId: string, shard = 0) =>
  E.EventFeed.index('listing', { merchantId, mode, createdAt, eventId, shard });
export const eventFeedByTypeState = (
  merchantId: string,
  mode: Mode,
  type: string,
  state: string,
  createdAt: string,
  eventId: string,
  shard = 0,
) => E.EventFeed.index('byTypeState', { merchantId, mode, type, state, createdAt, eventId, shard });
/** A merchant's destination URL's health (webhook-health.ts). */
export const webhookHealth = (merchantId: string, mode: Mode, urlHash: string): Key => E.WebhookHealth.key({ merchantId, mode, urlHash });
/** The webhook sweep's due index (GSI2, sparse): outbox events until a delivery item exists, delivery items while a retry waits. */
export const webhookDue = (id: string, dueAt: string) => E.OutboxEvent.index('due', dueValues(id, dueAt));
export const webhookDueShards = () => shardNames('WEBHOOKDUE');
export const webhookResend = (subject: EventSubject, requestedAt: string, resendId: string): Key =>
  E.WebhookResend.key({ home: eventHome(subject), requestedAt, resendId });

/**
 * The "due" index (GSI2, sparse): an item that needs attention at a time (a checkout to expire, a charge to reconcile)
 * carries these attributes until it is dealt with, spread over dueShardCount shards; a sweep queries each for `GSI2SK <= now`.
 */
export const due = (id: string, dueAt: string) => E.Intent.index('due', dueValues(id, dueAt));
export const dueShards = () => shardNames('DUE');
/** Wallet approvals held for an operator decision (held-approvals.ts): GSI2, sparse, one partition listed oldest first. */
export const heldApproval = (id: string, heldAt: string) => E.Intent.index('heldApproval', { id, heldAt });

/** Deposits: the wallet provider's reference → the intent (provider callbacks carry only that). */
export const providerReference = (provider: string, reference: string): Key => E.ProviderRef.key({ provider, reference });

/** Settlements and refunds (settlements.ts, refunds.ts). */
export const settlement = (id: string): Key => E.Settlement.key({ settlementId: id });
/** A large settlement breakdown being summed in the background (settlement-breakdown.ts), in the money due index. */
export const settlementBreakdownJob = (id: string): Key => E.BreakdownJob.key({ settlementId: id });
export const settlementListing = (merchantId: string, mode: Mode, requestedAt: string, id: string) =>
  E.Settlement.index('listing', { merchantId, mode, requestedAt, settlementId: id });
export const settlementsOfMerchant = (merchantId: string, mode: Mode) => ({
  GSI1PK: fill(E.Settlement.decl.indexes.listing.GSI1PK, { merchantId, mode }),
});
export const autoSettlement = (merchantId: string, mode: Mode): Key => E.AutoSettlement.key({ merchantId, mode });
export const refund = (id: string): Key => E.Refund.key({ refundId: id });
export const refundListing = (paymentIntentId: string, requestedAt: string, id: string) =>
  E.Refund.index('ofIntent', { paymentIntentId, requestedAt, refundId: id });
export const refundsOfIntent = (paymentIntentId: string) => ({ GSI1PK: fill(E.Refund.decl.indexes.ofIntent.GSI1PK, { paymentIntentId }) });
/** GSI3: a merchant's refunds in one mode, newest first; sharded like the listings (one partition capped a big merchant at ~115/s). */
export const refundOfMerchant = (merchantId: string, mode: Mode, requestedAt: string, id: string, shard = 0) =>
  E.Refund.index('ofMerchant', { merchantId, mode, requestedAt, refundId: id, shard });
/** The due index (GSI2) for settlements, refunds and automatic-settlement runs: as `due`, in its own shards. */
export const moneyDue = (id: string, dueAt: string) => E.Settlement.index('due', dueValues(id, dueAt));
export const moneyDueShards = () => shardNames('MONEYDUE');

export const idempotency = (mode: Mode, merchantId: string, idempotencyKey: string): Key =>
  E.Idempotency.key({ mode, merchantId, key: idempotencyKey });
/** A fixed-window quota counter (ttl): `subject` names what is counted, `window` the window's start. */
export const quota = (mode: Mode, merchantId: string, subject: string, window: string): Key =>
  E.Quota.key({ mode, merchantId, subject, window });
/** Test mode: a submission a sandbox rail received (sandbox-receipts.ts). */
export const sandboxReceipt = (rail: string, reference: string): Key => E.SandboxReceipt.key({ rail, reference });
/** The bank transfer file rail (bank-file.ts): a line per reference, its files, the operator's steps. */
export const bankFileLine = (reference: string): Key => E.BankFileLine.key({ reference });
export const bankFileQueue = (bank: string, currency: string) => ({
  GSI1PK: fill(E.BankFileLine.decl.indexes.queue.GSI1PK, { bank, currency }),
});
export const bankFileQueued = (bank: string, currency: string, queuedAt: string, reference: string) =>
  E.BankFileLine.index('queue', { bank, currency, queuedAt, reference });
export const bankFileBatch = (batchId: string): Key => E.BankFileBatch.key({ batchId });
export const bankFileBatches = (bank: string, currency: string) => ({
  GSI1PK: fill(E.BankFileBatch.decl.indexes.listing.GSI1PK, { bank, currency }),
});
export const bankFileBatchListing = (bank: string, currency: string, createdAt: string, batchId: string) =>
  E.BankFileBatch.index('listing', { bank, currency, createdAt, batchId });
export const bankFileAudit = (batchId: string, at: string, auditId: string): Key => E.BankFileAudit.key({ batchId, at, auditId });
export const bankFileAuditOf = (batchId: string) => ({ PK: fill(E.BankFileAudit.decl.pk, { batchId }) });
/** Merchant dashboard (dashboard.ts): users, invites, sessions, audit log, sign-in throttling. */
export const dashUser = (userId: string): Key => E.DashUser.key({ userId });
export const dashUserListing = (merchantId: string, createdAt: string, userId: string) =>
  E.DashUser.index('listing', { merchantId, createdAt, userId });
export const dashUsersOfMerchant = (merchantId: string) => ({ GSI1PK: fill(E.DashUser.decl.indexes.listing.GSI1PK, { merchantId }) });
export const dashEmail = (email: string): Key => E.DashEmail.key({ email });
/** A merchant invited this e-mail address (one user per address and merchant; next to the address's sign-in pointer). */
export const dashMember = (email: string, merchantId: string): Key => E.DashMember.key({ email, merchantId });
export const dashInvite = (tokenHash: string): Key => E.DashInvite.key({ tokenHash });
export const dashSession = (sessionHash: string): Key => E.DashSession.key({ sessionHash });
export const dashAudit = (merchantId: string, at: string, auditId: string): Key => E.DashAudit.key({ merchantId, at, auditId });
export const dashAuditOfMerchant = (merchantId: string) => ({ PK: fill(E.DashAudit.decl.pk, { merchantId }) });
export const dashThrottle = (addressHash: string, window: string): Key => E.DashThrottle.key({ addressHash, window });
/** An account's failed sign-ins in one window (atomic ADD; in the user's partition, so the sign-in Lambda's keys cover it). */
export const dashUserFailures = (userId: string, window: string): Key => E.DashUserFailures.key({ userId, window });
export const payoutMaker = (mode: Mode, merchantId: string, orderRef: string): Key => E.PayoutMaker.key({ mode, merchantId, orderRef });
export const settlementMaker = (settlementId: string): Key => E.SettlementMaker.key({ settlementId });
export const refundMaker = (refundId: string): Key => E.RefundMaker.key({ refundId });
export const approvals = (kind: 'payout' | 'settlement' | 'refund', id: string): Key => E.Approvals.key({ kind, id });

/** An operator command's own reference (`ops wallet credit --reference`), kept forever: it runs once. */
export const operatorReference = (merchantId: string, mode: Mode, command: string, reference: string): Key =>
  E.OperatorReference.key({ merchantId, mode, command, reference });

/** Payment links (payment-links.ts): the link, its listing and its payments' pointers. */
export const paymentLink = (linkId: string): Key => E.PaymentLink.key({ linkId });
export const paymentLinkListing = (merchantId: string, mode: Mode, createdAt: string, linkId: string) =>
  E.PaymentLink.index('listing', { merchantId, mode, createdAt, linkId });
export const paymentLinksOfMerchant = (merchantId: string, mode: Mode) => ({
  GSI1PK: fill(E.PaymentLink.decl.indexes.listing.GSI1PK, { merchantId, mode }),
});
export const linkPayment = (linkId: string, createdAt: string, paymentIntentId: string): Key =>
  E.LinkPayment.key({ linkId, createdAt, paymentIntentId });
export const paymentsOfLink = (linkId: string) => partitionOf(E.LinkPayment, { linkId });
