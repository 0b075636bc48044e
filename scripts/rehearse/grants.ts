import type { UseRecord } from './proxy.ts';

/**
 * Least privilege from observed use (the approach of IAM Access Analyzer's policy generation): each
 * role's grants as (function, action, resource, key pattern) rows, and the rows no recorded call
 * used. CloudWatch Logs and X-Ray grants are not compared: the Lambda runtime and the X-Ray daemon
 * use them, not the function's code, and no rehearsal call goes through them.
 */
export interface Grant {
  functionId: string;
  action: string;
  resource: string;
  /** The dynamodb:LeadingKeys pattern the statement confines it to, `*` when unconfined. */
  keyPattern: string;
}

type Statement = {
  Effect: string;
  Action: string | string[];
  Resource: string | string[];
  Condition?: Record<string, Record<string, unknown>>;
};
const list = <T>(v: T | T[] | undefined): T[] => (v === undefined ? [] : Array.isArray(v) ? v : [v]);
const notCompared = /^(logs|xray):/;

export function grantsOf(functionId: string, policies: { policy: unknown }[]): Grant[] {
  return policies.flatMap(({ policy }) =>
    list((policy as { Statement: Statement | Statement[] }).Statement)
      .filter((s) => s.Effect === 'Allow')
      .flatMap((s) => {
        // The families a statement confines to (StringLike, StringEquals); one that keeps some out (StringNotLike) is unconfined.
        const leading = Object.entries(s.Condition ?? {})
          .filter(([operator]) => !/Not/.test(operator))
          .flatMap(([, c]) => list(c['dynamodb:LeadingKeys'] as string[] | undefined));
        return list(s.Action)
          .filter((action) => !notCompared.test(action))
          .flatMap((action) =>
            list(s.Resource).flatMap((resource) =>
              (leading.length ? leading : ['*']).map((keyPattern) => ({ functionId, action, resource, keyPattern })),
            ),
          );
      }),
  );
}

const glob = (pattern: string) => new RegExp(`^${pattern.replace(/[.+?^${}()|[\]\\]/g, '\\$&').replaceAll('*', '.*')}$`);

export function used(grant: Grant, use: readonly UseRecord[]): boolean {
  const action = glob(grant.action);
  const resource = glob(grant.resource);
  const key = glob(grant.keyPattern);
  return use.some(
    (u) =>
      u.functionId === grant.functionId &&
      action.test(u.action) &&
      resource.test(u.resource) &&
      (grant.keyPattern === '*' || (u.keyPrefix !== '' && key.test(`${u.keyPrefix}x`))),
  );
}

/** A stable, readable name of a grant for the reviewed allowlist: logical ids without their hash, local names generic. */
export function grantLabel(grant: Grant): string {
  const unhash = (s: string) => s.replace(/([A-Za-z])[0-9A-F]{8}(?=\b|[-/_]|$)/g, '$1');
  const resource = unhash(grant.resource.replace(/^arn:aws:[a-z]+:[^:]*:[0-9]*:/, '').replace(/\/stream\/.*$/, '/stream/*'));
  return `${unhash(grant.functionId)} ${grant.action} ${resource} ${grant.keyPattern}`;
}
