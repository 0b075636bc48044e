import type { Mode } from '#shared/domain/credentials.ts';
import type { EventSubject } from '#shared/domain/events.ts';

/**
 * Every key pattern of the single table, in one place. docs/access-patterns.md lists the access
 * patterns these serve; nothing outside shared/store builds a key.
 *
 *   entity        PK                                  SK                                GSI1PK / GSI1SK
 *   Merchant      MERCHANT#<merchantId>               PROFILE                           MERCHANTS / <createdAt>#<merchantId>
 *   ApiKey        APIKEY#<sha256(apiKey)>             APIKEY
 *                 GSI1: MERCHANT#<merchantId> / APIKEY#<mode>#<createdAt>#<keyId>
 *   ApiKeyId      APIKEYID#<keyId>                    APIKEYID                          -
 *   Wallet        MERCHANT#<merchantId>               WALLET#<mode>#<currency>          -
 *   ShardConfig   MERCHANT#<merchantId>               SHARDS#<mode>                     -   (a big merchant's listing shards; absent = 1)
 *                 ([#<shard>]: shard n ≥ 1 of a big merchant's listing, shared/store/shards.ts; shard 0 has no suffix)
 *   Journal       MERCHANT#<merchantId>               JOURNAL#<mode>#<createdAt>#<id>   -
 *                 GSI3: MERCHANT#<id>#<mode>#BALTXN#<kind>[#<shard>] / <createdAt>#<id> (balance transactions by type)
 *                 GSI1: MERCHANT#<id>#<mode>#BALSRC#<reference> / <createdAt>#<id> (balance transactions of one source)
 *   BalanceCheckpoint MERCHANT#<merchantId>           BALCKPT#<mode>#<currency>#<boundary>  -  (balances at a UTC day start)
 *   WalletShard   MERCHANT#<merchantId>#SHARD#<n>     WALLET#<mode>#<currency>          -
 *                 (n ≥ 1: a big merchant's credit shard; its journals beside it)
 *   Idempotency   IDEM#<mode>#<merchantId>#<key>      IDEM                              -
 *   Intent        TXN#<paymentIntentId>               TXN
 *                 GSI1: MERCHANT#<id>#<mode>#TXN[#<shard>] / <createdAt>#<id>  (2 × the shards: transactionListShards)
 *                 GSI3: MERCHANT#<id>#<mode>#TXN#<intentType>#<status>[#<shard>] / <createdAt>#<id>
 *                 GSI2 (sparse, while something is due): DUE#<shard> / <dueAt>#<id>
 *                 GSI2 (sparse, while an approval is held): HELDAPPROVAL / <heldAt>#<id>
 *   OrderRef      ORDERREF#<mode>#<merchantId>#<ref>  ORDERREF                          -   (uniqueness + lookup pointer)
 *   TxRef         TXREF#<mode>#<merchantId>#<ref>     TXREF                             -   (lookup pointer)
 *   CustomerPayment CUSTOMER#<mode>#<merchantId>#<email|phone>#<sha256>  <createdAt>#<id>  -
 *                 (a customer's payments: the digest, never the address or number; shared/store/customer-index.ts)
 *   OutboxEvent   <home>                              EVENT#<createdAt>#<eventId>       -   (relayed to SQS by the stream)
 *                 (home = the event's subject: TXN#<paymentIntentId>, REFUND#<refundId> or SETTLEMENT#<settlementId>)
 *                 GSI2 (sparse, until the sweep saw a delivery item): WEBHOOKDUE#<shard> / <checkAt>#<eventId>
 *   EventPointer  EVENTID#<eventId>                   EVENTID                           -   (an event by its id; with the event)
 *   EventFeed     EVENTFEED#<eventId>                 EVENTFEED
 *                 GSI1: EVENTS#<merchantId>#<mode>[#<shard>] / <createdAt>#<eventId>
 *                 (the events feed; ttl 30 days; written once with the event. Entries from before the
 *                 delivery log's version 2 also carry GSI3 below, moved on every delivery state change)
 *   WebhookDelivery <home>                            DELIVERY#<eventId>                -   (state, rounds, latest attempt)
 *                 GSI3: EVENTS#<merchantId>#<mode>#<type>#<deliveryState>[#<shard>] / <createdAt>#<eventId>
 *                 (version 2: written `pending` with the event, moved by the attempt that changes the state)
 *                 GSI2 (sparse, while retrying): WEBHOOKDUE#<shard> / <dueAt>#<eventId>
 *   WebhookAttempt <home>                             DELIVERY#<eventId>#ATTEMPT#<n>    -   (an earlier attempt, immutable)
 *   WebhookHealth MERCHANT#<merchantId>               WEBHOOKHEALTH#<mode>#<sha256(url)> -  (a destination's failures, disabled or not)
 *   WebhookResend   <home>                            RESEND#<requestedAt>#<resendId>   -   (relayed to SQS by the stream; ttl)
 *   Settlement    SETTLEMENT#<id>                     SETTLEMENT
 *                 GSI1: MERCHANT#<id>#<mode>#SETTLEMENT / <requestedAt>#<id>
 *                 GSI2 (sparse, while due): MONEYDUE#<shard> / <dueAt>#<id>
 *   AutoSettlement MERCHANT#<merchantId>              AUTOSETTLE#<mode>
 *                 GSI2: MONEYDUE#<shard> / <nextRunAt>#autosettle:<id>:<mode>
 *   Refund        REFUND#<id>                         REFUND                            TXN#<paymentIntentId>#REFUND / <requestedAt>#<id>
 *                 GSI3: MERCHANT#<id>#<mode>#REFUND[#<shard>] / <requestedAt>#<id> (the merchant's refunds)
 *                 GSI2 (sparse, while due): MONEYDUE#<shard> / <dueAt>#<id>
 *   SandboxReceipt SANDBOX#<rail>#<reference>         RECEIPT                           -   (test mode: what a sandbox rail received; ttl)
 *   BankFileLine  BANKFILE#LINE#<reference>           LINE
 *                 GSI1 (sparse, while queued): BANKFILE#QUEUE#<bank>#<currency> / <queuedAt>#<reference>
 *   BankFileBatch BANKFILE#BATCH#<batchId>            BATCH
 *                 GSI1: BANKFILE#BATCHES#<bank>#<currency> / <createdAt>#<batchId>
 *   BankFileAudit BANKFILE#AUDIT#<batchId>            <at>#<auditId>                    -   (the operator's steps on a file)
 *   DashUser      DASHUSER#<userId>                   DASHUSER
 *                 GSI1: MERCHANT#<merchantId>#DASHUSER / <createdAt>#<userId>
 *   DashEmail     DASHEMAIL#<lower-case e-mail>       DASHEMAIL                         -   (uniqueness + sign-in lookup)
 *   DashMember    DASHEMAIL#<lower-case e-mail>       MERCHANT#<merchantId>             -   (a merchant invited the address once)
 *   DashInvite    DASHINVITE#<sha256(token)>          DASHINVITE                        -   (single use, 72 h; ttl)
 *   DashSession   DASHSESSION#<sha256(cookie)>        DASHSESSION                       -   (30 min idle, 12 h absolute; ttl)
 *   DashAudit     AUDIT#<merchantId>                  <at>#<auditId>                    -   (one year; ttl)
 *   DashThrottle  DASHTHROTTLE#<sha256(address)>      <window start>                    -   (failed sign-ins per client address; ttl)
 *                 DASHUSER#<userId>                   FAILURES#<window start>           -   (failed sign-ins of one account; ttl)
 *   PayoutMaker   PAYOUTMAKER#<mode>#<merchantId>#<orderRef>  PAYOUTMAKER              -   (a payout's maker: dashboard or key minter)
 *   SettlementMaker SETTLEMENTMAKER#<settlementId>    SETTLEMENTMAKER                   -   (a settlement's maker)
 *   RefundMaker   REFUNDMAKER#<refundId>              REFUNDMAKER                       -   (a refund's maker)
 *   Approvals     APPROVALS#<payout|settlement>#<id>  APPROVALS                         -   (who approved so far: both sides approve)
 *   PaymentLink   PAYLINK#<linkId>                    PAYLINK
 *                 GSI1: MERCHANT#<id>#<mode>#PAYLINK / <createdAt>#<linkId> (the merchant's links, newest first)
 *   LinkPayment   PAYLINK#<linkId>                    PAYMENT#<createdAt>#<paymentIntentId>  -  (a link's checkouts)
 */
export type Key = { PK: string; SK: string };

/** Partition key of shard `n` of a sharded listing: shard 0 is the unsuffixed key (shared/store/shards.ts). */
export const shardKey = (base: string, n: number) => (n === 0 ? base : `${base}#${n}`);
/** The partition of a merchant's wallet shard n: shard 0 is the merchant's own partition. */
const merchantShardPK = (merchantId: string, n: number) => (n === 0 ? `MERCHANT#${merchantId}` : `MERCHANT#${merchantId}#SHARD#${n}`);

/**
 * The partition key prefix of each item family a function may be confined to with an IAM
 * `dynamodb:LeadingKeys` condition (functions/routes.ts `partitions`, infra/route-stack.ts):
 * intents and their outbox events, merchants with their wallets and journals, provider-reference
 * pointers, events-feed entries (written with every status change's event), and the dashboard's
 * account items (users, e-mail pointers, invitations, sessions, audit log, sign-in throttles). test/infra/stack.test.ts checks
 * them against the key builders below.
 */
export const partitionPrefixes = {
  intent: 'TXN#',
  merchant: 'MERCHANT#',
  providerReference: 'PROVREF#',
  eventFeed: 'EVENTFEED#',
  // An event's pointer by id: written with its outbox item and feed entry (shared/store/webhooks.ts outboxWrites).
  eventPointer: 'EVENTID#',
  // Payment links and their payment pointers: the link's page creates checkouts, and every checkout
  // status change of a link's payment releases or counts its use (shared/store/payment-links.ts).
  paymentLink: 'PAYLINK#',
  // A checkout's uniqueness and lookup pointers and its customer index entries: written by the
  // payment link's page, the one unauthenticated function that creates checkouts.
  orderRef: 'ORDERREF#',
  transactionReference: 'TXREF#',
  customerPayment: 'CUSTOMER#',
  // The dashboard's sign-in Lambda (routes.ts lambdaGroups.dashboardSignIn): users, their e-mail
  // pointers, invitations, sessions, the audit log and the per-address sign-in failure counters.
  dashUser: 'DASHUSER#',
  dashEmail: 'DASHEMAIL#',
  dashInvite: 'DASHINVITE#',
  dashSession: 'DASHSESSION#',
  dashAudit: 'AUDIT#',
  dashThrottle: 'DASHTHROTTLE#',
  // Settlements: a settlement lookup stores the breakdown it computes (routes.ts getSettlement, attributeUpdates).
  settlement: 'SETTLEMENT#',
  // The families the other functions write, each confined to its own (functions/routes.ts writePartitions, jobs.ts):
  // API keys (written only by the key-managing functions; their last use by infra keyUsePolicy), Idempotency-Key
  // records, refunds, quotas, sandbox receipts, makers and approvals of money movements.
  apiKey: 'APIKEY#',
  apiKeyId: 'APIKEYID#',
  idempotency: 'IDEM#',
  refund: 'REFUND#',
  quota: 'QUOTA#',
  sandboxReceipt: 'SANDBOX#',
  payoutMaker: 'PAYOUTMAKER#',
  refundMaker: 'REFUNDMAKER#',
  settlementMaker: 'SETTLEMENTMAKER#',
  approvals: 'APPROVALS#',
  // The bank transfer file's lines (docs/providers/bank-file.md): queued when a live payout or settlement is submitted
  // to the bank file rail, and voided when its inquiry finds none; batches and their audit only by the operator's ops.
  bankFileLine: 'BANKFILE#LINE#',
} as const;
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

/*
 * The key builders: one export each, imported as a namespace (`import * as keys from
 * '#shared/store/keys.ts'`, then keys.merchant(id)), so each Lambda bundles only the builders it
 * calls (an object literal of them was 4.5 kB in every bundle; issue 26).
 */
export const merchant = (merchantId: string): Key => ({ PK: `MERCHANT#${merchantId}`, SK: 'PROFILE' });
export const merchantListing = (createdAt: string, merchantId: string) => ({ GSI1PK: 'MERCHANTS', GSI1SK: `${createdAt}#${merchantId}` });
export const allMerchants = () => ({ GSI1PK: 'MERCHANTS' });

export const apiKey = (hash: string): Key => ({ PK: `APIKEY#${hash}`, SK: 'APIKEY' });
export const apiKeyListing = (merchantId: string, mode: Mode, createdAt: string, keyId: string) => ({
  GSI1PK: `MERCHANT#${merchantId}`,
  GSI1SK: `APIKEY#${mode}#${createdAt}#${keyId}`,
});
export const apiKeysOfMerchant = (merchantId: string, mode?: Mode) => ({
  GSI1PK: `MERCHANT#${merchantId}`,
  GSI1SKPrefix: mode ? `APIKEY#${mode}#` : 'APIKEY#',
});
export const apiKeyId = (keyId: string): Key => ({ PK: `APIKEYID#${keyId}`, SK: 'APIKEYID' });

export const wallet = (merchantId: string, mode: Mode, currency: string): Key => ({
  PK: `MERCHANT#${merchantId}`,
  SK: `WALLET#${mode}#${currency}`,
});
export const walletsOfMerchant = (merchantId: string, mode: Mode, shard = 0) => ({
  PK: merchantShardPK(merchantId, shard),
  SKPrefix: `WALLET#${mode}#`,
});
/**
 * A merchant's completed payment volume of one UTC day in one mode and currency (shared/store/daily-volume.ts),
 * in the merchant's partition or one of its shard partitions (like the wallet it is credited with).
 */
export const dailyVolume = (merchantId: string, mode: Mode, day: string, currency: string, shard = 0): Key => ({
  PK: merchantShardPK(merchantId, shard),
  SK: `DAILY#${mode}#${day}#${currency}`,
});
export const dailyVolumesOfMerchant = (merchantId: string, mode: Mode, shard = 0) => ({
  PK: merchantShardPK(merchantId, shard),
  SKPrefix: `DAILY#${mode}#`,
});
/**
 * Wallet shard n of a big merchant (shared/store/wallets.ts): shard 0 is the wallet item above,
 * shard n ≥ 1 the same sort key in the merchant's shard partition `MERCHANT#<id>#SHARD#<n>`,
 * which also holds the journals posted to it.
 */
export const walletShard = (merchantId: string, mode: Mode, currency: string, shard: number): Key => ({
  PK: merchantShardPK(merchantId, shard),
  SK: `WALLET#${mode}#${currency}`,
});

export const journal = (merchantId: string, mode: Mode, createdAt: string, journalId: string, shard = 0): Key => ({
  PK: merchantShardPK(merchantId, shard),
  SK: `JOURNAL#${mode}#${createdAt}#${journalId}`,
});
export const journalsOfMerchant = (merchantId: string, mode: Mode, shard = 0) => ({
  PK: merchantShardPK(merchantId, shard),
  SKPrefix: `JOURNAL#${mode}#`,
});
/**
 * A balance checkpoint (shared/store/balance-checkpoints.ts): one merchant, mode and currency at a UTC day
 * boundary, in the merchant's own partition (shard 0's: a checkpoint sums every shard), sorted by boundary.
 */
export const balanceCheckpoint = (merchantId: string, mode: Mode, currency: string, boundary: string): Key => ({
  PK: `MERCHANT#${merchantId}`,
  SK: `BALCKPT#${mode}#${currency}#${boundary}`,
});
export const balanceCheckpointsOf = (merchantId: string, mode: Mode, currency: string) => ({
  PK: `MERCHANT#${merchantId}`,
  SKPrefix: `BALCKPT#${mode}#${currency}#`,
});
/**
 * The balance transactions' indexes on a journal item (shared/store/balance-transactions.ts): GSI3 by journal
 * kind (one partition per kind, sharded like the journal's own partition; a type is one or two kinds), GSI1 by
 * source object (one partition per object: its few journals). Both sort by `<createdAt>#<journalId>`.
 */
export const journalByKind = (merchantId: string, mode: Mode, kind: string, createdAt: string, journalId: string, shard = 0) => ({
  GSI3PK: shardKey(`MERCHANT#${merchantId}#${mode}#BALTXN#${kind}`, shard),
  GSI3SK: `${createdAt}#${journalId}`,
});
export const journalBySource = (merchantId: string, mode: Mode, reference: string, createdAt: string, journalId: string) => ({
  GSI1PK: `MERCHANT#${merchantId}#${mode}#BALSRC#${reference}`,
  GSI1SK: `${createdAt}#${journalId}`,
});

export const intent = (paymentIntentId: string): Key => ({ PK: `TXN#${paymentIntentId}`, SK: 'TXN' });
/**
 * Listings are sharded for a big merchant (shared/store/shards.ts): shard n ≥ 1 appends `#<n>`,
 * shard 0 is the unsuffixed key every merchant had before.
 */
export const intentListing = (merchantId: string, mode: Mode, createdAt: string, paymentIntentId: string, shard = 0) => ({
  GSI1PK: shardKey(`MERCHANT#${merchantId}#${mode}#TXN`, shard),
  GSI1SK: `${createdAt}#${paymentIntentId}`,
});
export const intentsOfMerchant = (merchantId: string, mode: Mode, shard = 0) => ({
  GSI1PK: shardKey(`MERCHANT#${merchantId}#${mode}#TXN`, shard),
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
) => ({
  GSI3PK: shardKey(`MERCHANT#${merchantId}#${mode}#TXN#${intentType}#${status}`, shard),
  GSI3SK: `${createdAt}#${paymentIntentId}`,
});
/** A merchant's shard count in a mode (shared/store/shards.ts); absent = 1. */
export const shardConfig = (merchantId: string, mode: Mode): Key => ({ PK: `MERCHANT#${merchantId}`, SK: `SHARDS#${mode}` });
export const orderRef = (mode: Mode, merchantId: string, orderRef: string): Key => ({
  PK: `ORDERREF#${mode}#${merchantId}#${orderRef}`,
  SK: 'ORDERREF',
});
export const transactionReference = (mode: Mode, merchantId: string, reference: string): Key => ({
  PK: `TXREF#${mode}#${merchantId}#${reference}`,
  SK: 'TXREF',
});
/**
 * The reference index (dashboard prefix search; shared/store/reference-index.ts): the orderRef and
 * transaction-reference pointers above carry GSI1 keys whose sort key is the normalized reference,
 * and the transaction-reference pointer carries GSI3 keys whose sort key is the payment id, both in
 * the merchant's and mode's `REFS` partition (sharded like the listings), so `begins_with` finds
 * every reference starting with what was typed. No new item: the pointers are written anyway.
 */
export const referenceSearch = (merchantId: string, mode: Mode, normalized: string, shard = 0) => ({
  GSI1PK: shardKey(`MERCHANT#${merchantId}#${mode}#REFS`, shard),
  GSI1SK: normalized,
});
export const paymentIdSearch = (merchantId: string, mode: Mode, paymentIntentId: string, shard = 0) => ({
  GSI3PK: shardKey(`MERCHANT#${merchantId}#${mode}#REFS`, shard),
  GSI3SK: paymentIntentId.toLowerCase(),
});
export const referencesOfMerchant = (merchantId: string, mode: Mode, shard = 0) => shardKey(`MERCHANT#${merchantId}#${mode}#REFS`, shard);
/**
 * A customer's payments (dashboard search by e-mail or phone; shared/store/customer-index.ts):
 * one pointer per intent and contact, in a partition named by a SHA-256 digest of the merchant,
 * mode and normalized contact, so the key never holds the e-mail address or phone number itself.
 */
export const customerPayment = (
  mode: Mode,
  merchantId: string,
  kind: string,
  digest: string,
  createdAt: string,
  paymentIntentId: string,
): Key => ({
  PK: `CUSTOMER#${mode}#${merchantId}#${kind}#${digest}`,
  SK: `${createdAt}#${paymentIntentId}`,
});
export const paymentsOfCustomer = (mode: Mode, merchantId: string, kind: string, digest: string) => ({
  PK: `CUSTOMER#${mode}#${merchantId}#${kind}#${digest}`,
});
/**
 * An event's home: the partition of what it is about (its transaction, refund or settlement),
 * which holds its outbox item, delivery log and resend requests.
 */
export const eventHome = (subject: EventSubject): string => `${subjectPrefix[subject.kind]}#${subject.id}`;
export const outboxEvent = (subject: EventSubject, createdAt: string, eventId: string): Key => ({
  PK: eventHome(subject),
  SK: `EVENT#${createdAt}#${eventId}`,
});
export const eventsOf = (subject: EventSubject) => ({ PK: eventHome(subject), SKPrefix: 'EVENT#' });

/** Webhooks (shared/store/webhooks.ts): the delivery log lives in the event's home partition. */
export const eventPointer = (eventId: string): Key => ({ PK: `EVENTID#${eventId}`, SK: 'EVENTID' });
export const webhookDelivery = (subject: EventSubject, eventId: string): Key => webhookDeliveryIn(eventHome(subject), eventId);
/** The delivery item by its home partition (the events feed keeps `home`, not the subject). */
export const webhookDeliveryIn = (home: string, eventId: string): Key => ({ PK: home, SK: `DELIVERY#${eventId}` });
/** An attempt moved out of its delivery item by the next one (immutable; beside the delivery item). */
export const webhookAttempt = (subject: EventSubject, eventId: string, attempt: number): Key => ({
  PK: eventHome(subject),
  SK: `DELIVERY#${eventId}#ATTEMPT#${String(attempt).padStart(6, '0')}`,
});
export const attemptsOf = (subject: EventSubject, eventId: string) => ({
  PK: eventHome(subject),
  SKPrefix: `DELIVERY#${eventId}#ATTEMPT#`,
});
export const deliveriesOfIntent = (paymentIntentId: string) => ({ PK: `TXN#${paymentIntentId}`, SKPrefix: 'DELIVERY#' });
/**
 * The events feed (shared/store/event-feed.ts): one item per event. GSI1 lists a merchant's
 * events in a mode; GSI3 by type and delivery state (moved when the state changes). `EVENTS#`
 * prefixes, so no pattern ever meets the `MERCHANT#` listings of the same indexes.
 */
export const eventFeed = (eventId: string): Key => ({ PK: `EVENTFEED#${eventId}`, SK: 'EVENTFEED' });
export const eventFeedListing = (merchantId: string, mode: Mode, createdAt: string, eventId: string, shard = 0) => ({
  GSI1PK: shardKey(`EVENTS#${merchantId}#${mode}`, shard),
  GSI1SK: `${createdAt}#${eventId}`,
});
export const eventFeedByTypeState = (
  merchantId: string,
  mode: Mode,
  type: string,
  state: string,
  createdAt: string,
  eventId: string,
  shard = 0,
) => ({
  GSI3PK: shardKey(`EVENTS#${merchantId}#${mode}#${type}#${state}`, shard),
  GSI3SK: `${createdAt}#${eventId}`,
});
/** A merchant's destination URL's health (shared/store/webhook-health.ts). */
export const webhookHealth = (merchantId: string, mode: Mode, urlHash: string): Key => ({
  PK: `MERCHANT#${merchantId}`,
  SK: `WEBHOOKHEALTH#${mode}#${urlHash}`,
});
/**
 * The webhook sweep's due index (GSI2, sparse; shared/webhooks/sweep.ts): outbox events until a
 * delivery item exists, delivery items while a retry waits (parked or on a delayed message).
 */
export const webhookDue = (id: string, dueAt: string) => ({ GSI2PK: `WEBHOOKDUE#${dueShard(id)}`, GSI2SK: `${dueAt}#${id}` });
export const webhookDueShards = () => Array.from({ length: dueShardCount }, (_, i) => `WEBHOOKDUE#${i}`);
export const webhookResend = (subject: EventSubject, requestedAt: string, resendId: string): Key => ({
  PK: eventHome(subject),
  SK: `RESEND#${requestedAt}#${resendId}`,
});

/**
 * The "due" index (GSI2, sparse): an item that needs attention at a time (a checkout to expire, a
 * charge to reconcile) carries these attributes until it is dealt with. Spread over a few shards
 * so no partition is hot; a sweep queries every shard for `GSI2SK <= now`.
 */
export const due = (id: string, dueAt: string) => ({ GSI2PK: `DUE#${dueShard(id)}`, GSI2SK: `${dueAt}#${id}` });
export const dueShards = () => Array.from({ length: dueShardCount }, (_, i) => `DUE#${i}`);
/**
 * Wallet approvals held for an operator decision (a suspended merchant's deposit or checkout;
 * shared/services/held-approvals.ts): GSI2, sparse, instead of the due index while held. One
 * partition: holds are rare and the operator lists them all, oldest first.
 */
export const heldApproval = (id: string, heldAt: string) => ({ GSI2PK: 'HELDAPPROVAL', GSI2SK: `${heldAt}#${id}` });

/** Deposits: the wallet provider's reference → the intent (provider callbacks carry only that). */
export const providerReference = (provider: string, reference: string): Key => ({ PK: `PROVREF#${provider}#${reference}`, SK: 'PROVREF' });

/** Settlements and refunds (shared/store/settlements.ts, refunds.ts). */
export const settlement = (id: string): Key => ({ PK: `SETTLEMENT#${id}`, SK: 'SETTLEMENT' });
/** A large settlement breakdown being summed in the background (shared/services/settlement-breakdown.ts), in the money due index. */
export const settlementBreakdownJob = (id: string): Key => ({ PK: `SETTLEMENT#${id}`, SK: 'BREAKDOWNJOB' });
export const settlementListing = (merchantId: string, mode: Mode, requestedAt: string, id: string) => ({
  GSI1PK: `MERCHANT#${merchantId}#${mode}#SETTLEMENT`,
  GSI1SK: `${requestedAt}#${id}`,
});
export const settlementsOfMerchant = (merchantId: string, mode: Mode) => ({ GSI1PK: `MERCHANT#${merchantId}#${mode}#SETTLEMENT` });
export const autoSettlement = (merchantId: string, mode: Mode): Key => ({ PK: `MERCHANT#${merchantId}`, SK: `AUTOSETTLE#${mode}` });
export const refund = (id: string): Key => ({ PK: `REFUND#${id}`, SK: 'REFUND' });
export const refundListing = (paymentIntentId: string, requestedAt: string, id: string) => ({
  GSI1PK: `TXN#${paymentIntentId}#REFUND`,
  GSI1SK: `${requestedAt}#${id}`,
});
export const refundsOfIntent = (paymentIntentId: string) => ({ GSI1PK: `TXN#${paymentIntentId}#REFUND` });
/**
 * GSI3: a merchant's refunds in one mode, newest first (the dashboard's refunds list). Sharded like
 * the listings: every change of a refund rewrites its entry (the index projects ALL), so one
 * partition capped a big merchant at about 115 refunds/s (docs/scaling.md).
 */
export const refundOfMerchant = (merchantId: string, mode: Mode, requestedAt: string, id: string, shard = 0) => ({
  GSI3PK: shardKey(`MERCHANT#${merchantId}#${mode}#REFUND`, shard),
  GSI3SK: `${requestedAt}#${id}`,
});
/**
 * The due index (GSI2) for settlements, refunds and automatic-settlement runs: the same sparse
 * time-bucket pattern as `due`, in its own shards so each sweep reads only its own items.
 */
export const moneyDue = (id: string, dueAt: string) => ({ GSI2PK: `MONEYDUE#${dueShard(id)}`, GSI2SK: `${dueAt}#${id}` });
export const moneyDueShards = () => Array.from({ length: dueShardCount }, (_, i) => `MONEYDUE#${i}`);

export const idempotency = (mode: Mode, merchantId: string, idempotencyKey: string): Key => ({
  PK: `IDEM#${mode}#${merchantId}#${idempotencyKey}`,
  SK: 'IDEM',
});
/** A fixed-window quota counter (ttl): `subject` names what is counted, `window` the window's start. */
export const quota = (mode: Mode, merchantId: string, subject: string, window: string): Key => ({
  PK: `QUOTA#${mode}#${merchantId}#${subject}`,
  SK: window,
});
/** Test mode: a submission a sandbox rail received (shared/store/sandbox-receipts.ts). */
export const sandboxReceipt = (rail: string, reference: string): Key => ({ PK: `SANDBOX#${rail}#${reference}`, SK: 'RECEIPT' });
/** The bank transfer file rail (shared/store/bank-file.ts): a line per reference, its files, the operator's steps. */
export const bankFileLine = (reference: string): Key => ({ PK: `BANKFILE#LINE#${reference}`, SK: 'LINE' });
export const bankFileQueue = (bank: string, currency: string) => ({ GSI1PK: `BANKFILE#QUEUE#${bank}#${currency}` });
export const bankFileQueued = (bank: string, currency: string, queuedAt: string, reference: string) => ({
  ...bankFileQueue(bank, currency),
  GSI1SK: `${queuedAt}#${reference}`,
});
export const bankFileBatch = (batchId: string): Key => ({ PK: `BANKFILE#BATCH#${batchId}`, SK: 'BATCH' });
export const bankFileBatches = (bank: string, currency: string) => ({ GSI1PK: `BANKFILE#BATCHES#${bank}#${currency}` });
export const bankFileBatchListing = (bank: string, currency: string, createdAt: string, batchId: string) => ({
  ...bankFileBatches(bank, currency),
  GSI1SK: `${createdAt}#${batchId}`,
});
export const bankFileAudit = (batchId: string, at: string, auditId: string): Key => ({
  PK: `BANKFILE#AUDIT#${batchId}`,
  SK: `${at}#${auditId}`,
});
export const bankFileAuditOf = (batchId: string) => ({ PK: `BANKFILE#AUDIT#${batchId}` });
/** Merchant dashboard (shared/store/dashboard.ts): users, invites, sessions, audit log, sign-in throttling. */
export const dashUser = (userId: string): Key => ({ PK: `DASHUSER#${userId}`, SK: 'DASHUSER' });
export const dashUserListing = (merchantId: string, createdAt: string, userId: string) => ({
  GSI1PK: `MERCHANT#${merchantId}#DASHUSER`,
  GSI1SK: `${createdAt}#${userId}`,
});
export const dashUsersOfMerchant = (merchantId: string) => ({ GSI1PK: `MERCHANT#${merchantId}#DASHUSER` });
export const dashEmail = (email: string): Key => ({ PK: `DASHEMAIL#${email}`, SK: 'DASHEMAIL' });
/** A merchant invited this e-mail address (one user per address and merchant; next to the address's sign-in pointer). */
export const dashMember = (email: string, merchantId: string): Key => ({ PK: `DASHEMAIL#${email}`, SK: `MERCHANT#${merchantId}` });
export const dashInvite = (tokenHash: string): Key => ({ PK: `DASHINVITE#${tokenHash}`, SK: 'DASHINVITE' });
export const dashSession = (sessionHash: string): Key => ({ PK: `DASHSESSION#${sessionHash}`, SK: 'DASHSESSION' });
export const dashAudit = (merchantId: string, at: string, auditId: string): Key => ({ PK: `AUDIT#${merchantId}`, SK: `${at}#${auditId}` });
export const dashAuditOfMerchant = (merchantId: string) => ({ PK: `AUDIT#${merchantId}` });
export const dashThrottle = (addressHash: string, window: string): Key => ({ PK: `DASHTHROTTLE#${addressHash}`, SK: window });
/** An account's failed sign-ins in one window (atomic ADD; in the user's partition, so the sign-in Lambda's keys cover it). */
export const dashUserFailures = (userId: string, window: string): Key => ({ PK: `DASHUSER#${userId}`, SK: `FAILURES#${window}` });
export const payoutMaker = (mode: Mode, merchantId: string, orderRef: string): Key => ({
  PK: `PAYOUTMAKER#${mode}#${merchantId}#${orderRef}`,
  SK: 'PAYOUTMAKER',
});
export const settlementMaker = (settlementId: string): Key => ({ PK: `SETTLEMENTMAKER#${settlementId}`, SK: 'SETTLEMENTMAKER' });
export const refundMaker = (refundId: string): Key => ({ PK: `REFUNDMAKER#${refundId}`, SK: 'REFUNDMAKER' });
export const approvals = (kind: 'payout' | 'settlement' | 'refund', id: string): Key => ({
  PK: `APPROVALS#${kind}#${id}`,
  SK: 'APPROVALS',
});

/** An operator command's own reference (`ops wallet credit --reference`), kept forever: it runs once. */
export const operatorReference = (merchantId: string, mode: Mode, command: string, reference: string): Key => ({
  PK: `MERCHANT#${merchantId}`,
  SK: `OPREF#${mode}#${command}#${reference}`,
});

/** Payment links (shared/store/payment-links.ts): the link, its listing and its payments' pointers. */
export const paymentLink = (linkId: string): Key => ({ PK: `PAYLINK#${linkId}`, SK: 'PAYLINK' });
export const paymentLinkListing = (merchantId: string, mode: Mode, createdAt: string, linkId: string) => ({
  GSI1PK: `MERCHANT#${merchantId}#${mode}#PAYLINK`,
  GSI1SK: `${createdAt}#${linkId}`,
});
export const paymentLinksOfMerchant = (merchantId: string, mode: Mode) => ({ GSI1PK: `MERCHANT#${merchantId}#${mode}#PAYLINK` });
export const linkPayment = (linkId: string, createdAt: string, paymentIntentId: string): Key => ({
  PK: `PAYLINK#${linkId}`,
  SK: `PAYMENT#${createdAt}#${paymentIntentId}`,
});
export const paymentsOfLink = (linkId: string) => ({ PK: `PAYLINK#${linkId}`, SKPrefix: 'PAYMENT#' });
