import { randomUUID } from 'node:crypto';
import { DescribeTableCommand } from '@aws-sdk/client-dynamodb';
import { afterAll, describe, expect, inject, it } from 'vitest';
import { tableDefinition } from '#shared/store/table.ts';
import { createTableInput, ensureTable, localClient } from '../../scripts/local/dynamo.ts';

/**
 * DynamoDB Local as the tests run it: its stream records indexed by the launcher (before, every write to
 * a table with a stream read all the stream records of the run so far), and the tables the tests make
 * (test/support/env.ts) without the definition's stream unless they ask for it, as a webhook stack
 * does for its relay.
 */
const client = localClient(inject('dynamoEndpoint'));
afterAll(() => client.destroy());
const stream = async (tableName: string) =>
  (await client.send(new DescribeTableCommand({ TableName: tableName }))).Table?.StreamSpecification ?? { StreamEnabled: false };

describe('the tests’ tables on DynamoDB Local', () => {
  it("DynamoDB Local's stream records are indexed (scripts/local/DynamoLocalLoopback.java: a write no longer reads them all)", () => {
    expect(inject('dynamoOutput')).toContain('DynamoLocalLoopback: stream records indexed');
    expect(inject('dynamoOutput')).not.toContain('not indexed');
  });

  it("the worker's table and a test's own table have no stream", async () => {
    expect((await stream(inject('tableName'))).StreamEnabled).toBe(false);
    const own = `own-${randomUUID().slice(0, 8)}`;
    expect(await ensureTable(inject('dynamoEndpoint'), own)).toBe('created');
    expect((await stream(own)).StreamEnabled).toBe(false);
  });

  it("a table that asks for one (a webhook stack's) has the definition's stream, as npm start's and AWS's", async () => {
    const relayed = `relayed-${randomUUID().slice(0, 8)}`;
    await ensureTable(inject('dynamoEndpoint'), relayed, { stream: true });
    expect(await stream(relayed)).toEqual({ StreamEnabled: true, StreamViewType: tableDefinition.streamView });
    expect(createTableInput('any', { stream: true }).StreamSpecification).toEqual({
      StreamEnabled: true,
      StreamViewType: tableDefinition.streamView,
    });
  });
});
