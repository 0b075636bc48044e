import { randomUUID } from 'node:crypto';
import { CreateTableCommand, DescribeTableCommand, UpdateItemCommand } from '@aws-sdk/client-dynamodb';
import { afterAll, describe, expect, inject, it } from 'vitest';
import { backfillIntentIndex, pageIntents } from '#shared/store/intents.ts';
import * as keys from '#shared/store/keys.ts';
import { toItem } from '#shared/store/client.ts';
import { createTableInput, ensureTable, localClient } from '../../scripts/local/dynamo.ts';
import { seedIntent } from '../support/intents.ts';

/** A table made before GSI3 gets it from ensureTable; `ops migrate-transaction-index` backfills the keys. */
// Runs in `npm run test:deep`: adding an index on the suite's shared DynamoDB Local stalled past 120 s under full `npm test` load.
describe.runIf(process.env.DEEP_TESTS === '1')('transaction index migration', () => {
  const previous = process.env.TABLE_NAME;
  afterAll(() => {
    process.env.TABLE_NAME = previous;
  });

  it('adds the missing index to an old table and backfills intents that lack its keys', async () => {
    const endpoint = inject('dynamoEndpoint');
    const tableName = `old-${randomUUID().slice(0, 8)}`;
    const client = localClient(endpoint);
    const input = createTableInput(tableName);
    await client.send(
      new CreateTableCommand({
        ...input,
        AttributeDefinitions: input.AttributeDefinitions!.filter((a) => !a.AttributeName!.startsWith('GSI3')),
        GlobalSecondaryIndexes: input.GlobalSecondaryIndexes!.filter((g) => g.IndexName !== 'GSI3'),
      }),
    );
    process.env.TABLE_NAME = tableName;
    const merchantId = randomUUID();
    const old = await seedIntent(merchantId, 'test');
    // As written before the index existed: no GSI3 keys.
    await client.send(
      new UpdateItemCommand({
        TableName: tableName,
        Key: toItem(keys.intent(old.paymentIntentId)),
        UpdateExpression: 'REMOVE GSI3PK, GSI3SK',
      }),
    );

    expect(await ensureTable(endpoint, tableName)).toBe('exists');
    const { Table } = await client.send(new DescribeTableCommand({ TableName: tableName }));
    expect(Table?.GlobalSecondaryIndexes?.map((g) => g.IndexName).sort()).toEqual(['GSI1', 'GSI2', 'GSI3']);
    expect((await pageIntents(merchantId, 'test', { status: 'Pending', limit: 10 })).items).toEqual([]);

    expect(await backfillIntentIndex()).toBe(1);
    expect((await pageIntents(merchantId, 'test', { status: 'Pending', limit: 10 })).items.map((i) => i.paymentIntentId)).toEqual([
      old.paymentIntentId,
    ]);
    expect(await backfillIntentIndex()).toBe(0); // re-running changes nothing
    client.destroy();
  }, 120_000); // UpdateTable on DynamoDB Local is slow when the whole suite shares it
});
