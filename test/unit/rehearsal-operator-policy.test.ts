import { describe, expect, it } from 'vitest';
import { RoleEvaluator } from '../../scripts/rehearse/iam.ts';
import { operatorPolicy } from '../../scripts/rehearse/operator.ts';
import { rehearsalAccount } from '../../scripts/rehearse/template.ts';

/**
 * The operator's least-privilege policy (docs/operator-policy.json, issue 42), filled from a stack's
 * outputs as docs/operator-guide.md says: what `ops --aws` does is allowed, administration of the
 * table, queues and secrets, the table's stream and the live providers' credentials are not.
 */
const region = 'eu-west-1';
const account = rehearsalAccount; // the evaluator's account (a resource of another account would need its resource policy)
const secret = (name: string) => `arn:aws:secretsmanager:${region}:${account}:secret:${name}-AbCdEf`;
const outputs = {
  TableName: 'PaymentGateway-TableCD117FA1-1ABC',
  QueueUrl: `https://sqs.${region}.amazonaws.com/${account}/PaymentGateway-WebhookQueue-XYZ`,
  DeadLetterQueueUrl: `https://sqs.${region}.amazonaws.com/${account}/PaymentGateway-WebhookDeadLetterQueue-XYZ`,
  SecretsMasterKeyArn: secret('MasterKey'),
  PublicPathsKeyArn: secret('PublicPathsKey'),
  DashboardTotpKeyArn: secret('TotpKey'),
};
const table = `arn:aws:dynamodb:${region}:${account}:table/${outputs.TableName}`;
const queue = `arn:aws:sqs:${region}:${account}:PaymentGateway-WebhookQueue-XYZ`;
const deadLetters = `arn:aws:sqs:${region}:${account}:PaymentGateway-WebhookDeadLetterQueue-XYZ`;
const operator = new RoleEvaluator(`arn:aws:iam::${account}:user/operator`, [
  { name: 'OperatorPolicy', policy: operatorPolicy(outputs, region, account) },
]);
const decide = (action: string, resource: string) => operator.decide({ action, resource, context: {}, keys: [] });

describe('the operator policy', () => {
  it.each([
    ['dynamodb:GetItem', table],
    ['dynamodb:PutItem', table],
    ['dynamodb:ConditionCheckItem', table],
    ['dynamodb:Query', `${table}/index/GSI1`],
    ['dynamodb:Scan', table],
    ['dynamodb:BatchGetItem', table],
    ['sqs:GetQueueAttributes', deadLetters],
    ['sqs:StartMessageMoveTask', deadLetters],
    ['sqs:SendMessage', queue],
    ['secretsmanager:GetSecretValue', outputs.SecretsMasterKeyArn],
    ['secretsmanager:GetSecretValue', outputs.DashboardTotpKeyArn],
  ])('allows %s on %s', (action, resource) => {
    expect(decide(action, resource)).toBe('Allowed');
  });

  it.each([
    ['dynamodb:DeleteTable', table],
    ['dynamodb:UpdateTable', table],
    ['dynamodb:GetItem', `arn:aws:dynamodb:${region}:${account}:table/AnotherTable`],
    ['dynamodb:GetRecords', `${table}/stream/2026-11-29T00:00:00.000`],
    ['sqs:PurgeQueue', queue],
    ['sqs:DeleteQueue', deadLetters],
    ['sqs:SetQueueAttributes', queue],
    ['secretsmanager:GetSecretValue', secret('LiveProviders')],
    ['secretsmanager:PutSecretValue', outputs.SecretsMasterKeyArn],
  ])('refuses %s on %s', (action, resource) => {
    expect(decide(action, resource)).toBe('ImplicitlyDenied');
  });

  it('refuses to be filled without the outputs it names', () => {
    const { QueueUrl: _, ...withoutQueue } = outputs;
    expect(() => operatorPolicy(withoutQueue, region, account)).toThrow(/\$\{WebhookQueueName\}/);
  });
});
