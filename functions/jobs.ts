/**
 * THE jobs table: the background functions (no HTTP route), the counterpart of routes.ts. The CDK
 * stack makes one Lambda per row with its trigger and grants; the local stack (scripts/local/jobs.ts)
 * runs the same handler modules on timers, an SQS poller and a DynamoDB Local stream poller.
 */
import type { SecretName } from '#functions/routes.ts';
import type { IndexFamily, PartitionFamily } from '#shared/http/route.ts';
import { relayedEntities } from '#shared/webhooks/messages.ts';
import { healthAttributes } from '#shared/domain/event-types.ts';

export type JobTrigger =
  /** AWS: an EventBridge rate rule (1 minute at the least); locally a timer of `everySeconds`. */
  | { kind: 'schedule'; everySeconds: number }
  /** The webhook queue, with partial batch failures (SQSBatchResponse). */
  | { kind: 'queue'; queue: 'webhooks'; batchSize: number; maxConcurrency?: number }
  /**
   * New table items of the given entities (INSERT only), with partial batch failures. A record that
   * keeps failing is given up after `retryAttempts` retries or `maxRecordAgeSeconds` (AWS: to the
   * stream failure queue; locally: an error log with its keys), so it cannot block its shard.
   */
  | { kind: 'stream'; entities: readonly string[]; batchSize: number; retryAttempts: number; maxRecordAgeSeconds: number };

export type TableAction = 'GetItem' | 'BatchGetItem' | 'PutItem' | 'UpdateItem' | 'DeleteItem' | 'BatchWriteItem' | 'ConditionCheckItem';

export interface Job {
  readonly id: string;
  /** Handler module, relative to the repository root; it exports `handler`. */
  readonly handler: string;
  readonly trigger: JobTrigger;
  /**
   * Grants in AWS, exactly what the handler's code calls (test/infra/code-grants.test.ts reads each
   * bundle): `table` the DynamoDB actions (TransactGetItems needs GetItem; TransactWriteItems the
   * action of each item kind; Query is `queries`: on the table, on GSI1-3 or both); `secrets` as in routes.ts (only the
   * dispatcher unseals webhook signing secrets); `send` to the webhook queue and/or its dead-letter
   * queue (the queue trigger's own receive/delete/visibility grants come with it).
   */
  readonly permissions: {
    readonly table: readonly TableAction[];
    readonly queries?: 'table' | 'indexes' | 'tableAndIndexes';
    /** The index partition families its index queries reach (dynamodb:LeadingKeys; required with index queries): its code's. */
    readonly indexPartitions?: readonly IndexFamily[];
    /** The partition families its writes reach (IAM dynamodb:LeadingKeys; never an API key's): its code's, checked by code-grants. */
    readonly writePartitions?: readonly PartitionFamily[];
    /**
     * Its UpdateItem apart from its other writes: on these families only and, with `attributes`, naming no attribute
     * but the key and those (dynamodb:Attributes, ReturnValues NONE): the items it updates but does not own.
     */
    readonly updates?: { readonly partitions: readonly PartitionFamily[]; readonly attributes?: readonly string[] };
    /** The partition families its item reads and table queries reach (dynamodb:LeadingKeys): its code's, checked by code-grants. */
    readonly readPartitions?: readonly PartitionFamily[];
    readonly secrets: readonly SecretName[];
    readonly webhookQueue?: 'send';
    readonly deadLetterQueue?: 'send';
  };
  readonly timeoutSeconds: number;
  readonly summary: string;
}

export const jobs = {
  dueSweeper: {
    id: 'dueSweeper',
    handler: 'functions/jobs/due-sweeper.ts',
    // Started every minute; each run keeps polling the due index every 2 s until its timeout is
    // near, so timed outcomes (expiry, sandbox approvals, reconciliation) land within seconds.
    trigger: { kind: 'schedule', everySeconds: 60 },
    // DeleteItem: a transaction's Delete of a disarmed automatic-settlement run, a finished breakdown job; Query on
    // the table: a large settlement breakdown's window, summed a step at a time; liveProviders: reconciliation asks
    // the live provider about pending charges.
    permissions: {
      table: ['GetItem', 'BatchGetItem', 'PutItem', 'UpdateItem', 'DeleteItem'],
      queries: 'tableAndIndexes',
      indexPartitions: ['due', 'moneydue'],
      readPartitions: [
        'approvals',
        'bankFileLine',
        'eventFeed',
        'eventPointer',
        'intent',
        'merchant',
        'paymentLink',
        'refund',
        'sandboxReceipt',
        'settlement',
      ],
      // Updates of what it moves on: intents, settlements, refunds, wallets and journals, links' uses, approvals, bank
      // file lines; an event's feed entry and pointer and a sandbox receipt are only ever put.
      updates: { partitions: ['intent', 'settlement', 'refund', 'merchant', 'paymentLink', 'approvals', 'bankFileLine'] },
      // Intents, settlements, refunds (with their events), wallets and journals, links' uses, approvals, sandbox receipts.
      writePartitions: [
        'intent',
        'settlement',
        'refund',
        'eventFeed',
        'eventPointer',
        'merchant',
        'paymentLink',
        'approvals',
        'sandboxReceipt',
        'bankFileLine',
      ],
      secrets: ['liveProviders'],
    },
    timeoutSeconds: 60,
    summary:
      'Applies what is due: expired sessions, sandbox outcomes, reconciliation, settlement ' +
      'and refund processing, automatic settlements, large settlement breakdowns (GSI2 due index, no scans).',
  },
  webhookRelay: {
    id: 'webhookRelay',
    handler: 'functions/webhooks/relay.ts',
    // A given-up record's event is still sent by the webhook sweep (docs/webhooks-operations.md).
    trigger: { kind: 'stream', entities: relayedEntities, batchSize: 100, retryAttempts: 5, maxRecordAgeSeconds: 600 },
    // BatchWriteItem: event pointers
    permissions: { table: ['BatchWriteItem'], writePartitions: ['eventPointer'], webhookQueue: 'send', secrets: [] },
    timeoutSeconds: 30,
    summary: 'Outbox relay: committed webhook events (and resend requests) from the table stream to the webhook queue.',
  },
  webhookDispatcher: {
    id: 'webhookDispatcher',
    handler: 'functions/webhooks/dispatch.ts',
    // The queue's visibility timeout is 6 × this timeout (infra/gateway-stack.ts).
    trigger: { kind: 'queue', queue: 'webhooks', batchSize: 10, maxConcurrency: 20 },
    // The delivery log (BatchWriteItem, UpdateItem); the next attempt as a delayed message on the
    // webhook queue (sendDelayed), the last failed one to the dead-letter queue.
    permissions: {
      table: ['GetItem', 'BatchGetItem', 'UpdateItem', 'BatchWriteItem'],
      readPartitions: ['eventFeed', 'intent', 'merchant', 'refund', 'settlement'],
      // The delivery log in the event's home (its subject's partition), the feed entry's state of an event from before.
      writePartitions: ['intent', 'refund', 'settlement', 'eventFeed'],
      // A destination's health (shared/store/webhook-health.ts recordAttempts): an item in the merchant's partition,
      // beside its wallet and profile, so its update names the health attributes only.
      updates: { partitions: ['merchant'], attributes: healthAttributes },
      webhookQueue: 'send',
      deadLetterQueue: 'send',
      secrets: ['masterKey'],
    },
    timeoutSeconds: 30,
    summary: 'Signs and delivers webhook events; retries on the documented schedule (docs/merchant-guide.md, Webhooks), then dead-letters.',
  },
  ledgerVerify: {
    id: 'ledgerVerify',
    handler: 'functions/jobs/ledger-verify.ts',
    trigger: { kind: 'schedule', everySeconds: 3600 },
    permissions: {
      table: ['GetItem'],
      queries: 'tableAndIndexes',
      indexPartitions: ['merchant', 'merchants', 'txn'],
      readPartitions: ['merchant', 'refund'],
      secrets: [],
    },
    timeoutSeconds: 300,
    summary: 'Hourly ledger verification of the ledgers whose wallets changed (docs/ledger-verification.md); emits LedgerDiscrepancies.',
  },
  ledgerVerifyFull: {
    id: 'ledgerVerifyFull',
    handler: 'functions/jobs/ledger-verify-full.ts',
    trigger: { kind: 'schedule', everySeconds: 86400 },
    // PutItem: the day's balance checkpoints (written once, conditional), each checked against the wallet's
    // TransactGetItems snapshot (GetItem), never a batch read.
    permissions: {
      table: ['GetItem', 'PutItem'],
      queries: 'tableAndIndexes',
      indexPartitions: ['merchant', 'merchants', 'txn'],
      readPartitions: ['merchant', 'refund'],
      writePartitions: ['merchant'],
      secrets: [],
    },
    timeoutSeconds: 900,
    summary:
      'Daily full ledger verification: every wallet, journal, payment, settlement and ' +
      'refund (docs/ledger-verification.md); emits LedgerDiscrepancies; then the balance checkpoints of the day.',
  },
  webhookSweeper: {
    id: 'webhookSweeper',
    handler: 'functions/jobs/webhook-sweeper.ts',
    trigger: { kind: 'schedule', everySeconds: 60 },
    // UpdateItem: moves due-index entries; BatchWriteItem: event pointers.
    permissions: {
      table: ['BatchGetItem', 'UpdateItem', 'BatchWriteItem'],
      queries: 'indexes',
      indexPartitions: ['webhookdue'],
      readPartitions: ['eventPointer', 'intent', 'refund', 'settlement'],
      // Event pointers; the due entries of outbox and delivery items in their homes (the subject's partition): an
      // update naming the due index's keys only (moveWebhookDue).
      writePartitions: ['eventPointer'],
      updates: { partitions: ['intent', 'refund', 'settlement'], attributes: ['GSI2PK', 'GSI2SK'] },
      webhookQueue: 'send',
      secrets: [],
    },
    timeoutSeconds: 60,
    summary:
      'Webhook safety sweep: sends again outbox events with no delivery record and retries overdue or parked (GSI2 due index, no scans).',
  },
} as const satisfies Record<string, Job>;

export type JobId = keyof typeof jobs;
export const jobList: readonly Job[] = Object.values(jobs);
