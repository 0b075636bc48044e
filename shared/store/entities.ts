import { entity } from './entity.ts';

/*
 * Every stored entity of the one table, declared once (the layer: shared/store/entity.ts). The key builders
 * (./keys.ts), the IAM partition families (`partitionPrefixes`) and docs/access-patterns.md's item table are
 * derived from these declarations; test/unit/store-entities.test.ts holds the keys to what was stored before.
 *
 * Shared templates: a merchant's partition, or its wallet shard n ≥ 1 (`MERCHANT#<id>#SHARD#<n>`); the listings'
 * shard suffix (`#<n>` for n ≥ 1, shared/store/shards.ts); the due indexes' 32 shards (keys.ts dueShard).
 */
const merchantShard = 'MERCHANT#{merchantId}{#SHARD#shard?}';
const due = (family: string) => ({ GSI2PK: `${family}#{dueShard}`, GSI2SK: '{dueAt}#{id}' });
const moneyDue = due('MONEYDUE');
const webhookDue = due('WEBHOOKDUE');

export const Merchant = entity({
  tag: 'Merchant',
  family: 'merchant',
  pk: 'MERCHANT#{merchantId}',
  sk: 'PROFILE',
  indexes: { listing: { GSI1PK: 'MERCHANTS', GSI1SK: '{createdAt}#{merchantId}' } },
  updates: ['*'],
  doc: 'name, status, currency, fees, settlement schedule, webhook endpoints (secrets sealed)',
});
export const ApiKey = entity({
  tag: 'ApiKey',
  family: 'apiKey',
  pk: 'APIKEY#{hash}',
  sk: 'APIKEY',
  indexes: { ofMerchant: { GSI1PK: 'MERCHANT#{merchantId}', GSI1SK: 'APIKEY#{mode}#{createdAt}#{keyId}' } },
  updates: ['lastUsedAt', 'status', 'merchantStatus', 'currency', 'revokedAt', 'expiresAt', 'scopes'],
  doc:
    'the key is stored only as its hash; its paired secret key sealed (AES-256-GCM); merchant status and currency copied on so ' +
    'one read authenticates; `lastUsedAt` (1b); `mintedBy` (userId, e-mail: the dashboard user who created or rolled it; ' +
    "absent for the operator's keys and keys minted before)",
});
export const ApiKeyId = entity({ tag: 'ApiKeyId', family: 'apiKeyId', pk: 'APIKEYID#{keyId}', sk: 'APIKEYID', doc: 'pointer to the hash' });
export const ShardConfig = entity({
  tag: 'ShardConfig',
  family: 'merchant',
  pk: 'MERCHANT#{merchantId}',
  sk: 'SHARDS#{mode}',
  updates: ['shards', 'previousShards', 'effectiveAt', 'updatedAt', 'merchantId', 'mode'],
  doc: '`shards` (readers read), `previousShards` (writers until `effectiveAt`), `effectiveAt` (raise + 2 min); docs/scaling.md',
});
export const Wallet = entity({
  tag: 'Wallet',
  family: 'merchant',
  pk: merchantShard,
  sk: 'WALLET#{mode}#{currency}',
  updates: ['available', 'held', 'held_*', 'pendingCount', 'updatedAt', 'merchantId', 'mode', 'currency', 'cutoff', 'cutoffSettlementId'],
  doc:
    '`available`, `held`, `held_<Type>`, `pendingCount` in minor units; `cutoff`, `cutoffSettlementId`: the last ' +
    "settlement's cut-off (7a). Shard n ≥ 1 of a big merchant's wallet: the same item in `MERCHANT#<merchantId>#SHARD#<n>`",
});
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
  doc: 'double-entry lines summing to zero; immutable; the balance transactions (8b-8e)',
});
export const BalanceCheckpoint = entity({
  tag: 'BalanceCheckpoint',
  family: 'merchant',
  pk: 'MERCHANT#{merchantId}',
  sk: 'BALCKPT#{mode}#{currency}#{boundary}',
  updates: [],
  doc: 'balances at a UTC day boundary: fold of every journal before it on every shard; written once (B1-B3; docs/ledger-verification.md)',
});
export const DailyVolume = entity({
  tag: 'DailyVolume',
  family: 'merchant',
  pk: merchantShard,
  sk: 'DAILY#{mode}#{day}#{currency}',
  updates: ['day', 'currency', 'count', 'amountMinor', 'feeMinor'],
  doc: "`count`, `amountMinor`, `feeMinor` of the payments completed that UTC day (V1: added in the status change's transaction)",
});
export const OperatorReference = entity({
  tag: 'OperatorReference',
  family: 'merchant',
  pk: 'MERCHANT#{merchantId}',
  sk: 'OPREF#{mode}#{command}#{reference}',
  updates: [],
  doc: "an operator command's own reference (`ops wallet credit --reference`) and its outcome, kept forever: it runs once",
});
export const Idempotency = entity({
  tag: 'Idempotency',
  family: 'idempotency',
  pk: 'IDEM#{mode}#{merchantId}#{key}',
  sk: 'IDEM',
  doc: 'request hash, state, stored response; `ttl` = 24 h',
});
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
  doc: 'checkout, deposit or withdrawal; `status`, `version`, amounts in minor units, `details` per type',
});
export const OrderRef = entity({
  tag: 'OrderRef',
  family: 'orderRef',
  pk: 'ORDERREF#{mode}#{merchantId}#{orderRef}',
  sk: 'ORDERREF',
  indexes: { search: { GSI1PK: 'MERCHANT#{merchantId}#{mode}#REFS{#shard?}', GSI1SK: '{normalized}' } },
  updates: ['GSI1PK', 'GSI1SK'],
  doc: 'uniqueness of orderRef per merchant and mode; lookup pointer; GSI1: the prefix search (13h, lower-case reference)',
});
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
  doc: 'lookup pointer by transactionReference; GSI1 and GSI3: the prefix search (13h: reference, payment id)',
});
export const CustomerPayment = entity({
  tag: 'CustomerPayment',
  family: 'customerPayment',
  pk: 'CUSTOMER#{mode}#{merchantId}#{kind}#{digest}',
  sk: '{createdAt}#{paymentIntentId}',
  doc: '`paymentIntentId` only: a pointer of the customer index (C2-C3); the digest, not the address or number, names the partition',
});
export const OutboxEvent = entity({
  tag: 'OutboxEvent',
  pk: '{home}',
  sk: 'EVENT#{createdAt}#{eventId}',
  indexes: { due: webhookDue },
  doc:
    'the event envelope with `subject` (`{ kind, id }`), committed with the status change; the stream relays it. `<home>` is the ' +
    'partition of what the event is about: `TXN#<paymentIntentId>`, `REFUND#<refundId>` or `SETTLEMENT#<settlementId>`; ' +
    'in the webhook due index until the sweep sees its delivery item',
});
export const EventPointer = entity({
  tag: 'EventPointer',
  family: 'eventPointer',
  pk: 'EVENTID#{eventId}',
  sk: 'EVENTID',
  create: 'replace',
  doc:
    'where an event lives: `subject`, `paymentIntentId` (null for a settlement event), `merchantId`, `mode`, ' +
    '`eventCreatedAt` (immutable)',
});
export const EventFeed = entity({
  tag: 'EventFeed',
  family: 'eventFeed',
  pk: 'EVENTFEED#{eventId}',
  sk: 'EVENTFEED',
  indexes: {
    listing: { GSI1PK: 'EVENTS#{merchantId}#{mode}{#shard?}', GSI1SK: '{createdAt}#{eventId}' },
    byTypeState: { GSI3PK: 'EVENTS#{merchantId}#{mode}#{type}#{state}{#shard?}', GSI3SK: '{createdAt}#{eventId}' },
  },
  create: 'replace',
  doc:
    "the events feed's entry: `type`, `createdAt`, `deliveryState`, the envelope as sent (`eventZ`); replaced when " +
    'the delivery state changes; `ttl` 30 days',
});
export const WebhookDelivery = entity({
  tag: 'WebhookDelivery',
  pk: '{home}',
  sk: 'DELIVERY#{eventId}',
  indexes: { due: webhookDue },
  create: 'replace',
  doc:
    "the event's delivery log: `log` (the latest 100 attempts), `attempts`, `rounds`, `roundId`, `state`, " +
    '`nextAttemptAt`, `waiting` (then in the webhook due index), `deliveredAt`',
});
export const WebhookHealth = entity({
  tag: 'WebhookHealth',
  family: 'merchant',
  pk: 'MERCHANT#{merchantId}',
  sk: 'WEBHOOKHEALTH#{mode}#{urlHash}',
  doc: "a destination's `failingSince`, `lastFailureAt`, `disabledAt`, `disabledReason` (`gone`/`failing`); docs/webhooks-operations.md",
});
export const WebhookResend = entity({
  tag: 'WebhookResend',
  pk: '{home}',
  sk: 'RESEND#{requestedAt}#{resendId}',
  doc: "a merchant's resend request with a copy of the event; the stream relays it; `ttl` = 7 days",
});
export const ProviderRef = entity({
  tag: 'ProviderRef',
  family: 'providerReference',
  pk: 'PROVREF#{provider}#{reference}',
  sk: 'PROVREF',
  doc: 'deposit by wallet-provider reference, with its mode',
});
export const Settlement = entity({
  tag: 'Settlement',
  family: 'settlement',
  pk: 'SETTLEMENT#{settlementId}',
  sk: 'SETTLEMENT',
  indexes: {
    listing: { GSI1PK: 'MERCHANT#{merchantId}#{mode}#SETTLEMENT', GSI1SK: '{requestedAt}#{settlementId}' },
    due: moneyDue,
  },
  doc:
    'amounts in minor units (`amountMinor`, `feeMinor`, `netMinor`, `payoutMinor`), `fxRate` as a decimal string, ' +
    '`destination`, `status` 0-5, `version`',
});
export const BreakdownJob = entity({
  tag: 'SettlementBreakdown',
  family: 'settlement',
  pk: 'SETTLEMENT#{settlementId}',
  sk: 'BREAKDOWNJOB',
  indexes: { due: moneyDue },
  updates: ['cursors', 'sums', 'step', 'dueAt', 'GSI2SK'],
  doc: 'a large breakdown being summed (8j): `cursors` per wallet shard, `sums` (minor units), `step`, `queuedAt`; deleted once stored',
});
export const AutoSettlement = entity({
  tag: 'AutoSettlement',
  family: 'merchant',
  pk: 'MERCHANT#{merchantId}',
  sk: 'AUTOSETTLE#{mode}',
  indexes: { due: moneyDue },
  create: 'replace',
  updates: ['runAt', 'dueAt', 'GSI2PK', 'GSI2SK'],
  doc: 'the next automatic-settlement run of a schedule (absent for a manual schedule)',
});
export const Refund = entity({
  tag: 'Refund',
  family: 'refund',
  pk: 'REFUND#{refundId}',
  sk: 'REFUND',
  indexes: {
    ofIntent: { GSI1PK: 'TXN#{paymentIntentId}#REFUND', GSI1SK: '{requestedAt}#{refundId}' },
    ofMerchant: { GSI3PK: 'MERCHANT#{merchantId}#{mode}#REFUND{#shard?}', GSI3SK: '{requestedAt}#{refundId}' },
    due: moneyDue,
  },
  doc:
    '`amountMinor`, `feeMinor`, `status` 0-7, `attemptCount`, `expiresAt`, `version`; the intent carries ' +
    '`refundReservedMinor` and `refundedMinor`',
});
export const Quota = entity({
  tag: 'Quota',
  family: 'quota',
  pk: 'QUOTA#{mode}#{merchantId}#{subject}',
  sk: '{window}',
  updates: ['count', 'ttl'],
  doc: 'a fixed-window counter: `count` in the window starting at the sort key; `ttl` = 2 windows',
});
export const SandboxReceipt = entity({
  tag: 'SandboxReceipt',
  family: 'sandboxReceipt',
  pk: 'SANDBOX#{rail}#{reference}',
  sk: 'RECEIPT',
  doc: 'test mode only: `receivedAt`; `ttl` = 30 days',
});
export const BankFileLine = entity({
  tag: 'BankFileLine',
  family: 'bankFileLine',
  pk: 'BANKFILE#LINE#{reference}',
  sk: 'LINE',
  indexes: { queue: { GSI1PK: 'BANKFILE#QUEUE#{bank}#{currency}', GSI1SK: '{queuedAt}#{reference}' } },
  updates: ['state', 'batchId', 'exportedAt', 'markedAt', 'markedBy', 'bankReference', 'failureReason', 'GSI1PK', 'GSI1SK', 'voidedAt'],
  doc:
    "a live bank payout's or settlement's line: `state` (queued, exported, paid, failed, void), `batchId`, " +
    '`bankReference` / `failureReason`, `markedBy`',
});
export const BankFileBatch = entity({
  tag: 'BankFileBatch',
  pk: 'BANKFILE#BATCH#{batchId}',
  sk: 'BATCH',
  indexes: { listing: { GSI1PK: 'BANKFILE#BATCHES#{bank}#{currency}', GSI1SK: '{createdAt}#{batchId}' } },
  doc: 'a file: its layout, line references in file order, count, total, SHA-256 `digest`, `createdBy`',
});
export const BankFileAudit = entity({
  tag: 'BankFileAudit',
  pk: 'BANKFILE#AUDIT#{batchId}',
  sk: '{at}#{auditId}',
  doc: "an operator's step on a file: `action`, `actor`, `digest`, `reference`, `detail`",
});
export const DashUser = entity({
  tag: 'DashUser',
  family: 'dashUser',
  pk: 'DASHUSER#{userId}',
  sk: 'DASHUSER',
  indexes: { listing: { GSI1PK: 'MERCHANT#{merchantId}#DASHUSER', GSI1SK: '{createdAt}#{userId}' } },
  doc:
    'e-mail, role, status (`invited`/`active`/`disabled`), scrypt `passwordHash`, TOTP secret sealed, `lastTotpStep`, digests of ' +
    'unused recovery codes, `lockedUntil`, `sessionEpoch`, `version`',
});
export const DashUserFailures = entity({
  tag: 'DashThrottle',
  family: 'dashUser',
  pk: 'DASHUSER#{userId}',
  sk: 'FAILURES#{window}',
  updates: ['count', 'ttl'],
  doc: '`count` of failed sign-ins of the account in the window; `ttl` = 2 windows',
});
export const DashEmail = entity({
  tag: 'DashEmail',
  family: 'dashEmail',
  pk: 'DASHEMAIL#{email}',
  sk: 'DASHEMAIL',
  doc: 'one dashboard account per (lower-case) e-mail address; sign-in lookup',
});
export const DashMember = entity({
  tag: 'DashMember',
  family: 'dashEmail',
  pk: 'DASHEMAIL#{email}',
  sk: 'MERCHANT#{merchantId}',
  doc: 'this merchant invited the address (one user per address and merchant)',
});
export const DashInvite = entity({
  tag: 'DashInvite',
  family: 'dashInvite',
  pk: 'DASHINVITE#{tokenHash}',
  sk: 'DASHINVITE',
  updates: ['usedAt'],
  doc: 'userId, merchantId, `expiresAt` (72 h), `usedAt`; `ttl` a day after expiry. The token itself is only in the link',
});
export const DashSession = entity({
  tag: 'DashSession',
  family: 'dashSession',
  pk: 'DASHSESSION#{sessionHash}',
  sk: 'DASHSESSION',
  doc: 'userId, merchantId, `stage` (`enrol`/`full`), `mode`, `epoch`, `lastSeenAt` (idle 30 min), `expiresAt` (12 h), `revokedAt`; `ttl`',
});
export const DashAudit = entity({
  tag: 'DashAudit',
  family: 'dashAudit',
  pk: 'AUDIT#{merchantId}',
  sk: '{at}#{auditId}',
  doc: 'actor (user or `operator`), action, target, mode, client IP, outcome (`ok`/`refused`), detail; `ttl` = 1 year',
});
export const DashThrottle = entity({
  tag: 'DashThrottle',
  family: 'dashThrottle',
  pk: 'DASHTHROTTLE#{addressHash}',
  sk: '{window}',
  updates: ['count', 'ttl'],
  doc: '`count` of failed sign-ins from a client address; `ttl` = 2 windows',
});
export const PayoutMaker = entity({
  tag: 'PayoutMaker',
  family: 'payoutMaker',
  pk: 'PAYOUTMAKER#{mode}#{merchantId}#{orderRef}',
  sk: 'PAYOUTMAKER',
  doc: 'who created a payout (userId, e-mail, time; `keyId` when made through an API key that user minted)',
});
export const SettlementMaker = entity({
  tag: 'SettlementMaker',
  family: 'settlementMaker',
  pk: 'SETTLEMENTMAKER#{settlementId}',
  sk: 'SETTLEMENTMAKER',
  doc: 'who requested a settlement (as PayoutMaker)',
});
export const RefundMaker = entity({
  tag: 'RefundMaker',
  family: 'refundMaker',
  pk: 'REFUNDMAKER#{refundId}',
  sk: 'REFUNDMAKER',
  doc: 'who requested a refund (as PayoutMaker)',
});
export const Approvals = entity({
  tag: 'Approvals',
  family: 'approvals',
  pk: 'APPROVALS#{kind}#{id}',
  sk: 'APPROVALS',
  updates: ['merchant', 'operator'],
  doc:
    'of a payout, settlement or refund under the merchant setting `both`: `merchant` (time, userId, e-mail) and ' +
    '`operator` (time) approvals so far',
});
export const PaymentLink = entity({
  tag: 'PaymentLink',
  family: 'paymentLink',
  pk: 'PAYLINK#{linkId}',
  sk: 'PAYLINK',
  indexes: { listing: { GSI1PK: 'MERCHANT#{merchantId}#{mode}#PAYLINK', GSI1SK: '{createdAt}#{linkId}' } },
  updates: ['active', 'updatedAt', 'usesHeld', 'paidCount', 'paidMinor'],
  doc:
    'docs/payment-links.md: `active`, `currency`, `description`, `price`, `quantity`, `maxPayments`, `expiresAt`, ' +
    '`collect`, `returnUrl`; counters `usesHeld`, `paidCount`, `paidMinor` (L5-L6)',
});
export const LinkPayment = entity({
  tag: 'LinkPayment',
  family: 'paymentLink',
  pk: 'PAYLINK#{linkId}',
  sk: 'PAYMENT#{createdAt}#{paymentIntentId}',
  doc: "`paymentIntentId`: a checkout created from the link (L5, L7); the checkout's `details.paymentLinkId` points back",
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
