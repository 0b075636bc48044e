// GENERATED FILE: do not edit by hand. Source: shared/store/entities.ts; regenerate with `npm run docs` (scripts/store-keys.ts).
import type { Mode } from '#shared/domain/credentials.ts';
import type { EventSubject } from '#shared/domain/events.ts';
import { dueShard, dueShardCount, eventHome, type Key } from './key-parts.ts';

/** The partition key prefix of each item family a function may be confined to (IAM `dynamodb:LeadingKeys`; infra/route-stack.ts). */
export const partitionPrefixes = {
  merchant: 'MERCHANT#',
  apiKey: 'APIKEY#',
  apiKeyId: 'APIKEYID#',
  idempotency: 'IDEM#',
  intent: 'TXN#',
  orderRef: 'ORDERREF#',
  transactionReference: 'TXREF#',
  customerPayment: 'CUSTOMER#',
  eventPointer: 'EVENTID#',
  eventFeed: 'EVENTFEED#',
  providerReference: 'PROVREF#',
  settlement: 'SETTLEMENT#',
  refund: 'REFUND#',
  quota: 'QUOTA#',
  sandboxReceipt: 'SANDBOX#',
  bankFileLine: 'BANKFILE#LINE#',
  dashUser: 'DASHUSER#',
  dashEmail: 'DASHEMAIL#',
  dashInvite: 'DASHINVITE#',
  dashSession: 'DASHSESSION#',
  dashAudit: 'AUDIT#',
  dashThrottle: 'DASHTHROTTLE#',
  payoutMaker: 'PAYOUTMAKER#',
  settlementMaker: 'SETTLEMENTMAKER#',
  refundMaker: 'REFUNDMAKER#',
  approvals: 'APPROVALS#',
  paymentLink: 'PAYLINK#',
} as const;
export type PartitionFamily = keyof typeof partitionPrefixes;
/** The index partition families an index Query may be confined to (IAM `dynamodb:LeadingKeys` patterns; infra/route-stack.ts). */
export const indexPartitions = {
  merchants: 'MERCHANTS',
  merchant: 'MERCHANT#*',
  due: 'DUE#*',
  heldapproval: 'HELDAPPROVAL',
  webhookdue: 'WEBHOOKDUE#*',
  events: 'EVENTS#*',
  moneydue: 'MONEYDUE#*',
  txn: 'TXN#*',
  bankfileQueue: 'BANKFILE#QUEUE#*',
  bankfileBatches: 'BANKFILE#BATCHES#*',
} as const;
export type IndexFamily = keyof typeof indexPartitions;

// Merchant
export const merchant = (merchantId: string): Key => ({ PK: `MERCHANT#${merchantId}`, SK: 'PROFILE' });
export const merchantListing = (createdAt: string, merchantId: string) => ({ GSI1PK: 'MERCHANTS', GSI1SK: `${createdAt}#${merchantId}` });
export const allMerchants = () => ({ GSI1PK: 'MERCHANTS' });
// ApiKey
export const apiKey = (hash: string): Key => ({ PK: `APIKEY#${hash}`, SK: 'APIKEY' });
export const apiKeyListing = (merchantId: string, mode: Mode, createdAt: string, keyId: string) => ({ GSI1PK: `MERCHANT#${merchantId}`, GSI1SK: `APIKEY#${mode}#${createdAt}#${keyId}` });
export const apiKeysOfMerchant = (merchantId: string, mode?: Mode) => ({ GSI1PK: `MERCHANT#${merchantId}`, GSI1SKPrefix: mode ? `APIKEY#${mode}#` : 'APIKEY#' });
// ApiKeyId
export const apiKeyId = (keyId: string): Key => ({ PK: `APIKEYID#${keyId}`, SK: 'APIKEYID' });
// ShardConfig
export const shardConfig = (merchantId: string, mode: Mode): Key => ({ PK: `MERCHANT#${merchantId}`, SK: `SHARDS#${mode}` });
// Wallet
export const wallet = (merchantId: string, mode: Mode, currency: string): Key => ({ PK: `MERCHANT#${merchantId}`, SK: `WALLET#${mode}#${currency}` });
export const walletShard = (merchantId: string, mode: Mode, currency: string, shard: number): Key => ({ PK: `MERCHANT#${merchantId}${shard ? `#SHARD#${shard}` : ''}`, SK: `WALLET#${mode}#${currency}` });
export const walletsOfMerchant = (merchantId: string, mode: Mode, shard = 0) => ({ PK: `MERCHANT#${merchantId}${shard ? `#SHARD#${shard}` : ''}`, SKPrefix: `WALLET#${mode}#` });
// Journal
export const journal = (merchantId: string, mode: Mode, createdAt: string, journalId: string, shard = 0): Key => ({ PK: `MERCHANT#${merchantId}${shard ? `#SHARD#${shard}` : ''}`, SK: `JOURNAL#${mode}#${createdAt}#${journalId}` });
export const journalsOfMerchant = (merchantId: string, mode: Mode, shard = 0) => ({ PK: `MERCHANT#${merchantId}${shard ? `#SHARD#${shard}` : ''}`, SKPrefix: `JOURNAL#${mode}#` });
export const journalByKind = (merchantId: string, mode: Mode, kind: string, createdAt: string, journalId: string, shard = 0) => ({ GSI3PK: `MERCHANT#${merchantId}#${mode}#BALTXN#${kind}${shard ? `#${shard}` : ''}`, GSI3SK: `${createdAt}#${journalId}` });
export const journalBySource = (merchantId: string, mode: Mode, reference: string, createdAt: string, journalId: string) => ({ GSI1PK: `MERCHANT#${merchantId}#${mode}#BALSRC#${reference}`, GSI1SK: `${createdAt}#${journalId}` });
// BalanceCheckpoint
export const balanceCheckpoint = (merchantId: string, mode: Mode, currency: string, boundary: string): Key => ({ PK: `MERCHANT#${merchantId}`, SK: `BALCKPT#${mode}#${currency}#${boundary}` });
export const balanceCheckpointsOf = (merchantId: string, mode: Mode, currency: string) => ({ PK: `MERCHANT#${merchantId}`, SKPrefix: `BALCKPT#${mode}#${currency}#` });
// DailyVolume
export const dailyVolume = (merchantId: string, mode: Mode, day: string, currency: string, shard = 0): Key => ({ PK: `MERCHANT#${merchantId}${shard ? `#SHARD#${shard}` : ''}`, SK: `DAILY#${mode}#${day}#${currency}` });
export const dailyVolumesOfMerchant = (merchantId: string, mode: Mode, shard = 0) => ({ PK: `MERCHANT#${merchantId}${shard ? `#SHARD#${shard}` : ''}`, SKPrefix: `DAILY#${mode}#` });
// OperatorReference
export const operatorReference = (merchantId: string, mode: Mode, command: string, reference: string): Key => ({ PK: `MERCHANT#${merchantId}`, SK: `OPREF#${mode}#${command}#${reference}` });
// Idempotency
export const idempotency = (mode: Mode, merchantId: string, idempotencyKey: string): Key => ({ PK: `IDEM#${mode}#${merchantId}#${idempotencyKey}`, SK: 'IDEM' });
// Intent
export const intent = (paymentIntentId: string): Key => ({ PK: `TXN#${paymentIntentId}`, SK: 'TXN' });
export const intentListing = (merchantId: string, mode: Mode, createdAt: string, paymentIntentId: string, shard = 0) => ({ GSI1PK: `MERCHANT#${merchantId}#${mode}#TXN${shard ? `#${shard}` : ''}`, GSI1SK: `${createdAt}#${paymentIntentId}` });
export const intentsOfMerchant = (merchantId: string, mode: Mode, shard = 0) => ({ GSI1PK: `MERCHANT#${merchantId}#${mode}#TXN${shard ? `#${shard}` : ''}` });
export const intentByTypeStatus = (merchantId: string, mode: Mode, intentType: string, status: string, createdAt: string, paymentIntentId: string, shard = 0) => ({ GSI3PK: `MERCHANT#${merchantId}#${mode}#TXN#${intentType}#${status}${shard ? `#${shard}` : ''}`, GSI3SK: `${createdAt}#${paymentIntentId}` });
export const due = (id: string, dueAt: string) => ({ GSI2PK: `DUE#${dueShard(id)}`, GSI2SK: `${dueAt}#${id}` });
export const dueShards = () => Array.from({ length: dueShardCount }, (_, dueShard) => `DUE#${dueShard}`);
export const heldApproval = (id: string, heldAt: string) => ({ GSI2PK: 'HELDAPPROVAL', GSI2SK: `${heldAt}#${id}` });
// OrderRef
export const orderRef = (mode: Mode, merchantId: string, orderRef: string): Key => ({ PK: `ORDERREF#${mode}#${merchantId}#${orderRef}`, SK: 'ORDERREF' });
// TxRef
export const transactionReference = (mode: Mode, merchantId: string, reference: string): Key => ({ PK: `TXREF#${mode}#${merchantId}#${reference}`, SK: 'TXREF' });
export const referenceSearch = (merchantId: string, mode: Mode, normalized: string, shard = 0) => ({ GSI1PK: `MERCHANT#${merchantId}#${mode}#REFS${shard ? `#${shard}` : ''}`, GSI1SK: `${normalized}` });
export const paymentIdSearch = (merchantId: string, mode: Mode, paymentIntentId: string, shard = 0) => ({ GSI3PK: `MERCHANT#${merchantId}#${mode}#REFS${shard ? `#${shard}` : ''}`, GSI3SK: `${paymentIntentId.toLowerCase()}` });
export const referencesOfMerchant = (merchantId: string, mode: Mode, shard = 0) => `MERCHANT#${merchantId}#${mode}#REFS${shard ? `#${shard}` : ''}`;
// CustomerPayment
export const customerPayment = (mode: Mode, merchantId: string, kind: string, digest: string, createdAt: string, paymentIntentId: string): Key => ({ PK: `CUSTOMER#${mode}#${merchantId}#${kind}#${digest}`, SK: `${createdAt}#${paymentIntentId}` });
export const paymentsOfCustomer = (mode: Mode, merchantId: string, kind: string, digest: string) => ({ PK: `CUSTOMER#${mode}#${merchantId}#${kind}#${digest}` });
// OutboxEvent
export const outboxEvent = (subject: EventSubject, createdAt: string, eventId: string): Key => ({ PK: `${eventHome(subject)}`, SK: `EVENT#${createdAt}#${eventId}` });
export const eventsOf = (subject: EventSubject) => ({ PK: `${eventHome(subject)}`, SKPrefix: 'EVENT#' });
export const webhookDue = (id: string, dueAt: string) => ({ GSI2PK: `WEBHOOKDUE#${dueShard(id)}`, GSI2SK: `${dueAt}#${id}` });
export const webhookDueShards = () => Array.from({ length: dueShardCount }, (_, dueShard) => `WEBHOOKDUE#${dueShard}`);
// EventPointer
export const eventPointer = (eventId: string): Key => ({ PK: `EVENTID#${eventId}`, SK: 'EVENTID' });
// EventFeed
export const eventFeed = (eventId: string): Key => ({ PK: `EVENTFEED#${eventId}`, SK: 'EVENTFEED' });
export const eventFeedListing = (merchantId: string, mode: Mode, createdAt: string, eventId: string, shard = 0) => ({ GSI1PK: `EVENTS#${merchantId}#${mode}${shard ? `#${shard}` : ''}`, GSI1SK: `${createdAt}#${eventId}` });
export const eventFeedByTypeState = (merchantId: string, mode: Mode, type: string, state: string, createdAt: string, eventId: string, shard = 0) => ({ GSI3PK: `EVENTS#${merchantId}#${mode}#${type}#${state}${shard ? `#${shard}` : ''}`, GSI3SK: `${createdAt}#${eventId}` });
// WebhookDelivery
export const webhookDelivery = (subject: EventSubject, eventId: string): Key => ({ PK: `${eventHome(subject)}`, SK: `DELIVERY#${eventId}` });
export const webhookDeliveryIn = (home: string, eventId: string): Key => ({ PK: `${home}`, SK: `DELIVERY#${eventId}` });
export const deliveriesOfIntent = (paymentIntentId: string) => ({ PK: `${eventHome({ kind: 'transaction', id: paymentIntentId })}`, SKPrefix: 'DELIVERY#' });
// WebhookAttempt
export const webhookAttempt = (subject: EventSubject, eventId: string, attempt: number): Key => ({ PK: `${eventHome(subject)}`, SK: `DELIVERY#${eventId}#ATTEMPT#${String(attempt).padStart(6, '0')}` });
export const attemptsOf = (subject: EventSubject, eventId: string) => ({ PK: `${eventHome(subject)}`, SKPrefix: `DELIVERY#${eventId}#ATTEMPT#` });
// WebhookHealth
export const webhookHealth = (merchantId: string, mode: Mode, urlHash: string): Key => ({ PK: `MERCHANT#${merchantId}`, SK: `WEBHOOKHEALTH#${mode}#${urlHash}` });
// WebhookResend
export const webhookResend = (subject: EventSubject, requestedAt: string, resendId: string): Key => ({ PK: `${eventHome(subject)}`, SK: `RESEND#${requestedAt}#${resendId}` });
// ProviderRef
export const providerReference = (provider: string, reference: string): Key => ({ PK: `PROVREF#${provider}#${reference}`, SK: 'PROVREF' });
// Settlement
export const settlement = (id: string): Key => ({ PK: `SETTLEMENT#${id}`, SK: 'SETTLEMENT' });
export const settlementListing = (merchantId: string, mode: Mode, requestedAt: string, id: string) => ({ GSI1PK: `MERCHANT#${merchantId}#${mode}#SETTLEMENT`, GSI1SK: `${requestedAt}#${id}` });
export const settlementsOfMerchant = (merchantId: string, mode: Mode) => ({ GSI1PK: `MERCHANT#${merchantId}#${mode}#SETTLEMENT` });
export const moneyDue = (id: string, dueAt: string) => ({ GSI2PK: `MONEYDUE#${dueShard(id)}`, GSI2SK: `${dueAt}#${id}` });
export const moneyDueShards = () => Array.from({ length: dueShardCount }, (_, dueShard) => `MONEYDUE#${dueShard}`);
// SettlementBreakdown
export const settlementBreakdownJob = (id: string): Key => ({ PK: `SETTLEMENT#${id}`, SK: 'BREAKDOWNJOB' });
// AutoSettlement
export const autoSettlement = (merchantId: string, mode: Mode): Key => ({ PK: `MERCHANT#${merchantId}`, SK: `AUTOSETTLE#${mode}` });
// Refund
export const refund = (id: string): Key => ({ PK: `REFUND#${id}`, SK: 'REFUND' });
export const refundListing = (paymentIntentId: string, requestedAt: string, id: string) => ({ GSI1PK: `TXN#${paymentIntentId}#REFUND`, GSI1SK: `${requestedAt}#${id}` });
export const refundsOfIntent = (paymentIntentId: string) => ({ GSI1PK: `TXN#${paymentIntentId}#REFUND` });
export const refundOfMerchant = (merchantId: string, mode: Mode, requestedAt: string, id: string, shard = 0) => ({ GSI3PK: `MERCHANT#${merchantId}#${mode}#REFUND${shard ? `#${shard}` : ''}`, GSI3SK: `${requestedAt}#${id}` });
// Quota
export const quota = (mode: Mode, merchantId: string, counted: string, window: string): Key => ({ PK: `QUOTA#${mode}#${merchantId}#${counted}`, SK: `${window}` });
// SandboxReceipt
export const sandboxReceipt = (rail: string, reference: string): Key => ({ PK: `SANDBOX#${rail}#${reference}`, SK: 'RECEIPT' });
// BankFileLine
export const bankFileLine = (reference: string): Key => ({ PK: `BANKFILE#LINE#${reference}`, SK: 'LINE' });
export const bankFileQueue = (bank: string, currency: string) => ({ GSI1PK: `BANKFILE#QUEUE#${bank}#${currency}` });
export const bankFileQueued = (bank: string, currency: string, queuedAt: string, reference: string) => ({ GSI1PK: `BANKFILE#QUEUE#${bank}#${currency}`, GSI1SK: `${queuedAt}#${reference}` });
// BankFileBatch
export const bankFileBatch = (batchId: string): Key => ({ PK: `BANKFILE#BATCH#${batchId}`, SK: 'BATCH' });
export const bankFileBatches = (bank: string, currency: string) => ({ GSI1PK: `BANKFILE#BATCHES#${bank}#${currency}` });
export const bankFileBatchListing = (bank: string, currency: string, createdAt: string, batchId: string) => ({ GSI1PK: `BANKFILE#BATCHES#${bank}#${currency}`, GSI1SK: `${createdAt}#${batchId}` });
// BankFileAudit
export const bankFileAudit = (batchId: string, at: string, auditId: string): Key => ({ PK: `BANKFILE#AUDIT#${batchId}`, SK: `${at}#${auditId}` });
export const bankFileAuditOf = (batchId: string) => ({ PK: `BANKFILE#AUDIT#${batchId}` });
// DashUser
export const dashUser = (userId: string): Key => ({ PK: `DASHUSER#${userId}`, SK: 'DASHUSER' });
export const dashUserListing = (merchantId: string, createdAt: string, userId: string) => ({ GSI1PK: `MERCHANT#${merchantId}#DASHUSER`, GSI1SK: `${createdAt}#${userId}` });
export const dashUsersOfMerchant = (merchantId: string) => ({ GSI1PK: `MERCHANT#${merchantId}#DASHUSER` });
// DashThrottle
export const dashUserFailures = (userId: string, window: string): Key => ({ PK: `DASHUSER#${userId}`, SK: `FAILURES#${window}` });
// DashEmail
export const dashEmail = (email: string): Key => ({ PK: `DASHEMAIL#${email}`, SK: 'DASHEMAIL' });
// DashMember
export const dashMember = (email: string, merchantId: string): Key => ({ PK: `DASHEMAIL#${email}`, SK: `MERCHANT#${merchantId}` });
// DashInvite
export const dashInvite = (tokenHash: string): Key => ({ PK: `DASHINVITE#${tokenHash}`, SK: 'DASHINVITE' });
// DashSession
export const dashSession = (sessionHash: string): Key => ({ PK: `DASHSESSION#${sessionHash}`, SK: 'DASHSESSION' });
// DashAudit
export const dashAudit = (merchantId: string, at: string, auditId: string): Key => ({ PK: `AUDIT#${merchantId}`, SK: `${at}#${auditId}` });
export const dashAuditOfMerchant = (merchantId: string) => ({ PK: `AUDIT#${merchantId}` });
// DashThrottle
export const dashThrottle = (addressHash: string, window: string): Key => ({ PK: `DASHTHROTTLE#${addressHash}`, SK: `${window}` });
// PayoutMaker
export const payoutMaker = (mode: Mode, merchantId: string, orderRef: string): Key => ({ PK: `PAYOUTMAKER#${mode}#${merchantId}#${orderRef}`, SK: 'PAYOUTMAKER' });
// SettlementMaker
export const settlementMaker = (settlementId: string): Key => ({ PK: `SETTLEMENTMAKER#${settlementId}`, SK: 'SETTLEMENTMAKER' });
// RefundMaker
export const refundMaker = (refundId: string): Key => ({ PK: `REFUNDMAKER#${refundId}`, SK: 'REFUNDMAKER' });
// Approvals
export const approvals = (kind: 'payout' | 'settlement' | 'refund', id: string): Key => ({ PK: `APPROVALS#${kind}#${id}`, SK: 'APPROVALS' });
// PaymentLink
export const paymentLink = (linkId: string): Key => ({ PK: `PAYLINK#${linkId}`, SK: 'PAYLINK' });
export const paymentLinkListing = (merchantId: string, mode: Mode, createdAt: string, linkId: string) => ({ GSI1PK: `MERCHANT#${merchantId}#${mode}#PAYLINK`, GSI1SK: `${createdAt}#${linkId}` });
export const paymentLinksOfMerchant = (merchantId: string, mode: Mode) => ({ GSI1PK: `MERCHANT#${merchantId}#${mode}#PAYLINK` });
// LinkPayment
export const linkPayment = (linkId: string, createdAt: string, paymentIntentId: string): Key => ({ PK: `PAYLINK#${linkId}`, SK: `PAYMENT#${createdAt}#${paymentIntentId}` });
export const paymentsOfLink = (linkId: string) => ({ PK: `PAYLINK#${linkId}`, SKPrefix: 'PAYMENT#' });
