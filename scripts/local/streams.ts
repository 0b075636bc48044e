import { existsSync, mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { dirname } from 'node:path';
import { DescribeTableCommand } from '@aws-sdk/client-dynamodb';
import {
  DescribeStreamCommand,
  DynamoDBStreamsClient,
  ExpiredIteratorException,
  GetRecordsCommand,
  type GetRecordsCommandOutput,
  GetShardIteratorCommand,
  TrimmedDataAccessException,
  type _Record as StreamRecord,
  type Shard,
} from '@aws-sdk/client-dynamodb-streams';
import type { Context, DynamoDBBatchResponse, DynamoDBRecord, DynamoDBStreamEvent } from 'aws-lambda';
import type { Job } from '#functions/jobs.ts';
import { logger } from '#shared/logger.ts';
import { localClient } from './dynamo.ts';
import { idleBackoff, loadHandler, sleep } from './modules.ts';

/**
 * The DynamoDB stream event source mapping, on DynamoDB Local: reads every shard of the table's
 * stream in order (parents before children), keeps INSERTs of the job's entities (the filter the
 * CDK mapping has), calls the handler with batches, and honours ReportBatchItemFailures.
 *
 * A record is acknowledged (its sequence number checkpointed) only after the handler succeeded for
 * it; a failure checkpoints up to the record before the first failed one and re-reads from there.
 * With `checkpointFile` the checkpoints survive a restart (written atomically after every
 * acknowledgement), so a runner killed at any point resumes after the last acknowledged record.
 * Without a checkpoint a shard is read from TRIM_HORIZON.
 */
export interface StreamRunnerOptions {
  dynamoEndpoint: string;
  tableName: string;
  checkpointFile?: string;
  /** Wait after an empty poll (default 100 ms), doubling while the stream stays idle up to `maxIdleMs` (default 250 ms). */
  pollMs?: number;
  maxIdleMs?: number;
  /**
   * The deploy rehearsal (scripts/rehearse): the function to call instead of the job's handler
   * module, the mapping's filter instead of the job's entities, and a streams client of its own
   * (signed as the function, so its role's stream grants are checked).
   */
  invoke?: StreamHandler;
  accepts?: (record: StreamRecord) => boolean;
  streams?: DynamoDBStreamsClient;
  /**
   * The mapping's on-failure destination (the rehearsal: the template's DestinationConfig.OnFailure): called with a
   * batch given up after its retries or past its record age, before it is acknowledged.
   */
  onGiveUp?: (batch: GivenUpBatch) => Promise<void>;
  /** The stream's ARN when the caller knows it (the rehearsal: its DynamoDB Local holds the table under the proxy's key only). */
  streamArn?: string;
}

export interface GivenUpBatch {
  shardId: string;
  streamArn: string;
  records: StreamRecord[];
  condition: 'RetryAttemptsExhausted' | 'RecordAgeExceeded';
  /** Invocations of the batch: the first and its retries. */
  invocations: number;
}

interface Checkpoints {
  streamArn: string;
  shards: Record<string, { sequenceNumber?: string; done?: boolean }>;
}

type StreamHandler = (event: DynamoDBStreamEvent, context: Context) => Promise<DynamoDBBatchResponse | void>;

function loadCheckpoints(file: string | undefined, streamArn: string): Checkpoints {
  if (file && existsSync(file)) {
    const saved = JSON.parse(readFileSync(file, 'utf8')) as Checkpoints;
    if (saved.streamArn === streamArn) return saved;
  }
  return { streamArn, shards: {} };
}

function saveCheckpoints(file: string | undefined, checkpoints: Checkpoints): void {
  if (!file) return;
  mkdirSync(dirname(file), { recursive: true });
  const temporary = `${file}.${process.pid}.tmp`;
  writeFileSync(temporary, JSON.stringify(checkpoints));
  renameSync(temporary, file);
}

/**
 * DynamoDB Local's stream writes an empty map as `{}`, at any depth (top level, inside a map or a
 * list): no type key at all, which `unmarshall` refuses ("No value defined"). DynamoDB Streams in
 * AWS, and so Lambda's event, write `{ "M": {} }` (as GetItem does, on DynamoDB Local too). Every
 * other AttributeValue has its type key (an empty list `{ "L": [] }`, an empty string `{ "S": "" }`
 * come through right), so a value without one can only be the empty map.
 */
type Wire = Record<string, unknown>;
const typed = (value: Wire) => Object.entries(value).some(([key, v]) => v !== undefined && key !== '$unknown');
function awsAttributeValue(value: Wire): Wire {
  if (!typed(value)) return { M: {} };
  if (value.M) return { M: awsImage(value.M as Record<string, Wire>) };
  if (Array.isArray(value.L)) return { L: (value.L as Wire[]).map(awsAttributeValue) };
  return value;
}
function awsImage(image: Record<string, Wire> | undefined): Record<string, Wire> | undefined {
  if (!image) return image;
  return Object.fromEntries(Object.entries(image).map(([name, value]) => [name, awsAttributeValue(value)]));
}

function toLambdaRecord(record: StreamRecord, streamArn: string): DynamoDBRecord {
  const d = record.dynamodb!;
  return {
    eventID: record.eventID,
    eventName: record.eventName as DynamoDBRecord['eventName'],
    eventVersion: record.eventVersion,
    eventSource: 'aws:dynamodb',
    awsRegion: record.awsRegion,
    eventSourceARN: streamArn,
    dynamodb: {
      ...(d.ApproximateCreationDateTime
        ? { ApproximateCreationDateTime: Math.floor(new Date(d.ApproximateCreationDateTime).getTime() / 1000) }
        : {}),
      Keys: d.Keys as never,
      NewImage: awsImage(d.NewImage as Record<string, Wire> | undefined) as never,
      SequenceNumber: d.SequenceNumber,
      SizeBytes: d.SizeBytes,
      StreamViewType: d.StreamViewType as never,
    },
  };
}

const matches = (record: StreamRecord, entities: readonly string[]) =>
  record.eventName === 'INSERT' && entities.includes(record.dynamodb?.NewImage?.entity?.S ?? '');

export async function streamLoop(
  job: Job & { trigger: { kind: 'stream' } },
  options: StreamRunnerOptions,
  context: () => Context,
  signal: AbortSignal,
): Promise<void> {
  const handler = options.invoke ?? (await loadHandler<StreamHandler>(job.handler));
  const accepts = options.accepts ?? ((record: StreamRecord) => matches(record, job.trigger.entities));
  const table = localClient(options.dynamoEndpoint);
  const streams =
    options.streams ??
    new DynamoDBStreamsClient({
      endpoint: options.dynamoEndpoint,
      region: 'local',
      credentials: { accessKeyId: 'local', secretAccessKey: 'local' },
    });
  const pollMs = options.pollMs ?? 100;
  const idle = idleBackoff(pollMs, Math.max(pollMs, options.maxIdleMs ?? 250));
  try {
    let streamArn: string | undefined = options.streamArn;
    while (!streamArn) {
      try {
        streamArn = (await table.send(new DescribeTableCommand({ TableName: options.tableName }))).Table?.LatestStreamArn;
        if (!streamArn) throw new Error(`table ${options.tableName} has no stream`);
      } catch (error) {
        if (signal.aborted) return;
        logger.error('stream runner cannot find the stream', { job: job.id, error });
        await sleep(1_000, signal);
      }
    }
    const checkpoints = loadCheckpoints(options.checkpointFile, streamArn);
    const iterators = new Map<string, string>();
    let shards: Shard[] = [];
    let listedAt = 0;
    let failures = 0;
    let lastFailedSequence: string | undefined;

    const listShards = async () => {
      const found: Shard[] = [];
      let start: string | undefined;
      do {
        const out = await streams.send(new DescribeStreamCommand({ StreamArn: streamArn, ExclusiveStartShardId: start }));
        found.push(...(out.StreamDescription?.Shards ?? []));
        start = out.StreamDescription?.LastEvaluatedShardId;
      } while (start);
      shards = found;
      listedAt = Date.now();
    };
    const iteratorFor = async (shardId: string) => {
      const after = checkpoints.shards[shardId]?.sequenceNumber;
      const out = await streams.send(
        new GetShardIteratorCommand({
          StreamArn: streamArn,
          ShardId: shardId,
          ...(after ? { ShardIteratorType: 'AFTER_SEQUENCE_NUMBER', SequenceNumber: after } : { ShardIteratorType: 'TRIM_HORIZON' }),
        }),
      );
      return out.ShardIterator;
    };
    const acknowledge = (shardId: string, sequenceNumber: string) => {
      checkpoints.shards[shardId] = { ...checkpoints.shards[shardId], sequenceNumber };
      saveCheckpoints(options.checkpointFile, checkpoints);
    };

    /** One GetRecords on a shard and the handler calls for it; true if there were records. */
    const pollShard = async (shardId: string): Promise<boolean> => {
      const iterator = iterators.get(shardId) ?? (await iteratorFor(shardId));
      if (!iterator) {
        checkpoints.shards[shardId] = { ...checkpoints.shards[shardId], done: true };
        saveCheckpoints(options.checkpointFile, checkpoints);
        return false;
      }
      let out: GetRecordsCommandOutput;
      try {
        out = await streams.send(new GetRecordsCommand({ ShardIterator: iterator, Limit: Math.max(job.trigger.batchSize, 1) }));
      } catch (error) {
        if (error instanceof ExpiredIteratorException || error instanceof TrimmedDataAccessException) {
          iterators.delete(shardId);
          return false;
        }
        throw error;
      }
      const records = out.Records ?? [];
      const wanted = records.filter(accepts);
      if (wanted.length) {
        let response: DynamoDBBatchResponse | void;
        try {
          response = await handler({ Records: wanted.map((r) => toLambdaRecord(r, streamArn)) }, context());
        } catch (error) {
          logger.error('stream job failed', { job: job.id, error });
          response = { batchItemFailures: [{ itemIdentifier: wanted[0]!.dynamodb!.SequenceNumber! }] };
        }
        const failed = new Set((response?.batchItemFailures ?? []).map((f) => f.itemIdentifier));
        const firstFailed = records.findIndex((r) => failed.has(r.dynamodb?.SequenceNumber ?? ''));
        const poison = firstFailed === -1 ? undefined : records[firstFailed]!;
        const poisonSeq = poison?.dynamodb?.SequenceNumber;
        const retries = poisonSeq && poisonSeq === lastFailedSequence ? failures : 0;
        const ageSeconds = poison?.dynamodb?.ApproximateCreationDateTime
          ? (Date.now() - poison.dynamodb.ApproximateCreationDateTime.getTime()) / 1000
          : 0;
        if (poison && (retries >= job.trigger.retryAttempts || ageSeconds > job.trigger.maxRecordAgeSeconds)) {
          // Given up, as the AWS mapping does (its failure destination gets metadata only): the log
          // carries the item's keys, and the table still has it for the webhook sweep.
          logger.error('stream record given up after its retries', {
            job: job.id,
            sequenceNumber: poisonSeq,
            keys: poison.dynamodb?.Keys,
            retries,
          });
          const condition = retries >= job.trigger.retryAttempts ? 'RetryAttemptsExhausted' : 'RecordAgeExceeded';
          await options
            .onGiveUp?.({ shardId, streamArn, records: wanted, condition, invocations: retries + 1 })
            .catch((error: unknown) => logger.error('stream on-failure destination refused the batch', { job: job.id, error }));
          acknowledge(shardId, poisonSeq!);
          iterators.delete(shardId);
          failures = 0;
          lastFailedSequence = undefined;
          return true;
        }
        if (firstFailed !== -1) {
          lastFailedSequence = poisonSeq;
          // Acknowledge what came before the first failure; re-read from it after a back-off.
          if (firstFailed > 0) acknowledge(shardId, records[firstFailed - 1]!.dynamodb!.SequenceNumber!);
          iterators.delete(shardId);
          failures++;
          await sleep(Math.min(5_000, 100 * 2 ** failures), signal);
          return true;
        }
      }
      failures = 0;
      if (records.length) acknowledge(shardId, records[records.length - 1]!.dynamodb!.SequenceNumber!);
      if (out.NextShardIterator) iterators.set(shardId, out.NextShardIterator);
      else {
        iterators.delete(shardId);
        checkpoints.shards[shardId] = { ...checkpoints.shards[shardId], done: true };
        saveCheckpoints(options.checkpointFile, checkpoints);
      }
      return records.length > 0;
    };

    while (!signal.aborted) {
      try {
        if (Date.now() - listedAt > 5_000 || shards.length === 0) await listShards();
        const known = new Set(shards.map((s) => s.ShardId));
        const ready = shards.filter((s) => {
          if (checkpoints.shards[s.ShardId!]?.done) return false;
          const parent = s.ParentShardId;
          return !parent || !known.has(parent) || checkpoints.shards[parent]?.done === true;
        });
        let busy = false;
        for (const shard of ready) {
          if (signal.aborted) break;
          busy = (await pollShard(shard.ShardId!)) || busy;
        }
        if (busy) idle.reset();
        else await idle.wait(signal);
      } catch (error) {
        if (signal.aborted) break;
        logger.error('stream poller error', { job: job.id, error });
        iterators.clear();
        await sleep(1_000, signal);
      }
    }
  } finally {
    table.destroy();
    streams.destroy();
  }
}
