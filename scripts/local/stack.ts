import type { Server } from 'node:http';
import { resolve } from 'node:path';
import { ensureTable, startDynamoLocal, type RunningDynamo } from './dynamo.ts';
import { useLocalStack, type LocalConfig } from './config.ts';
import { createLocalServer } from './server.ts';
import { startLocalQueues, type RunningQueues } from './queues.ts';
import { startJobs, type RunningJobs } from './jobs.ts';

/**
 * The whole gateway on this machine: DynamoDB Local, the SQS queues, the API/checkout server and
 * the background workers. `stop()` ends every child process.
 */
export interface LocalStack {
  config: LocalConfig;
  dynamo: RunningDynamo;
  queues: RunningQueues;
  server: Server;
  jobs: RunningJobs;
  stop(): Promise<void>;
}

export async function startLocalStack(config: LocalConfig): Promise<LocalStack> {
  useLocalStack(config);
  const dynamo = await startDynamoLocal({
    port: config.dynamoPort,
    ...(config.inMemory ? {} : { dbPath: resolve(config.dataDir, 'dynamodb') }),
  });
  try {
    await ensureTable(dynamo.endpoint, config.tableName);
    const queues = await startLocalQueues(config.sqsPort);
    // The local queue lives in memory: after a restart (even a kill -9) it is empty, so whatever the
    // table says is waiting (outbox events without a delivery record, due retries) is sent now
    // instead of at the next safety sweep (shared/webhooks/sweep.ts).
    process.env.QUEUE_URL = queues.queueUrl;
    process.env.DEAD_LETTER_QUEUE_URL = queues.deadLetterQueueUrl;
    const { sweepWebhooks } = await import('#shared/webhooks/sweep.ts');
    const { sweepGraceSeconds } = await import('#shared/store/webhooks.ts');
    const recovered = await sweepWebhooks(new Date(), { horizonSeconds: sweepGraceSeconds() });
    if (recovered.resent || recovered.retries)
      console.log(`Recovered webhooks after a restart: ${recovered.resent} events and ${recovered.retries} retries queued again.`);
    const server = createLocalServer(undefined, { rateLimits: config.rateLimits });
    await new Promise<void>((ok, fail) => server.once('error', fail).listen(config.port, config.host, ok));
    const jobs = startJobs({
      queueUrl: queues.queueUrl,
      sqsEndpoint: queues.endpoint,
      deadLetterQueueUrl: queues.deadLetterQueueUrl,
      // The outbox relay resumes after its last acknowledged stream record across restarts.
      ...(config.inMemory ? {} : { streamCheckpointDir: resolve(config.dataDir, 'stream-checkpoints') }),
    });
    let stopped = false;
    return {
      config,
      dynamo,
      queues,
      server,
      jobs,
      async stop() {
        if (stopped) return;
        stopped = true;
        await jobs.stop();
        server.closeAllConnections();
        await new Promise<void>((ok) => server.close(() => ok()));
        await queues.stop();
        await dynamo.stop();
      },
    };
  } catch (error) {
    await dynamo.stop();
    throw error;
  }
}
