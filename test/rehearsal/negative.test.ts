import { copyFileSync, mkdtempSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { Gateway } from '../../sdk/node/src/client.ts';
import { synthesize } from '../../scripts/rehearse/synth.ts';
import { opsAws, useRehearsal } from './support.ts';

/**
 * The rehearsal can fail (issue 23 point 4): the smoke's first step on a copy of the synthesized
 * templates from which one grant is removed (dynamodb:PutItem of the checkout function's role) is
 * refused by the IAM check, and the denial names the function, the action and the key.
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
});
