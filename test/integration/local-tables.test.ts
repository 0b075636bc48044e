import { randomUUID } from 'node:crypto';
import { DescribeTableCommand } from '@aws-sdk/client-dynamodb';
import { afterAll, describe, expect, inject, it } from 'vitest';
import { tableDefinition } from '#shared/store/table.ts';
import { createTableInput, ensureTable, localClient } from '../../scripts/local/dynamo.ts';

/**
 * The tables the tests make on DynamoDB Local (test/support/env.ts): without the definition's stream
 * unless they ask for it, as a webhook stack does for its relay. DynamoDB Local reads a table's stream
 * on every write to it, so the worker's table, written by every file the worker runs, made each write
 * dearer as the run went on (scripts/local/dynamo.ts, `localTables`).
 */
const client = localClient(inject('dynamoEndpoint'));
afterAll(() => client.destroy());
const stream = async (tableName: string) =>
  (await client.send(new DescribeTableCommand({ TableName: tableName }))).Table?.StreamSpecification ?? { StreamEnabled: false };

describe('the tests’ tables on DynamoDB Local', () => {
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
