import { copyFileSync, mkdtempSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DynamoDBClient, GetItemCommand, UpdateItemCommand } from '@aws-sdk/client-dynamodb';
import { marshall } from '@aws-sdk/util-dynamodb';
import { describe, expect, it } from 'vitest';
import { hashApiKey } from '#shared/domain/credentials.ts';
import * as keys from '#shared/store/keys.ts';
import { Gateway } from '../../sdk/node/src/client.ts';
import { synthesize } from '../../scripts/rehearse/synth.ts';
import { opsAws, useRehearsal } from './support.ts';

/**
 * The rehearsal refuses what a role does not grant. It can fail (issue 23 point 4): the smoke's first step on a copy of the synthesized
 * templates from which one grant is removed (dynamodb:PutItem of the checkout function's role) is
 * refused by the IAM check, and the denial names the function, the action and the key. And least privilege is per
 * partition (issue 40): no function but the key-managing one (the dashboard's Developers area) may set an API key's
 * scopes, whatever else it writes; the key's last use is each API route's only write to a key.
 */
const functionPrefix = 'initiateCheckout';
const removed = 'dynamodb:PutItem';

function templatesWithoutGrant(): string {
  const cdkOut = synthesize();
  const dir = mkdtempSync(join(tmpdir(), 'rehearsal-templates-'));
  let edited = 0;
  for (const file of readdirSync(cdkOut).filter((f) => f.endsWith('.template.json'))) {
    const template = JSON.parse(readFileSync(join(cdkOut, file), 'utf8'));
    const resources = template.Resources as Record<string, { Type: string; Properties: any }>;
    const fn = Object.entries(resources).find(([id, r]) => r.Type === 'AWS::Lambda::Function' && id.startsWith(functionPrefix));
    if (fn) {
      const role = fn[1].Properties.Role['Fn::GetAtt'][0];
      for (const r of Object.values(resources)) {
        if (r.Type !== 'AWS::IAM::Policy' || !r.Properties.Roles.some((x: { Ref: string }) => x.Ref === role)) continue;
        for (const statement of r.Properties.PolicyDocument.Statement) {
          const actions = [statement.Action].flat();
          if (!actions.includes(removed)) continue;
          statement.Action = actions.filter((a: string) => a !== removed);
          edited++;
        }
      }
    }
    writeFileSync(join(dir, file), JSON.stringify(template));
  }
  if (!edited) throw new Error(`no ${removed} grant of ${functionPrefix} found`);
  copyFileSync(join(cdkOut, 'manifest.json'), join(dir, 'manifest.json'));
  return dir;
}

describe('deploy rehearsal: a missing grant fails the smoke', { timeout: 180_000 }, () => {
  const state = useRehearsal(templatesWithoutGrant);

  it('the checkout is refused, and the denial names function, action and key', async () => {
    const created = await opsAws(state.rehearsal, 'merchant', 'create', '--name', 'Denied Store');
    expect(created.json?.merchantId, created.stderr).toBeTruthy();
    const gateway = new Gateway({
      apiKey: created.json.test.apiKey,
      secretKey: created.json.test.secretKey,
      baseUrl: state.rehearsal.baseUrl,
      maxRetries: 0,
    });
    await expect(
      gateway.checkouts.create({ amount: 1500, currency: 'PKR', description: 'Blue shirt', orderRef: { orderRef: `ORDER${Date.now()}` } }),
    ).rejects.toMatchObject({ status: expect.any(Number) });
    expect(state.rehearsal.proxy.denials).toContainEqual({
      functionId: expect.stringMatching(new RegExp(`^${functionPrefix}`)),
      action: removed,
      resource: expect.stringMatching(/:table\//),
      keys: [expect.stringMatching(/^[A-Z_]+#/)],
    });
  });

  it('refuses SET scopes on an API key from every function but the key-managing ones', async () => {
    const created = await opsAws(state.rehearsal, 'merchant', 'create', '--name', 'Scoped Store');
    expect(created.json?.merchantId, created.stderr).toBeTruthy();
    const Key = marshall(keys.apiKey(hashApiKey(created.json.test.apiKey)));
    const clientOf = (env: Record<string, string | undefined>) =>
      new DynamoDBClient({
        endpoint: env.AWS_ENDPOINT_URL,
        region: env.AWS_REGION,
        credentials: {
          accessKeyId: env.AWS_ACCESS_KEY_ID!,
          secretAccessKey: env.AWS_SECRET_ACCESS_KEY!,
          sessionToken: env.AWS_SESSION_TOKEN,
        },
        maxAttempts: 1,
      });
    const operator = clientOf(state.rehearsal.operatorEnv);
    const tableName = [...state.rehearsal.functions.values()][0]!.spec.environment.TABLE_NAME!;
    const scopesNow = async () =>
      (await operator.send(new GetItemCommand({ TableName: tableName, Key, ConsistentRead: true }))).Item?.scopes;
    const before = await scopesNow();
    expect(before).toBeDefined();
    // What a compromised function would send; the condition never holds, so an allowed call changes nothing either.
    const escalate = new UpdateItemCommand({
      TableName: tableName,
      Key,
      UpdateExpression: 'SET scopes = :all',
      ConditionExpression: 'attribute_not_exists(PK)',
      ExpressionAttributeValues: { ':all': { L: [{ S: 'admin' }] } },
    });
    const outcomes = new Map<string, string>();
    for (const [id, fn] of state.rehearsal.functions) {
      const outcome = await clientOf(fn.spec.environment)
        .send(escalate)
        .then(
          () => 'updated',
          (error: Error) => error.name,
        );
      outcomes.set(id, /not authorized|AccessDenied/i.test(outcome) ? 'denied' : outcome);
    }
    const allowed = [...outcomes].filter(([, outcome]) => outcome !== 'denied');
    // Only the Developers area (create, roll, revoke keys) passes IAM; its call fails the condition.
    expect(allowed).toEqual([[expect.stringMatching(/^dashboardDevelopers/), 'ConditionalCheckFailedException']]);
    expect(outcomes.size).toBeGreaterThan(40);
    expect(state.rehearsal.proxy.denials).toContainEqual({
      functionId: expect.stringMatching(/^statementCsv/),
      action: 'dynamodb:UpdateItem',
      resource: expect.stringMatching(/:table\//),
      keys: [keys.apiKey(hashApiKey(created.json.test.apiKey)).PK],
    });
    expect(await scopesNow()).toEqual(before);
  });
});
