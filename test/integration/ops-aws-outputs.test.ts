import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Template } from 'aws-cdk-lib/assertions';
import { afterAll, describe, expect, inject, it } from 'vitest';
import { PaymentGatewayStack } from '#infra/gateway-stack.ts';
import { useOps } from '../support/ops.ts';
import { testApp } from '../support/cdk-app.ts';

/**
 * `npm run ops -- --aws --outputs cdk-outputs.json` (issue 23): the table, queues, secrets and the
 * public base URL come from the file `cdk deploy --outputs-file` writes, here built from the
 * synthesized stack's own outputs, pointed at DynamoDB Local. Invite links carry the deployed host,
 * and without it the CLI refuses rather than print a localhost link.
 */
const deployedBaseUrl = 'https://abc123.execute-api.eu-west-1.amazonaws.com/prod';
const dir = mkdtempSync(join(tmpdir(), 'ops-outputs-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const outputs = Template.fromStack(new PaymentGatewayStack(testApp(), 'PaymentGateway')).toJSON().Outputs as Record<string, unknown>;

/** The outputs file of a deployment of the synthesized stack, its values standing in for AWS's. */
function outputsFile(name: string, without: string[] = []): string {
  const values: Record<string, string> = {
    TableName: inject('tableName'),
    PublicBaseUrl: deployedBaseUrl,
    ApiUrl: `${deployedBaseUrl}/`,
    SecretsMasterKeyArn: 'arn:aws:secretsmanager:eu-west-1:111122223333:secret:master-AbCdEf',
  };
  const file = join(dir, name);
  const written = Object.fromEntries(
    Object.keys(outputs)
      .filter((key) => !without.includes(key))
      .map((key) => [key, values[key] ?? `arn:aws:local:${key}`]),
  );
  writeFileSync(file, JSON.stringify({ PaymentGateway: written }));
  return file;
}

// An operator's shell: AWS credentials, no PUBLIC_BASE_URL; DynamoDB Local stands in for the table's endpoint.
const local = useOps();
const aws = useOps(
  () => 'not-the-table',
  () => ({
    PUBLIC_BASE_URL: '',
    DYNAMODB_ENDPOINT: inject('dynamoEndpoint'),
    AWS_ACCESS_KEY_ID: 'local',
    AWS_SECRET_ACCESS_KEY: 'local',
  }),
);

describe('ops --aws --outputs', { timeout: 120_000 }, () => {
  it('exports every output the CLI reads, the public base URL included', () => {
    expect(Object.keys(outputs)).toEqual(
      expect.arrayContaining([
        'TableName',
        'QueueUrl',
        'DeadLetterQueueUrl',
        'SecretsMasterKeyArn',
        'DashboardTotpKeyArn',
        'PublicBaseUrl',
      ]),
    );
  });

  it('invites a dashboard user with a link on the deployed host, from the outputs alone', async () => {
    const merchant = await local('merchant', 'create', '--name', 'Outputs Co', '--json');
    expect(merchant.json?.merchantId).toBeTruthy();
    const r = await aws(
      '--aws',
      '--outputs',
      outputsFile('cdk-outputs.json'),
      'user',
      'invite',
      '--merchant',
      merchant.json.merchantId,
      '--email',
      'ops-outputs@example.com',
      '--role',
      'admin',
      '--json',
    );
    expect('failed' in r).toBe(false);
    expect(r.json.inviteUrl.startsWith(`${deployedBaseUrl}/dashboard/`)).toBe(true);
  });

  it('refuses to print a localhost link when the deployed base URL is unknown, and invites no one', async () => {
    const merchant = await local('merchant', 'create', '--name', 'No Host Co', '--json');
    const invite = (file: string) =>
      aws(
        '--aws',
        '--outputs',
        file,
        'user',
        'invite',
        '--merchant',
        merchant.json.merchantId,
        '--email',
        'nohost@example.com',
        '--role',
        'admin',
      );
    const refused = await invite(outputsFile('no-base-url.json', ['PublicBaseUrl']));
    expect('failed' in refused && refused.failed).toBe(true);
    expect(refused.stderr).toMatch(/public base URL is unknown.*Refusing to print a localhost link/s);
    expect(refused.stdout).not.toMatch(/localhost/);
    // Nothing was written: the same address can be invited once the URL is known.
    const later = await invite(outputsFile('with-base-url.json'));
    expect(later.stdout).toContain(`${deployedBaseUrl}/dashboard/`);
  });
});
