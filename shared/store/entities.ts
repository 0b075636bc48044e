import { checkWritesWith, type EntityDecl } from './entity.ts';

/*
 * Every stored entity of the one table, declared once (the layer: shared/store/entity.ts): its entity tag, key
 * templates, indexes, IAM partition family, how it is created, the attributes the code may update, and the key
 * builders made from it (`keys`). `npm run docs` generates from these declarations shared/store/keys.gen.ts (the key
 * builders, as template literals: no Lambda bundles the declarations), `partitionPrefixes` (infra's LeadingKeys
 * families) and docs/access-patterns.md's item table; tests fail when either is stale, and
 * test/unit/store-entities.test.ts holds every builder to the keys stored before the declarations.
 *
 * Templates: `{x}` a value, `{lit x?}` lit and the value only when it is not 0 (a shard: `MERCHANT#{merchantId}{#SHARD#shard?}`).
 * A builder: `shape(params; slot = expression)`: shape `key` ({ PK, SK }), `pk` ({ PK }), `partition` ({ PK, SKPrefix }:
 * the sort key up to the first value not given), an index's name (its attributes), `<index>.pk` (its partition
 * attribute), `<index>.pkValue` (that string) or `<index>.shards` (every shard of a due index). Params are strings unless
 * typed (`mode` is a Mode, `shard = 0` a number).
 */
/** Declares an entity: its declaration, typed as written. */
const entity = <const D extends EntityDecl>(decl: D): D => decl;

const merchantShard = 'MERCHANT#{merchantId}{#SHARD#shard?}';
const due = (family: string) => ({ GSI2PK: `${family}#{dueShard}`, GSI2SK: '{dueAt}#{id}' });

/** Name, status, currency, fees, settlement schedule, webhook endpoints (secrets sealed) */
export const Merchant = entity({
  tag: 'Merchant',
  family: 'merchant',
  pk: 'MERCHANT#{merchantId}',
  sk: 'PROFILE',
  indexes: { listing: { GSI1PK: 'MERCHANTS', GSI1SK: '{createdAt}#{merchantId}' } },
  updates: ['*'],
  keys: { merchant: 'key(merchantId)', merchantListing: 'listing(createdAt, merchantId)', allMerchants: 'listing.pk()' },
});
/**
 * The key is stored only as its hash; its paired secret key sealed (AES-256-GCM); merchant status and currency
 * copied on so one read authenticates; `lastUsedAt` (1b); `mintedBy` (userId, e-mail: the dashboard user who
 * created or rolled it; absent for the operator's keys and keys minted before)
 */
export const ApiKey = entity({
  tag: 'ApiKey',
  family: 'apiKey',
  pk: 'APIKEY#{hash}',
  sk: 'APIKEY',
  indexes: { ofMerchant: { GSI1PK: 'MERCHANT#{merchantId}', GSI1SK: 'APIKEY#{mode}#{createdAt}#{keyId}' } },
  // The key's last use, its end (revoked, expiring after a roll) and the merchant's settings copied on: never its scopes.
  updates: [
    'lastUsedAt',
    'status',
    'revokedAt',
    'expiresAt',
    'merchantStatus',
    'merchantCurrency',
    'merchantFees',
    'merchantAllowInsecureWebhooks',
  ],
  keys: {
    apiKey: 'key(hash)',
    apiKeyListing: 'ofMerchant(merchantId, mode, createdAt, keyId)',
    apiKeysOfMerchant: 'ofMerchant.prefix(merchantId, mode?)',
  },
});
/** Pointer to the hash */
export const ApiKeyId = entity({
  tag: 'ApiKeyId',
  family: 'apiKeyId',
  pk: 'APIKEYID#{keyId}',
  sk: 'APIKEYID',
  keys: { apiKeyId: 'key(keyId)' },
});
/**
 * `shards` (readers read), `previousShards` (writers until `effectiveAt`), `effectiveAt` (raise + 2 min);
 * docs/scaling.md
 */
export const ShardConfig = entity({
  tag: 'ShardConfig',
  family: 'merchant',
  pk: 'MERCHANT#{merchantId}',
  sk: 'SHARDS#{mode}',
  updates: ['shards', 'previousShards', 'effectiveAt', 'updatedAt', 'merchantId', 'mode'],
  keys: { shardConfig: 'key(merchantId, mode)' },
});
/**
 * `available`, `held`, `held_<Type>`, `pendingCount` in minor units; `cutoff`, `cutoffSettlementId`: the last
 * settlement's cut-off (7a). Shard n ≥ 1 of a big merchant's wallet: the same item in
 * `MERCHANT#<merchantId>#SHARD#<n>`
 */
export const Wallet = entity({
  tag: 'Wallet',
  family: 'merchant',
  pk: merchantShard,
  sk: 'WALLET#{mode}#{currency}',
  updates: ['available', 'held', 'held_*', 'pendingCount', 'updatedAt', 'merchantId', 'mode', 'currency', 'cutoff', 'cutoffSettlementId'],
  keys: {
    wallet: 'key(merchantId, mode, currency)',
    walletShard: 'key(merchantId, mode, currency, shard: number)',
    walletsOfMerchant: 'partition(merchantId, mode, shard = 0)',
  },
});
/** Double-entry lines summing to zero; immutable; the balance transactions (8b-8e) */
export const Journal = entity({
  tag: 'Journal',
  family: 'merchant',
  pk: merchantShard,
  sk: 'JOURNAL#{mode}#{createdAt}#{journalId}',
  indexes: {
    bySource: { GSI1PK: 'MERCHANT#{merchantId}#{mode}#BALSRC#{reference}', GSI1SK: '{createdAt}#{journalId}' },
    byKind: { GSI3PK: 'MERCHANT#{merchantId}#{mode}#BALTXN#{kind}{#shard?}', GSI3SK: '{createdAt}#{journalId}' },
  },
  updates: ['GSI1PK', 'GSI1SK', 'GSI3PK', 'GSI3SK'],
  keys: {
    journal: 'key(merchantId, mode, createdAt, journalId, shard = 0)',
    journalsOfMerchant: 'partition(merchantId, mode, shard = 0)',
    journalByKind: 'byKind(merchantId, mode, kind, createdAt, journalId, shard = 0)',
    journalBySource: 'bySource(merchantId, mode, reference, createdAt, journalId)',
  },
});
/**
 * Balances at a UTC day boundary: fold of every journal before it on every shard; written once (B1-B3;
 * docs/ledger-verification.md)
 */
export const BalanceCheckpoint = entity({
  tag: 'BalanceCheckpoint',
  family: 'merchant',
  pk: 'MERCHANT#{merchantId}',
  sk: 'BALCKPT#{mode}#{currency}#{boundary}',
  updates: [],
  keys: {
    balanceCheckpoint: 'key(merchantId, mode, currency, boundary)',
    balanceCheckpointsOf: 'partition(merchantId, mode, currency)',
  },
});
/**
 * `count`, `amountMinor`, `feeMinor` of the payments completed that UTC day (V1: added in the status change's
 * transaction)
 */
export const DailyVolume = entity({
  tag: 'DailyVolume',
  family: 'merchant',
  pk: merchantShard,
  sk: 'DAILY#{mode}#{day}#{currency}',
  updates: ['day', 'currency', 'count', 'amountMinor', 'feeMinor'],
  keys: {
    dailyVolume: 'key(merchantId, mode, day, currency, shard = 0)',
    dailyVolumesOfMerchant: 'partition(merchantId, mode, shard = 0)',
  },
});
/**
 * An operator command's own reference (`ops wallet credit --reference`) and its outcome, kept forever: it runs
 * once
 */
export const OperatorReference = entity({
  tag: 'OperatorReference',
  family: 'merchant',
  pk: 'MERCHANT#{merchantId}',
  sk: 'OPREF#{mode}#{command}#{reference}',
  updates: [],
  keys: { operatorReference: 'key(merchantId, mode, command, reference)' },
});
/** Request hash, state, stored response; `ttl` = 24 h */
export const Idempotency = entity({
  tag: 'Idempotency',
  family: 'idempotency',
  pk: 'IDEM#{mode}#{merchantId}#{idempotencyKey}',
  sk: 'IDEM',
  keys: { idempotency: 'key(mode, merchantId, idempotencyKey)' },
});
/** Checkout, deposit or withdrawal; `status`, `version`, amounts in minor units, `details` per type */
export const Intent = entity({
  tag: 'Intent',
  family: 'intent',
  pk: 'TXN#{paymentIntentId}',
  sk: 'TXN',
  indexes: {
    listing: { GSI1PK: 'MERCHANT#{merchantId}#{mode}#TXN{#shard?}', GSI1SK: '{createdAt}#{paymentIntentId}' },
    byTypeStatus: { GSI3PK: 'MERCHANT#{merchantId}#{mode}#TXN#{intentType}#{status}{#shard?}', GSI3SK: '{createdAt}#{paymentIntentId}' },
    due: due('DUE'),
    heldApproval: { GSI2PK: 'HELDAPPROVAL', GSI2SK: '{heldAt}#{id}' },
  },
  updates: [
    'status',
    'reason',
    'reasonDetail',
    'details',
    'feeMinor',
    'updatedAt',
    'version',
    'dueAt',
    'GSI2PK',
    'GSI2SK',
    'GSI3PK',
    'GSI3SK',
    'refundReservedMinor',
    'refundedMinor',
  ],
  keys: {
    intent: 'key(paymentIntentId)',
    intentListing: 'listing(merchantId, mode, createdAt, paymentIntentId, shard = 0)',
    intentsOfMerchant: 'listing.pk(merchantId, mode, shard = 0)',
    intentByTypeStatus: 'byTypeStatus(merchantId, mode, intentType, status, createdAt, paymentIntentId, shard = 0)',
    due: 'due(id, dueAt; dueShard = dueShard(id))',
    dueShards: 'due.shards()',
    heldApproval: 'heldApproval(id, heldAt)',
  },
});
/**
 * Uniqueness of orderRef per merchant and mode; lookup pointer; GSI1: the prefix search (13h, lower-case
 * reference)
 */
export const OrderRef = entity({
  tag: 'OrderRef',
  family: 'orderRef',
  pk: 'ORDERREF#{mode}#{merchantId}#{orderRef}',
  sk: 'ORDERREF',
  indexes: { search: { GSI1PK: 'MERCHANT#{merchantId}#{mode}#REFS{#shard?}', GSI1SK: '{normalized}' } },
  updates: ['GSI1PK', 'GSI1SK'],
  keys: { orderRef: 'key(mode, merchantId, orderRef)' },
});
/** Lookup pointer by transactionReference; GSI1 and GSI3: the prefix search (13h: reference, payment id) */
export const TxRef = entity({
  tag: 'TxRef',
  family: 'transactionReference',
  pk: 'TXREF#{mode}#{merchantId}#{reference}',
  sk: 'TXREF',
  indexes: {
    search: { GSI1PK: 'MERCHANT#{merchantId}#{mode}#REFS{#shard?}', GSI1SK: '{normalized}' },
    paymentId: { GSI3PK: 'MERCHANT#{merchantId}#{mode}#REFS{#shard?}', GSI3SK: '{paymentId}' },
  },
  updates: ['GSI1PK', 'GSI1SK', 'GSI3PK', 'GSI3SK'],
  keys: {
    transactionReference: 'key(mode, merchantId, reference)',
    referenceSearch: 'search(merchantId, mode, normalized, shard = 0)',
    paymentIdSearch: 'paymentId(merchantId, mode, paymentIntentId, shard = 0; paymentId = paymentIntentId.toLowerCase())',
    referencesOfMerchant: 'search.pkValue(merchantId, mode, shard = 0)',
  },
});
/**
 * `paymentIntentId` only: a pointer of the customer index (C2-C3); the digest, not the address or number, names
 * the partition
 */
export const CustomerPayment = entity({
  tag: 'CustomerPayment',
  family: 'customerPayment',
  pk: 'CUSTOMER#{mode}#{merchantId}#{kind}#{digest}',
  sk: '{createdAt}#{paymentIntentId}',
  keys: {
    customerPayment: 'key(mode, merchantId, kind, digest, createdAt, paymentIntentId)',
    paymentsOfCustomer: 'pk(mode, merchantId, kind, digest)',
  },
});
/**
 * The event envelope with `subject` (`{ kind, id }`; left out when it is the event's own transaction) and
 * `deliveryLog: 2` (its pointer and delivery item were committed with it), committed with the status change; the stream
 * relays it. `<home>` is the partition of what the event is about: `TXN#<paymentIntentId>`, `REFUND#<refundId>` or
 * `SETTLEMENT#<settlementId>`; in the webhook due index until the sweep sees an attempt on its delivery item
 */
export const OutboxEvent = entity({
  tag: 'OutboxEvent',
  pk: '{home}',
  sk: 'EVENT#{createdAt}#{eventId}',
  indexes: { due: due('WEBHOOKDUE') },
  // Immutable but for its due time, which only the webhook sweep moves (moveWebhookDue).
  updates: ['GSI2PK', 'GSI2SK'],
  keys: {
    outboxEvent: 'key(subject: EventSubject, createdAt, eventId; home = eventHome(subject))',
    eventsOf: 'partition(subject: EventSubject; home = eventHome(subject))',
    webhookDue: 'due(id, dueAt; dueShard = dueShard(id))',
    webhookDueShards: 'due.shards()',
  },
});
/**
 * Where an event lives: `subject`, `paymentIntentId` (null for a settlement event), `merchantId`, `mode`,
 * `eventCreatedAt` (immutable; written with the event; by the relay before it publishes only for events committed
 * before that)
 */
export const EventPointer = entity({
  tag: 'EventPointer',
  family: 'eventPointer',
  pk: 'EVENTID#{eventId}',
  sk: 'EVENTID',
  create: 'replace',
  updates: [],
  keys: { eventPointer: 'key(eventId)' },
});
/**
 * The events feed's entry: `type`, `createdAt`, `home` (where its delivery item is), the envelope as sent (deflated in
 * `eventZ`, under 1 KB); `ttl` 30 days. Written once with the event, never rewritten; entries from before the delivery's
 * version 2 also carry `deliveryState` and GSI3, replaced by the dispatcher whenever their state changes.
 */
export const EventFeed = entity({
  tag: 'EventFeed',
  family: 'eventFeed',
  pk: 'EVENTFEED#{eventId}',
  sk: 'EVENTFEED',
  updates: [],
  indexes: {
    listing: { GSI1PK: 'EVENTS#{merchantId}#{mode}{#shard?}', GSI1SK: '{createdAt}#{eventId}' },
    byTypeState: { GSI3PK: 'EVENTS#{merchantId}#{mode}#{type}#{state}{#shard?}', GSI3SK: '{createdAt}#{eventId}' },
  },
  keys: {
    eventFeed: 'key(eventId)',
    eventFeedListing: 'listing(merchantId, mode, createdAt, eventId, shard = 0)',
    eventFeedByTypeState: 'byTypeState(merchantId, mode, type, state, createdAt, eventId, shard = 0)',
  },
});
/**
 * An event's delivery (version 2, `v: 2`): written `pending` with the event, in the same transaction; `state`, `rounds`,
 * `roundId`, `attempts` and the latest attempt inline, `nextAttemptAt`, `waiting` (then in the webhook due index),
 * `deliveredAt`. It carries the feed's state index (GSI3), moved only by an attempt that changes the state. Items from
 * before version 2 keep their `log` of attempts (the feed entry then carries GSI3).
 */
export const WebhookDelivery = entity({
  tag: 'WebhookDelivery',
  pk: '{home}',
  sk: 'DELIVERY#{eventId}',
  indexes: {
    due: due('WEBHOOKDUE'),
    byTypeState: { GSI3PK: 'EVENTS#{merchantId}#{mode}#{type}#{state}{#shard?}', GSI3SK: '{createdAt}#{eventId}' },
  },
  // Put pending with the event; replaced whole by the dispatcher's BatchWriteItem; the sweep moves only its due time.
  create: 'ifAbsentThenReplaced',
  updates: ['GSI2PK', 'GSI2SK'],
  keys: {
    webhookDelivery: 'key(subject: EventSubject, eventId; home = eventHome(subject))',
    webhookDeliveryIn: 'key(home, eventId)',
    deliveriesOfIntent: "partition(paymentIntentId; home = eventHome({ kind: 'transaction', id: paymentIntentId }))",
  },
});
/** An earlier attempt of a version 2 delivery, put when the next attempt displaces it from `last` (n zero-padded to 6); immutable */
export const WebhookAttempt = entity({
  tag: 'WebhookAttempt',
  pk: '{home}',
  sk: 'DELIVERY#{eventId}#ATTEMPT#{n}',
  updates: [],
  keys: {
    webhookAttempt: "key(subject: EventSubject, eventId, attempt: number; home = eventHome(subject); n = String(attempt).padStart(6, '0'))",
    attemptsOf: 'partition(subject: EventSubject, eventId; home = eventHome(subject))',
  },
});
/**
 * A destination's `failingSince`, `lastFailureAt`, `disabledAt`, `disabledReason` (`gone`/`failing`);
 * docs/webhooks-operations.md
 */
export const WebhookHealth = entity({
  tag: 'WebhookHealth',
  family: 'merchant',
  pk: 'MERCHANT#{merchantId}',
  sk: 'WEBHOOKHEALTH#{mode}#{urlHash}',
  // Created by its first update: the destination, then what the dispatcher saw and the disable/enable.
  updates: ['merchantId', 'mode', 'url', 'updatedAt', 'failingSince', 'lastFailureAt', 'disabledAt', 'disabledReason'],
  keys: { webhookHealth: 'key(merchantId, mode, urlHash)' },
});
/** A merchant's resend request with a copy of the event; the stream relays it; `ttl` = 7 days */
export const WebhookResend = entity({
  tag: 'WebhookResend',
  pk: '{home}',
  sk: 'RESEND#{requestedAt}#{resendId}',
  updates: [],
  keys: { webhookResend: 'key(subject: EventSubject, requestedAt, resendId; home = eventHome(subject))' },
});
/** Deposit by wallet-provider reference, with its mode */
export const ProviderRef = entity({
  tag: 'ProviderRef',
  family: 'providerReference',
  pk: 'PROVREF#{provider}#{reference}',
  sk: 'PROVREF',
  keys: { providerReference: 'key(provider, reference)' },
});
/**
 * Amounts in minor units (`amountMinor`, `feeMinor`, `netMinor`, `payoutMinor`), `fxRate` as a decimal string,
 * `destination`, `status` 0-5, `version`
 */
export const Settlement = entity({
  tag: 'Settlement',
  family: 'settlement',
  pk: 'SETTLEMENT#{id}',
  sk: 'SETTLEMENT',
  indexes: {
    listing: { GSI1PK: 'MERCHANT#{merchantId}#{mode}#SETTLEMENT', GSI1SK: '{requestedAt}#{id}' },
    due: due('MONEYDUE'),
  },
  keys: {
    settlement: 'key(id)',
    settlementListing: 'listing(merchantId, mode, requestedAt, id)',
    settlementsOfMerchant: 'listing.pk(merchantId, mode)',
    moneyDue: 'due(id, dueAt; dueShard = dueShard(id))',
    moneyDueShards: 'due.shards()',
  },
});
/**
 * A large breakdown being summed (8j): `cursors` per wallet shard, `sums` (minor units), `step`, `queuedAt`;
 * deleted once stored
 */
export const BreakdownJob = entity({
  tag: 'SettlementBreakdown',
  family: 'settlement',
  pk: 'SETTLEMENT#{id}',
  sk: 'BREAKDOWNJOB',
  indexes: { due: due('MONEYDUE') },
  updates: ['id', 'cursors', 'sums', 'step', 'queuedAt', 'dueAt', 'GSI2PK', 'GSI2SK'],
  keys: { settlementBreakdownJob: 'key(id)' },
});
/** The next automatic-settlement run of a schedule (absent for a manual schedule) */
export const AutoSettlement = entity({
  tag: 'AutoSettlement',
  family: 'merchant',
  pk: 'MERCHANT#{merchantId}',
  sk: 'AUTOSETTLE#{mode}',
  indexes: { due: due('MONEYDUE') },
  create: 'replace',
  updates: ['runAt', 'dueAt', 'GSI2PK', 'GSI2SK'],
  keys: { autoSettlement: 'key(merchantId, mode)' },
});
/**
 * `amountMinor`, `feeMinor`, `status` 0-7, `attemptCount`, `expiresAt`, `version`; the intent carries
 * `refundReservedMinor` and `refundedMinor`
 */
export const Refund = entity({
  tag: 'Refund',
  family: 'refund',
  pk: 'REFUND#{id}',
  sk: 'REFUND',
  indexes: {
    ofIntent: { GSI1PK: 'TXN#{paymentIntentId}#REFUND', GSI1SK: '{requestedAt}#{id}' },
    ofMerchant: { GSI3PK: 'MERCHANT#{merchantId}#{mode}#REFUND{#shard?}', GSI3SK: '{requestedAt}#{id}' },
    due: due('MONEYDUE'),
  },
  keys: {
    refund: 'key(id)',
    refundListing: 'ofIntent(paymentIntentId, requestedAt, id)',
    refundsOfIntent: 'ofIntent.pk(paymentIntentId)',
    refundOfMerchant: 'ofMerchant(merchantId, mode, requestedAt, id, shard = 0)',
  },
});
/** A fixed-window counter: `count` in the window starting at the sort key; `ttl` = 2 windows */
export const Quota = entity({
  tag: 'Quota',
  family: 'quota',
  pk: 'QUOTA#{mode}#{merchantId}#{counted}',
  sk: '{window}',
  updates: ['count', 'ttl'],
  keys: { quota: 'key(mode, merchantId, counted, window)' },
});
/** Test mode only: `receivedAt`; `ttl` = 30 days */
export const SandboxReceipt = entity({
  tag: 'SandboxReceipt',
  family: 'sandboxReceipt',
  pk: 'SANDBOX#{rail}#{reference}',
  sk: 'RECEIPT',
  create: 'replace',
  keys: { sandboxReceipt: 'key(rail, reference)' },
});
/**
 * A live bank payout's or settlement's line: `state` (queued, exported, paid, failed, void), `batchId`,
 * `bankReference` / `failureReason`, `markedBy`
 */
export const BankFileLine = entity({
  tag: 'BankFileLine',
  family: 'bankFileLine',
  pk: 'BANKFILE#LINE#{reference}',
  sk: 'LINE',
  indexes: { queue: { GSI1PK: 'BANKFILE#QUEUE#{bank}#{currency}', GSI1SK: '{queuedAt}#{reference}' } },
  updates: ['state', 'batchId', 'exportedAt', 'markedAt', 'markedBy', 'bankReference', 'failureReason', 'GSI1PK', 'GSI1SK'],
  keys: {
    bankFileLine: 'key(reference)',
    bankFileQueue: 'queue.pk(bank, currency)',
    bankFileQueued: 'queue(bank, currency, queuedAt, reference)',
  },
});
/** A file: its layout, line references in file order, count, total, SHA-256 `digest`, `createdBy` */
export const BankFileBatch = entity({
  tag: 'BankFileBatch',
  pk: 'BANKFILE#BATCH#{batchId}',
  sk: 'BATCH',
  indexes: { listing: { GSI1PK: 'BANKFILE#BATCHES#{bank}#{currency}', GSI1SK: '{createdAt}#{batchId}' } },
  keys: {
    bankFileBatch: 'key(batchId)',
    bankFileBatches: 'listing.pk(bank, currency)',
    bankFileBatchListing: 'listing(bank, currency, createdAt, batchId)',
  },
});
/** An operator's step on a file: `action`, `actor`, `digest`, `reference`, `detail` */
export const BankFileAudit = entity({
  tag: 'BankFileAudit',
  pk: 'BANKFILE#AUDIT#{batchId}',
  sk: '{at}#{auditId}',
  create: 'replace',
  keys: { bankFileAudit: 'key(batchId, at, auditId)', bankFileAuditOf: 'pk(batchId)' },
});
/**
 * E-mail, role, status (`invited`/`active`/`disabled`), scrypt `passwordHash`, TOTP secret sealed, `lastTotpStep`,
 * digests of unused recovery codes, `lockedUntil`, `sessionEpoch`, `version`
 */
export const DashUser = entity({
  tag: 'DashUser',
  family: 'dashUser',
  pk: 'DASHUSER#{userId}',
  sk: 'DASHUSER',
  indexes: { listing: { GSI1PK: 'MERCHANT#{merchantId}#DASHUSER', GSI1SK: '{createdAt}#{userId}' } },
  updates: [
    'role',
    'status',
    'passwordHash',
    'totpSealed',
    'totpPendingSealed',
    'lastTotpStep',
    'recoveryCodeHashes',
    'lockedUntil',
    'sessionEpoch',
    'updatedAt',
    'version',
  ],
  keys: {
    dashUser: 'key(userId)',
    dashUserListing: 'listing(merchantId, createdAt, userId)',
    dashUsersOfMerchant: 'listing.pk(merchantId)',
  },
});
/** `count` of failed sign-ins of the account in the window; `ttl` = 2 windows */
export const DashUserFailures = entity({
  tag: 'DashThrottle',
  family: 'dashUser',
  pk: 'DASHUSER#{userId}',
  sk: 'FAILURES#{window}',
  updates: ['count', 'ttl'],
  keys: { dashUserFailures: 'key(userId, window)' },
});
/** One dashboard account per (lower-case) e-mail address; sign-in lookup */
export const DashEmail = entity({
  tag: 'DashEmail',
  family: 'dashEmail',
  pk: 'DASHEMAIL#{email}',
  sk: 'DASHEMAIL',
  keys: { dashEmail: 'key(email)' },
});
/** This merchant invited the address (one user per address and merchant) */
export const DashMember = entity({
  tag: 'DashMember',
  family: 'dashEmail',
  pk: 'DASHEMAIL#{email}',
  sk: 'MERCHANT#{merchantId}',
  keys: { dashMember: 'key(email, merchantId)' },
});
/** UserId, merchantId, `expiresAt` (72 h), `usedAt`; `ttl` a day after expiry. The token itself is only in the link */
export const DashInvite = entity({
  tag: 'DashInvite',
  family: 'dashInvite',
  pk: 'DASHINVITE#{tokenHash}',
  sk: 'DASHINVITE',
  updates: ['usedAt'],
  keys: { dashInvite: 'key(tokenHash)' },
});
/**
 * UserId, merchantId, `stage` (`enrol`/`full`), `mode`, `epoch`, `lastSeenAt` (idle 30 min), `expiresAt` (12 h),
 * `revokedAt`; `ttl`
 */
export const DashSession = entity({
  tag: 'DashSession',
  family: 'dashSession',
  pk: 'DASHSESSION#{sessionHash}',
  sk: 'DASHSESSION',
  updates: ['lastSeenAt', 'mode', 'revokedAt'],
  keys: { dashSession: 'key(sessionHash)' },
});
/** Actor (user or `operator`), action, target, mode, client IP, outcome (`ok`/`refused`), detail; `ttl` = 1 year */
export const DashAudit = entity({
  tag: 'DashAudit',
  family: 'dashAudit',
  pk: 'AUDIT#{merchantId}',
  sk: '{at}#{auditId}',
  keys: { dashAudit: 'key(merchantId, at, auditId)', dashAuditOfMerchant: 'pk(merchantId)' },
});
/** `count` of failed sign-ins from a client address; `ttl` = 2 windows */
export const DashThrottle = entity({
  tag: 'DashThrottle',
  family: 'dashThrottle',
  pk: 'DASHTHROTTLE#{addressHash}',
  sk: '{window}',
  updates: ['count', 'ttl'],
  keys: { dashThrottle: 'key(addressHash, window)' },
});
/** Who created a payout (userId, e-mail, time; `keyId` when made through an API key that user minted) */
export const PayoutMaker = entity({
  tag: 'PayoutMaker',
  family: 'payoutMaker',
  pk: 'PAYOUTMAKER#{mode}#{merchantId}#{orderRef}',
  sk: 'PAYOUTMAKER',
  keys: { payoutMaker: 'key(mode, merchantId, orderRef)' },
});
/** Who requested a settlement (as PayoutMaker) */
export const SettlementMaker = entity({
  tag: 'SettlementMaker',
  family: 'settlementMaker',
  pk: 'SETTLEMENTMAKER#{settlementId}',
  sk: 'SETTLEMENTMAKER',
  keys: { settlementMaker: 'key(settlementId)' },
});
/** Who requested a refund (as PayoutMaker) */
export const RefundMaker = entity({
  tag: 'RefundMaker',
  family: 'refundMaker',
  pk: 'REFUNDMAKER#{refundId}',
  sk: 'REFUNDMAKER',
  keys: { refundMaker: 'key(refundId)' },
});
/**
 * Of a payout, settlement or refund under the merchant setting `both`: `merchant` (time, userId, e-mail) and
 * `operator` (time) approvals so far
 */
export const Approvals = entity({
  tag: 'Approvals',
  family: 'approvals',
  pk: 'APPROVALS#{kind}#{id}',
  sk: 'APPROVALS',
  updates: ['merchant', 'operator'],
  keys: { approvals: "key(kind: 'payout' | 'settlement' | 'refund', id)" },
});
/**
 * Docs/payment-links.md: `active`, `currency`, `description`, `price`, `quantity`, `maxPayments`, `expiresAt`,
 * `collect`, `returnUrl`; counters `usesHeld`, `paidCount`, `paidMinor` (L5-L6)
 */
export const PaymentLink = entity({
  tag: 'PaymentLink',
  family: 'paymentLink',
  pk: 'PAYLINK#{linkId}',
  sk: 'PAYLINK',
  indexes: { listing: { GSI1PK: 'MERCHANT#{merchantId}#{mode}#PAYLINK', GSI1SK: '{createdAt}#{linkId}' } },
  updates: ['active', 'updatedAt', 'usesHeld', 'paidCount', 'paidMinor'],
  keys: {
    paymentLink: 'key(linkId)',
    paymentLinkListing: 'listing(merchantId, mode, createdAt, linkId)',
    paymentLinksOfMerchant: 'listing.pk(merchantId, mode)',
  },
});
/** `paymentIntentId`: a checkout created from the link (L5, L7); the checkout's `details.paymentLinkId` points back */
export const LinkPayment = entity({
  tag: 'LinkPayment',
  family: 'paymentLink',
  pk: 'PAYLINK#{linkId}',
  sk: 'PAYMENT#{createdAt}#{paymentIntentId}',
  updates: [],
  keys: { linkPayment: 'key(linkId, createdAt, paymentIntentId)', paymentsOfLink: 'partition(linkId)' },
});

/** Every declaration, in the order docs/access-patterns.md lists them. */
export const allEntities = [
  Merchant,
  ApiKey,
  ApiKeyId,
  ShardConfig,
  Wallet,
  Journal,
  BalanceCheckpoint,
  DailyVolume,
  OperatorReference,
  Idempotency,
  Intent,
  OrderRef,
  TxRef,
  CustomerPayment,
  OutboxEvent,
  EventPointer,
  EventFeed,
  WebhookDelivery,
  WebhookAttempt,
  WebhookHealth,
  WebhookResend,
  ProviderRef,
  Settlement,
  BreakdownJob,
  AutoSettlement,
  Refund,
  Quota,
  SandboxReceipt,
  BankFileLine,
  BankFileBatch,
  BankFileAudit,
  DashUser,
  DashUserFailures,
  DashEmail,
  DashMember,
  DashInvite,
  DashSession,
  DashAudit,
  DashThrottle,
  PayoutMaker,
  SettlementMaker,
  RefundMaker,
  Approvals,
  PaymentLink,
  LinkPayment,
] as const;

/** Every write checked against its entity's declaration wherever this file is loaded (tests, scripts; shared/store/entity.ts). */
const byTag = new Map<string, EntityDecl[]>();
for (const e of allEntities as readonly EntityDecl[]) byTag.set(e.tag, [...(byTag.get(e.tag) ?? []), e]);
checkWritesWith((tag, write) => {
  const declared = byTag.get(tag);
  if (!declared) throw new Error(`${tag}: no such entity in shared/store/entities.ts`);
  const replaces = declared.some((d) => d.create === 'replace');
  const either = declared.some((d) => d.create === 'ifAbsentThenReplaced');
  if (write.replace !== undefined && !either && write.replace !== replaces)
    throw new Error(`${tag}: a Put must ${replaces ? '' : 'not '}replace`);
  const allowed = (attribute: string) =>
    attribute === 'entity' ||
    declared.some(
      ({ updates }) => !updates || updates.some((a) => a === attribute || (a.endsWith('*') && attribute.startsWith(a.slice(0, -1)))),
    );
  const attributes = [write.set, write.setOnce, write.add].flatMap((o) => Object.keys(o ?? {})).concat(write.remove ?? []);
  const refused = attributes.map((a) => a.split('.')[0]!).filter((a) => !allowed(a));
  if (refused.length) throw new Error(`${tag}: update of undeclared attribute(s) ${refused.join(', ')} (shared/store/entities.ts)`);
});
