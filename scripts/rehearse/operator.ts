import { readFileSync } from 'node:fs';
import { join } from 'node:path';

/**
 * The operator's IAM policy (docs/operator-policy.json, docs/operator-guide.md "The operator's IAM
 * policy"): least privilege for `npm run ops -- --aws`. Its `${…}` placeholders are filled from
 * the stack outputs `cdk deploy --outputs-file` writes, the region and the account, as an operator
 * fills them before attaching it to the IAM user or role they run `ops --aws` with; the rehearsal
 * evaluates every operator call against it.
 */
export const operatorPolicyFile = join(import.meta.dirname, '..', '..', 'docs', 'operator-policy.json');

const lastSegment = (url: string | undefined) => (url ? url.split('/').filter(Boolean).pop() : undefined);

export function operatorPolicy(outputs: Record<string, string>, region: string, account: string, file = operatorPolicyFile): unknown {
  const values: Record<string, string | undefined> = {
    Region: region,
    Account: account,
    TableName: outputs.TableName,
    WebhookQueueName: lastSegment(outputs.QueueUrl),
    DeadLetterQueueName: lastSegment(outputs.DeadLetterQueueUrl),
    SecretsMasterKeyArn: outputs.SecretsMasterKeyArn,
    PublicPathsKeyArn: outputs.PublicPathsKeyArn,
    DashboardTotpKeyArn: outputs.DashboardTotpKeyArn,
  };
  const text = readFileSync(file, 'utf8').replace(/\$\{(\w+)\}/g, (whole, name: string) => {
    const value = values[name];
    if (!value) throw new Error(`${file}: no value for ${whole} (stack output or region/account missing)`);
    return value;
  });
  return JSON.parse(text);
}
