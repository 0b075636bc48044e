import { copyFileSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DeleteTableCommand, DescribeTableCommand, DynamoDBClient, GetItemCommand } from '@aws-sdk/client-dynamodb';
import { GetQueueAttributesCommand, SendMessageCommand, SQSClient } from '@aws-sdk/client-sqs';
import { describe, expect, it } from 'vitest';
import type { Rehearsal } from '../../scripts/rehearse/rehearsal.ts';
import { rehearsalLiveProvidersArn, rehearsalRegion } from '../../scripts/rehearse/template.ts';
import { opsAwsWith } from './support.ts';

/**
 * The rehearsal's AWS endpoint as AWS would hold it (issue 42), with planted calls run after the
 * smoke (whose own check wants no denial at all): a call signed with another identity's secret is
 * refused before anything is evaluated; the operator's calls are evaluated against
 * docs/operator-policy.json, and an over-reach (a table deleted, an `ops --aws` command pointed at a
 * secret outside the policy) fails with AWS's own AccessDeniedException; DynamoDB Local and the
 * queues are reached only through the evaluator.
 */
export function describeGuards(state: { rehearsal: Rehearsal }) {
  const credentialsOf = (prefix: string) => {
    const id = [...state.rehearsal.functions.keys()].find((f) => f.startsWith(prefix));
    const env = state.rehearsal.functions.get(id!)!.spec.environment;
    return { accessKeyId: env.AWS_ACCESS_KEY_ID!, secretAccessKey: env.AWS_SECRET_ACCESS_KEY!, sessionToken: env.AWS_SESSION_TOKEN! };
  };
  const outputs = () => Object.values(JSON.parse(readFileSync(state.rehearsal.outputsFile, 'utf8')))[0] as Record<string, string>;
  const operator = () => ({
    accessKeyId: state.rehearsal.operatorEnv.AWS_ACCESS_KEY_ID!,
    secretAccessKey: state.rehearsal.operatorEnv.AWS_SECRET_ACCESS_KEY!,
  });
  const dynamo = (
    credentials: { accessKeyId: string; secretAccessKey: string; sessionToken?: string },
    endpoint = state.rehearsal.proxy.endpoint,
  ) => new DynamoDBClient({ endpoint, region: rehearsalRegion, credentials, maxAttempts: 1 });

  describe('deploy rehearsal: the AWS endpoint’s guards (planted calls)', { timeout: 120_000 }, () => {
    it('a call claiming one function’s identity, signed with another’s secret, is refused before it is evaluated or served', async () => {
      const own = credentialsOf('queryBalance');
      const other = credentialsOf('initiateCheckout');
      const before = { use: state.rehearsal.proxy.use.size, denials: state.rehearsal.proxy.denials.length };
      const posing = { ...own, secretAccessKey: other.secretAccessKey };
      await expect(
        dynamo(posing).send(new GetItemCommand({ TableName: outputs().TableName, Key: { PK: { S: 'MERCHANT#planted' }, SK: { S: 'X' } } })),
      ).rejects.toMatchObject({ name: 'InvalidSignatureException' });
      const sqs = new SQSClient({ endpoint: state.rehearsal.proxy.endpoint, region: rehearsalRegion, credentials: posing, maxAttempts: 1 });
      await expect(sqs.send(new SendMessageCommand({ QueueUrl: outputs().QueueUrl, MessageBody: '{}' }))).rejects.toMatchObject({
        $metadata: { httpStatusCode: 403 },
      });
      expect(state.rehearsal.proxy.refused).toEqual(
        expect.arrayContaining([
          { accessKeyId: own.accessKeyId, target: 'DynamoDB_20120810.GetItem', code: 'InvalidSignatureException' },
          { accessKeyId: own.accessKeyId, target: 'AmazonSQS.SendMessage', code: 'InvalidSignatureException' },
        ]),
      );
      expect({ use: state.rehearsal.proxy.use.size, denials: state.rehearsal.proxy.denials.length }).toEqual(before);
    });

    it('the operator’s calls were evaluated against the operator policy, and an over-reach fails with AWS’s own error', async () => {
      const operatorUse = [...state.rehearsal.proxy.use.values()].filter((u) => u.functionId === 'operator').map((u) => u.action);
      expect(operatorUse).toEqual(expect.arrayContaining(['dynamodb:PutItem', 'dynamodb:GetItem', 'secretsmanager:GetSecretValue']));
      const user = 'User: arn:aws:iam::000000000000:user/operator is not authorized to perform:';
      await expect(dynamo(operator()).send(new DeleteTableCommand({ TableName: outputs().TableName }))).rejects.toMatchObject({
        name: 'AccessDeniedException',
        message: expect.stringContaining(`${user} dynamodb:DeleteTable`),
      });
      // `ops --aws` pointed at a secret outside the policy (the live providers' credentials) as its sealing key.
      const dir = mkdtempSync(join(tmpdir(), 'rehearsal-outputs-'));
      const planted = join(dir, 'cdk-outputs.json');
      copyFileSync(state.rehearsal.outputsFile, planted);
      const file = JSON.parse(readFileSync(planted, 'utf8'));
      for (const stack of Object.values<Record<string, string>>(file)) stack.SecretsMasterKeyArn = rehearsalLiveProvidersArn;
      writeFileSync(planted, JSON.stringify(file));
      const refused = await opsAwsWith(state.rehearsal, planted, 'merchant', 'create', '--name', 'Over-reach Store');
      expect(refused.code, refused.stdout + refused.stderr).not.toBe(0);
      expect(refused.json?.error ?? refused.stderr).toContain(
        `${user} secretsmanager:GetSecretValue on resource: ${rehearsalLiveProvidersArn}`,
      );
      expect(state.rehearsal.proxy.denials).toEqual([
        expect.objectContaining({ functionId: 'operator', action: 'dynamodb:DeleteTable' }),
        expect.objectContaining({ functionId: 'operator', action: 'secretsmanager:GetSecretValue', resource: rehearsalLiveProvidersArn }),
      ]);
    });

    it('DynamoDB Local and the queues are reached only through the evaluator', async () => {
      const dynamoHost = new URL(state.rehearsal.dynamoLocalEndpoint).host;
      for (const [id, fn] of state.rehearsal.functions) {
        const env = fn.spec.environment;
        expect(
          Object.values(env).filter((v) => v.includes(dynamoHost)),
          id,
        ).toEqual([]);
        expect(env.AWS_ENDPOINT_URL, id).toBe(state.rehearsal.proxy.endpoint);
        for (const [name, value] of Object.entries(env).filter(([k]) => k.endsWith('QUEUE_URL'))) {
          expect(value.startsWith(`${state.rehearsal.proxy.endpoint}/`), `${id} ${name}`).toBe(true);
        }
      }
      // Straight to DynamoDB Local with a function's own credentials: its database has no table (only the proxy's key has it).
      const bypass = dynamo(credentialsOf('queryBalance'), state.rehearsal.dynamoLocalEndpoint);
      await expect(bypass.send(new DescribeTableCommand({ TableName: outputs().TableName }))).rejects.toMatchObject({
        name: 'ResourceNotFoundException',
      });
      // The queues have no port of their own: the proxy serves them, to a caller its policy allows.
      const sqs = new SQSClient({
        endpoint: state.rehearsal.proxy.endpoint,
        region: rehearsalRegion,
        credentials: operator(),
        maxAttempts: 1,
      });
      const attributes = await sqs.send(new GetQueueAttributesCommand({ QueueUrl: outputs().QueueUrl, AttributeNames: ['QueueArn'] }));
      expect(attributes.Attributes?.QueueArn).toMatch(/^arn:aws:sqs:/);
    });
  });
}
