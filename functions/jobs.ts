/**
 * THE jobs table: the background functions (no HTTP route), the counterpart of routes.ts. The CDK
 * stack makes one Lambda per row with its trigger and grants; the local stack (scripts/local/jobs.ts)
 * runs the same handler modules on timers, an SQS poller and a DynamoDB Local stream poller.
 */
export type JobTrigger =
  /** AWS: an EventBridge rate rule (1 minute at the least); locally a timer of `everySeconds`. */
  | { kind: 'schedule'; everySeconds: number }
  /** The webhook queue, with partial batch failures (SQSBatchResponse). */
  | { kind: 'queue'; queue: 'webhooks'; batchSize: number; maxConcurrency?: number }
  /** New table items of the given entities (INSERT only), with partial batch failures. */
  | { kind: 'stream'; entities: readonly string[]; batchSize: number };

export interface Job {
  readonly id: string;
  /** Handler module, relative to the repository root; it exports `handler`. */
  readonly handler: string;
  readonly trigger: JobTrigger;
  readonly permissions: { readonly table: 'read' | 'readWrite'; readonly webhookQueue?: 'send' };
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
    permissions: { table: 'readWrite' },
    timeoutSeconds: 60,
    summary: 'Applies what is due: expired sessions, sandbox outcomes, reconciliation (GSI2 due index, no scans).',
  },
} as const satisfies Record<string, Job>;

export type JobId = keyof typeof jobs;
export const jobList: readonly Job[] = Object.values(jobs);
