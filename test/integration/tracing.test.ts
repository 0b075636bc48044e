import { randomUUID } from 'node:crypto';
import { createSocket } from 'node:dgram';
import type { AddressInfo } from 'node:net';
import { GetItemCommand, PutItemCommand } from '@aws-sdk/client-dynamodb';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { closeTraceSocket, currentTraceHeader, daemonAddress } from '#shared/aws/tracing.ts';
import { addDbMiddleware, db, tableName } from '#shared/store/client.ts';

/**
 * The X-Ray subsegments of the AWS SDK calls (shared/aws/tracing.ts): what the operator runbook's
 * "X-Ray traces of the function (DynamoDB and SQS calls are traced subsegments)" relies on, sent
 * to a stand-in for Lambda's X-Ray daemon on 127.0.0.1, against DynamoDB Local.
 */
describe('X-Ray subsegments of AWS SDK calls', () => {
  const daemon = createSocket('udp4');
  const documents: Record<string, unknown>[] = [];
  const root = '1-5759e988-bd862e3fe1be46a994272793';
  const parent = '53995c3f42cd8ad8';
  const saved = { trace: process.env._X_AMZN_TRACE_ID, daemon: process.env.AWS_XRAY_DAEMON_ADDRESS };

  beforeAll(async () => {
    daemon.on('message', (message) => {
      const [header, body] = message.toString().split('\n');
      expect(JSON.parse(header!)).toEqual({ format: 'json', version: 1 });
      documents.push(JSON.parse(body!));
    });
    await new Promise<void>((ok) => daemon.bind(0, '127.0.0.1', ok));
    process.env.AWS_XRAY_DAEMON_ADDRESS = `127.0.0.1:${(daemon.address() as AddressInfo).port}`;
  });
  afterEach(() => {
    documents.length = 0;
    delete process.env._X_AMZN_TRACE_ID;
  });
  afterAll(() => {
    closeTraceSocket();
    daemon.close();
    for (const [name, value] of [
      ['_X_AMZN_TRACE_ID', saved.trace],
      ['AWS_XRAY_DAEMON_ADDRESS', saved.daemon],
    ] as const)
      if (value === undefined) delete process.env[name];
      else process.env[name] = value;
  });

  const waitFor = async (count: number) => {
    for (let i = 0; i < 100 && documents.length < count; i++) await new Promise((ok) => setTimeout(ok, 20));
    return documents;
  };

  it('sends one subsegment per call under the invocation segment, and passes the trace on to the service', async () => {
    process.env._X_AMZN_TRACE_ID = `Root=${root};Parent=${parent};Sampled=1;Lineage=a87bd80c:0`;
    const sentHeaders: string[] = [];
    const removeMiddleware = addDbMiddleware('testTraceHeader', (stack) =>
      stack.add(
        (next) => async (args) => {
          sentHeaders.push((args.request as { headers: Record<string, string> }).headers['X-Amzn-Trace-Id'] ?? '');
          return next(args);
        },
        { step: 'finalizeRequest', name: 'testTraceHeader' },
      ),
    );
    try {
      await db().send(new GetItemCommand({ TableName: tableName(), Key: { PK: { S: `trace#${randomUUID()}` }, SK: { S: 'x' } } }));
    } finally {
      removeMiddleware();
    }
    const [segment] = await waitFor(1);
    expect(segment).toMatchObject({
      trace_id: root,
      parent_id: parent,
      type: 'subsegment',
      name: 'DynamoDB',
      namespace: 'aws',
      aws: { operation: 'GetItem', region: 'local', table_name: tableName(), retries: 0 },
      http: { response: { status: 200 } },
    });
    expect(segment!.id).toMatch(/^[0-9a-f]{16}$/);
    expect(segment!.end_time as number).toBeGreaterThanOrEqual(segment!.start_time as number);
    expect(segment).not.toHaveProperty('error');
    expect(sentHeaders).toEqual([`Root=${root};Parent=${segment!.id};Sampled=1`]);
  });

  it('marks a failed call as an error with its cause (a 4xx) and still rethrows it', async () => {
    process.env._X_AMZN_TRACE_ID = `Root=${root};Parent=${parent};Sampled=1`;
    const item = { PK: { S: `trace#${randomUUID()}` }, SK: { S: 'x' } };
    await db().send(new PutItemCommand({ TableName: tableName(), Item: item }));
    await expect(
      db().send(new PutItemCommand({ TableName: tableName(), Item: item, ConditionExpression: 'attribute_not_exists(PK)' })),
    ).rejects.toThrow(/conditional/i);
    const [, failed] = await waitFor(2);
    expect(failed).toMatchObject({
      name: 'DynamoDB',
      aws: { operation: 'PutItem' },
      http: { response: { status: 400 } },
      error: true,
      cause: { exceptions: [{ type: 'ConditionalCheckFailedException', remote: true }] },
    });
    expect(failed).not.toHaveProperty('fault');
  });

  it('sends nothing for an unsampled invocation or outside Lambda (no trace header)', async () => {
    process.env._X_AMZN_TRACE_ID = `Root=${root};Parent=${parent};Sampled=0`;
    await db().send(new GetItemCommand({ TableName: tableName(), Key: { PK: { S: 'trace#none' }, SK: { S: 'x' } } }));
    delete process.env._X_AMZN_TRACE_ID;
    await db().send(new GetItemCommand({ TableName: tableName(), Key: { PK: { S: 'trace#none' }, SK: { S: 'x' } } }));
    // A sampled call afterwards arrives: had the two above sent anything, it would have come first.
    process.env._X_AMZN_TRACE_ID = `Root=${root};Parent=${parent};Sampled=1`;
    await db().send(new GetItemCommand({ TableName: tableName(), Key: { PK: { S: 'trace#last' }, SK: { S: 'x' } } }));
    const received = await waitFor(1);
    expect(received).toHaveLength(1);
    expect(received[0]).toMatchObject({ aws: { operation: 'GetItem' } });
  });

  it('reads the trace header and the daemon address in the forms Lambda sets', () => {
    expect(currentTraceHeader({ _X_AMZN_TRACE_ID: `Root=${root};Parent=${parent};Sampled=1` })).toEqual({ root, parent, sampled: true });
    expect(currentTraceHeader({ _X_AMZN_TRACE_ID: `Root=${root}` })).toBeUndefined();
    expect(currentTraceHeader({})).toBeUndefined();
    expect(daemonAddress({ AWS_XRAY_DAEMON_ADDRESS: 'localhost:2000' })).toEqual({ host: 'localhost', port: 2000 });
    expect(daemonAddress({ AWS_XRAY_DAEMON_ADDRESS: 'tcp:localhost:2001 udp:localhost:2000' })).toEqual({ host: 'localhost', port: 2000 });
    expect(daemonAddress({ AWS_XRAY_DAEMON_ADDRESS: 'nonsense' })).toBeUndefined();
    expect(daemonAddress({})).toBeUndefined();
  });
});
