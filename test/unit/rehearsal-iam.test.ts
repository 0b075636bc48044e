import { describe, expect, it } from 'vitest';
import { matchesPattern } from '../../scripts/rehearse/filter.ts';
import { grantLabel, grantsOf, used } from '../../scripts/rehearse/grants.ts';
import { dynamoAuthorizations, expressionAttributes, RoleEvaluator, sqsAuthorizations } from '../../scripts/rehearse/iam.ts';

/** The deploy rehearsal's IAM check (scripts/rehearse/iam.ts): what AWS authorizes for a call, and the decision. */
const region = 'us-east-1';
const table = 'arn:aws:dynamodb:us-east-1:000000000000:table/T';
const schema = { T: { partitionKey: 'PK', indexes: { GSI1: 'GSI1PK' } } };
const s = (v: string) => ({ S: v });

describe('rehearsal IAM check', () => {
  it('names the top-level attributes of expressions, through ExpressionAttributeNames', () => {
    expect(expressionAttributes('SET #u = :t, a.b = :x REMOVE c[0]', { '#u': 'lastUsedAt' })).toEqual(['lastUsedAt', 'a', 'c']);
    expect(expressionAttributes('attribute_exists(PK) AND (attribute_not_exists(#u) OR #u < :cut)', { '#u': 'lastUsedAt' })).toEqual([
      'PK',
      'lastUsedAt',
      'lastUsedAt',
    ]);
  });

  it('authorizes a transaction item by item, each with its partition key', () => {
    const auth = dynamoAuthorizations(
      'TransactWriteItems',
      {
        TransactItems: [
          { Put: { TableName: 'T', Item: { PK: s('MERCHANT#1'), SK: s('X') } } },
          { ConditionCheck: { TableName: 'T', Key: { PK: s('IDEM#2'), SK: s('Y') }, ConditionExpression: 'attribute_not_exists(PK)' } },
        ],
      },
      schema,
      region,
    );
    expect(auth.map((a) => [a.action, a.resource, a.keys])).toEqual([
      ['dynamodb:PutItem', table, ['MERCHANT#1']],
      ['dynamodb:ConditionCheckItem', table, ['IDEM#2']],
    ]);
  });

  it('takes a query’s partition key from its key condition, on the index it names', () => {
    const [a] = dynamoAuthorizations(
      'Query',
      {
        TableName: 'T',
        IndexName: 'GSI1',
        KeyConditionExpression: '#p = :p AND begins_with(GSI1SK, :s)',
        ExpressionAttributeNames: { '#p': 'GSI1PK' },
        ExpressionAttributeValues: { ':p': s('MERCH#9'), ':s': s('a') },
      },
      schema,
      region,
    );
    expect(a).toMatchObject({ action: 'dynamodb:Query', resource: `${table}/index/GSI1`, keys: ['MERCH#9'] });
    expect(sqsAuthorizations('SendMessageBatch', { QueueUrl: 'http://127.0.0.1:1/000000000000/Q' }, region)[0]).toMatchObject({
      action: 'sqs:SendMessage',
      resource: 'arn:aws:sqs:us-east-1:000000000000:Q',
    });
  });

  it('allows the key last-used update only on API-key items, naming lastUsedAt only, returning nothing', () => {
    const role = new RoleEvaluator('arn:aws:iam::000000000000:role/r', [
      {
        name: 'p',
        policy: {
          Version: '2012-10-17',
          Statement: [
            {
              Effect: 'Allow',
              Action: 'dynamodb:UpdateItem',
              Resource: table,
              Condition: {
                'ForAllValues:StringLike': { 'dynamodb:LeadingKeys': ['APIKEY#*'] },
                'ForAllValues:StringEquals': { 'dynamodb:Attributes': ['PK', 'SK', 'lastUsedAt'] },
                StringEqualsIfExists: { 'dynamodb:ReturnValues': 'NONE' },
              },
            },
          ],
        },
      },
    ]);
    const update = (pk: string, expression: string, extra: Record<string, unknown> = {}) =>
      role.decide(
        dynamoAuthorizations(
          'UpdateItem',
          { TableName: 'T', Key: { PK: s(pk), SK: s('KEY') }, UpdateExpression: expression, ...extra },
          schema,
          region,
        )[0]!,
      );
    expect(update('APIKEY#h', 'SET lastUsedAt = :t')).toBe('Allowed');
    expect(update('MERCHANT#1', 'SET lastUsedAt = :t')).toBe('ImplicitlyDenied');
    expect(update('APIKEY#h', 'SET scopes = :t')).toBe('ImplicitlyDenied');
    expect(update('APIKEY#h', 'SET lastUsedAt = :t', { ReturnValues: 'ALL_NEW' })).toBe('ImplicitlyDenied');
  });

  it('matches stream filter patterns; lists grants and finds the unused ones', () => {
    const pattern = { eventName: ['INSERT'], dynamodb: { NewImage: { entity: { S: ['OutboxEvent'] } } } };
    expect(matchesPattern(pattern, { eventName: 'INSERT', dynamodb: { NewImage: { entity: { S: 'OutboxEvent' } } } })).toBe(true);
    expect(matchesPattern(pattern, { eventName: 'MODIFY', dynamodb: { NewImage: { entity: { S: 'OutboxEvent' } } } })).toBe(false);
    const grants = grantsOf('fnAB12CD34', [
      {
        policy: {
          Statement: [
            {
              Effect: 'Allow',
              Action: ['dynamodb:GetItem', 'logs:PutLogEvents'],
              Resource: table,
              Condition: { 'ForAllValues:StringLike': { 'dynamodb:LeadingKeys': ['PAY#*', 'MERCHANT#*'] } },
            },
          ],
        },
      },
    ]);
    expect(grants.map(grantLabel)).toEqual(['fn dynamodb:GetItem table/T PAY#*', 'fn dynamodb:GetItem table/T MERCHANT#*']);
    const use = [{ functionId: 'fnAB12CD34', action: 'dynamodb:GetItem', resource: table, keyPrefix: 'PAY#' }];
    expect(grants.filter((g) => !used(g, use)).map(grantLabel)).toEqual(['fn dynamodb:GetItem table/T MERCHANT#*']);
  });
});
