import { type CfnResource, Stack } from 'aws-cdk-lib';
import { beforeAll, describe, expect, it } from 'vitest';
import { jobList } from '#functions/jobs.ts';
import { lambdaGroups, type Route, routeList, type SecretName } from '#functions/routes.ts';
import { PaymentGatewayStack } from '#infra/gateway-stack.ts';
import type { GatewayFunction } from '#infra/gateway-function.ts';
import { indexPartitions } from '#shared/store/keys.ts';
import { lambdaEntries } from '../../bench/bundles.ts';
import { type CodeNeeds, codeNeeds, type QueueName } from '../support/code-needs.ts';
import { type Resources, wholeTemplate } from '../support/templates.ts';
import { testApp } from '../support/cdk-app.ts';

/**
 * Every call a function's code makes is granted, and nothing else is (issue 23). Each Lambda's
 * bundle (test/support/code-needs.ts) names the DynamoDB actions, queue sends and secrets its
 * code can reach; the synthesized roles (root and nested stacks, with a live providers secret
 * configured) must grant each of them, and grant no table action, queue send or secret the code
 * never reaches. Reachable code a function's requests never run is excused only by a line of
 * `reviewed` below, naming the modules and the reason; a stale line fails too.
 */
const liveArn = 'arn:aws:secretsmanager:us-east-1:111122223333:secret:gateway/live-providers-AbCdEf';
const stack = new PaymentGatewayStack(testApp({ liveProvidersSecretArn: liveArn }), 'Grants');
const resources: Resources = wholeTemplate(stack).toJSON().Resources;

const logicalId = (construct: { node: { defaultChild?: unknown } } & { node: unknown }) => {
  const owner = Stack.of(construct as never);
  return owner.resolve(owner.getLogicalId((construct as { node: { defaultChild: CfnResource } }).node.defaultChild)) as string;
};
type Statement = { Action: string | string[]; Resource: unknown; Condition?: unknown };
function statementsOf(fn: GatewayFunction): Statement[] {
  const roleId = logicalId(fn.role as never);
  return Object.values(resources)
    .filter((r) => r.Type === 'AWS::IAM::Policy' && r.Properties.Roles.some((x: { Ref?: string }) => x.Ref === roleId))
    .flatMap((p) => p.Properties.PolicyDocument.Statement as Statement[]);
}
const actions = (s: Statement) => [s.Action].flat();
type Conditions = Record<string, Record<string, unknown>>;
/** The dynamodb:LeadingKeys patterns under a statement's condition operator (undefined: none). */
const leading = (s: Statement, operator: string) =>
  (s.Condition as Conditions | undefined)?.[operator]?.['dynamodb:LeadingKeys'] as string[] | undefined;
/** The one family a narrowed attribute update (dynamodb:Attributes) is confined to, if the statement is one. */
function narrowedTo(s: Statement): string | undefined {
  const attributes = (s.Condition as Conditions | undefined)?.['ForAllValues:StringEquals']?.['dynamodb:Attributes'];
  const only = leading(s, 'ForAllValues:StringLike');
  return attributes && only?.length === 1 ? only[0] : undefined;
}
/** The bookkeeping statements: a key's last use, a session's idle clock (infra/route-stack.ts keyUsePolicy, sessionClockPolicy). */
const bookkeeping = (s: Statement) => narrowedTo(s) === 'APIKEY#*' || narrowedTo(s) === 'DASHSESSION#*';
const targets = (s: Statement) => [s.Resource].flat().map((r) => JSON.stringify(r));
const onIndexes = (s: Statement) => targets(s).some((t) => t.includes('/index/*'));

const tableArn = JSON.stringify({ 'Fn::GetAtt': [logicalId(stack.table), 'Arn'] });
const queueArns: Record<QueueName, string> = {
  webhookQueue: JSON.stringify({ 'Fn::GetAtt': [logicalId(stack.webhookQueue), 'Arn'] }),
  deadLetterQueue: JSON.stringify({ 'Fn::GetAtt': [logicalId(stack.deadLetterQueue), 'Arn'] }),
};
const secretArns: Record<SecretName, string> = {
  masterKey: JSON.stringify({ Ref: logicalId(stack.masterKey) }),
  publicPathsKey: JSON.stringify({ Ref: logicalId(stack.publicPathsKey) }),
  totpKey: JSON.stringify({ Ref: logicalId(stack.totpKey) }),
  liveProviders: JSON.stringify(liveArn),
};

/** What a role grants: table actions, whether on the indexes, queue actions and secrets. */
function grantsOf(fn: GatewayFunction) {
  const statements = statementsOf(fn);
  // On the table, or on its indexes (an Fn::Join of the table's ARN and `/index/*`).
  // The key last-used statement (APIKEY# items, lastUsedAt only) and the session clock's (DASHSESSION# items, its idle
  // clock and mode only) grant no general UpdateItem: left out here, so a function whose code updates anything else
  // fails (reviewed below names recordKeyUse's and updateSession's modules) unless its row grants that update
  // (readWrite, or attributeUpdates: its own statement, confined to items and attributes).
  const onTable = statements.filter((s) => !bookkeeping(s) && targets(s).some((t) => t.includes(tableArn.slice(0, -1))));
  return {
    dynamodb: new Set(onTable.flatMap(actions).filter((a) => a.startsWith('dynamodb:'))),
    keyUse: statements.some((s) => narrowedTo(s) === 'APIKEY#*'),
    sessionClock: statements.some((s) => narrowedTo(s) === 'DASHSESSION#*'),
    // Each table action with the partition families it is confined to (dynamodb:LeadingKeys) or kept from.
    partitions: statements
      .filter((s) => targets(s).some((t) => t.includes(tableArn.slice(0, -1))) && !onIndexes(s))
      .flatMap((s) =>
        actions(s)
          .filter((a) => a.startsWith('dynamodb:'))
          .map((action) => ({
            action,
            only: leading(s, 'ForAllValues:StringLike'),
            except: leading(s, 'ForAllValues:StringNotLike'),
            bookkeeping: bookkeeping(s),
          })),
      ),
    indexes: onTable.some(onIndexes),
    // The index Query statements' dynamodb:LeadingKeys patterns (undefined: a statement not confined).
    indexPartitions: statements.filter(onIndexes).map((s) => leading(s, 'ForAllValues:StringLike')),
    queue: (queue: QueueName) =>
      new Set(
        statements
          .filter((s) => targets(s).includes(queueArns[queue]))
          .flatMap(actions)
          .filter((a) => a.startsWith('sqs:')),
      ),
    secrets: new Set(
      (Object.keys(secretArns) as SecretName[]).filter((name) =>
        statements.some((s) => actions(s).includes('secretsmanager:GetSecretValue') && targets(s).includes(secretArns[name])),
      ),
    ),
    statements,
  };
}

/** The route rows of a Lambda (a group's rows, or the one row), none for a job. */
const rowsOf = (id: string): Route[] => routeList.filter((r) => (r.lambda ?? r.id) === id);
const isReadRoute = (id: string) => rowsOf(id).length > 0 && rowsOf(id).every((r) => r.permissions.table === 'read');
const unsigned = (id: string) => rowsOf(id).length > 0 && rowsOf(id).every((r) => r.signature === false);

/**
 * Calls a function's bundle can reach but its requests never make, one reason each. `need` is an
 * IAM action or a secret; the excuse holds only if every module needing it is listed.
 */
const reviewed: { applies: (id: string) => boolean; need: string; modules: string[]; reason: string }[] = [
  {
    applies: (id) => id === 'openApiDocument',
    need: '*',
    modules: ['*'],
    reason: 'imports every handler for its zod schemas (shared/openapi/document.ts) and runs none of them',
  },
  {
    applies: isReadRoute,
    need: 'dynamodb:PutItem',
    modules: ['shared/store/idempotency.ts'],
    reason: 'the idempotency middleware writes only on POST; every read-only row is a GET',
  },
  {
    applies: isReadRoute,
    need: 'dynamodb:UpdateItem',
    modules: ['shared/store/idempotency.ts'],
    reason: 'the idempotency middleware writes only on POST; every read-only row is a GET',
  },
  {
    applies: isReadRoute,
    need: 'dynamodb:PutItem',
    modules: ['shared/store/sandbox-receipts.ts'],
    reason: 'the sandbox rails record a receipt when a settlement or refund is processed (due sweeper, dashboard); reads only view',
  },
  {
    applies: (id) => !needs.get(id)!.placesHolds,
    need: 'dynamodb:BatchGetItem',
    modules: ['shared/store/wallets.ts'],
    reason: "withFunds' read of a sharded wallet to place a hold (commitRequest runs every change through it): no module places one",
  },
  {
    applies: (id) => grantsOf(functionOf(id)).keyUse,
    need: 'dynamodb:UpdateItem',
    modules: ['shared/store/merchants.ts'],
    reason: 'the key last-used update (recordKeyUse): its own statement, API-key items and lastUsedAt only (infra keyUsePolicy)',
  },
  {
    applies: (id) => grantsOf(functionOf(id)).sessionClock,
    need: 'dynamodb:UpdateItem',
    modules: ['shared/store/dashboard.ts'],
    reason: "the session's idle clock and mode (updateSession): its own statement, session items and those attributes (sessionClockPolicy)",
  },
  {
    applies: (id) => ['dashboardPayments', 'dashboardBalance', 'dashboardExports'].includes(id),
    need: 'dynamodb:UpdateItem',
    modules: ['shared/store/money-due.ts'],
    reason:
      "the settlement and refund services' change steps (shared/services/money-items.ts), built when their modules load: " +
      'these areas only read settlements and refunds (Home, payment detail, balance, lists, exports)',
  },
  {
    applies: unsigned,
    need: 'masterKey',
    modules: ['shared/http/middlewares.ts'],
    reason: "the body-signature check (validateAndVerify) unseals the merchant's secret only for rows with signature",
  },
  {
    applies: (id) => id === 'deposit' || id === 'dueSweeper',
    need: 'publicPathsKey',
    modules: ['shared/providers/wallet-sandbox.ts'],
    reason: "the sandbox wallet adapter's parseCallback; only the provider-callback route parses callbacks",
  },
];
/** Rows confined to partition families (routes.ts `partitions`): the unauthenticated functions. */
const confined = (id: string) => rowsOf(id).some((r) => r.permissions.partitions);
/** Families a confined function's bundle builds keys of but its requests never touch (`read <prefix>`, keys.ts). */
reviewed.push(
  ...['REFUND#', 'SETTLEMENT#'].map((prefix) => ({
    applies: confined,
    need: `read ${prefix}`,
    modules: ['shared/store/keys.ts'],
    reason: "keys.eventHome builds an event's home for any subject; a hosted page's or callback's events are its checkout's (TXN#)",
  })),
  ...['APIKEY#', 'IDEM#'].map((prefix) => ({
    applies: (id: string) => confined(id) && rowsOf(id).every((r) => r.auth === 'none'),
    need: `read ${prefix}`,
    modules: ['shared/store/keys.ts'],
    reason: 'the pipeline checks an API key and claims an Idempotency-Key for `auth: apiKey` rows only (shared/http/middlewares.ts)',
  })),
  {
    applies: (id: string) => id === 'deposit',
    need: 'read PAYLINK#',
    modules: ['shared/store/keys.ts'],
    reason: "an intent's status change counts a link's use (linkUseWrites) only for a checkout opened from a link; no deposit is",
  },
);
const excused = (id: string, need: string, modules: Iterable<string>) =>
  [...modules].every((module) =>
    reviewed.some((r) => r.applies(id) && (r.need === '*' || r.need === need) && (r.modules.includes('*') || r.modules.includes(module))),
  );

let needs: Map<string, CodeNeeds>;
beforeAll(async () => {
  needs = await codeNeeds();
}, 300_000);

const lambdas = lambdaEntries().map((e) => e.id);
const functionOf = (id: string) => stack.functions.get(rowsOf(id)[0]?.id ?? id)!;

describe('every call a function’s code makes is granted, and nothing else', () => {
  it('covers every Lambda of the stack', () => {
    expect(new Set([...stack.functions.values()]).size).toBe(lambdas.length);
    expect(lambdas).toEqual(expect.arrayContaining([...Object.keys(lambdaGroups), ...jobList.map((j) => j.id)]));
    expect(needs.size).toBe(lambdas.length);
  });

  describe.each(lambdas)('%s', (id) => {
    it('may call each DynamoDB action its code calls, and no other', () => {
      const code = needs.get(id)!;
      const granted = grantsOf(functionOf(id));
      const missing = [...code.dynamodb].filter(([action, modules]) => !granted.dynamodb.has(action) && !excused(id, action, modules));
      expect(missing.map(([action, modules]) => `${action} (${[...modules].join(', ')})`)).toEqual([]);
      if (id === 'openApiDocument') return void expect([...granted.dynamodb]).toEqual([]);
      // Exactly their calls, routes and jobs alike: no BatchGetItem, Query, write, ConditionCheckItem,
      // Scan, DeleteItem or BatchWriteItem their code does not call (routes.ts `permissions`).
      expect([...granted.dynamodb].filter((action) => !code.dynamodb.has(action))).toEqual([]);
      // The indexes only if the code queries one; a row confined to `partitions` never gets them.
      expect(granted.indexes).toBe(code.indexes && !confined(id));
    });

    it('is confined to partition families its code builds keys of; reads every one it builds when confined', () => {
      const code = needs.get(id)!;
      const { partitions } = grantsOf(functionOf(id));
      const family = (pattern: string) => pattern.replace(/\*$/, '');
      // No statement names a family whose keys the code never builds (routes.ts partitions, writePartitions, attributeUpdates).
      const named = new Set(partitions.flatMap((p) => p.only ?? []).map(family));
      expect([...named].filter((f) => !code.partitions.has(f)).sort()).toEqual([]);
      // Every function that reads items is confined by dynamodb:LeadingKeys for them (routes.ts `partitions` or
      // `readPartitions`, jobs.ts `readPartitions`; issue 40), and may read each family its code builds a key of.
      const reads = partitions.filter((p) => p.action === 'dynamodb:GetItem' || p.action === 'dynamodb:BatchGetItem');
      if (id !== 'openApiDocument' && (code.dynamodb.has('dynamodb:GetItem') || code.dynamodb.has('dynamodb:BatchGetItem')))
        expect(
          reads.filter((p) => !p.only).map((p) => p.action),
          'item reads outside dynamodb:LeadingKeys',
        ).toEqual([]);
      if (reads.length && reads.every((p) => p.only)) {
        const readable = new Set(reads.flatMap((p) => p.only!).map(family));
        const unread = [...code.partitions].filter((f) => !readable.has(f) && !excused(id, `read ${f}`, ['shared/store/keys.ts']));
        expect(unread.sort()).toEqual([]);
      }
    });

    it('queries exactly the index partition families its code queries (issue 40)', () => {
      const code = needs.get(id)!;
      const { indexPartitions: statements } = grantsOf(functionOf(id));
      // Every index Query grant is confined by dynamodb:LeadingKeys (the index's partition key) ...
      expect(statements.filter((only) => !only).length, 'index queries outside dynamodb:LeadingKeys').toBe(0);
      // ... to the families of the index partitions its code queries (shared/store/keys.ts indexPartitions), both ways.
      const familyOf = new Map(Object.entries(indexPartitions).map(([family, pattern]) => [pattern as string, family]));
      const granted = new Set(statements.flatMap((only) => only ?? []).map((pattern) => familyOf.get(pattern) ?? pattern));
      expect([...granted].sort()).toEqual([...code.indexPartitions].sort());
    });

    it('writes API-key items (beyond their last use) only if it manages keys (issue 40)', () => {
      const { partitions } = grantsOf(functionOf(id));
      // A write reaches an API key unless its statement confines it to other families or keeps it from APIKEY# and
      // APIKEYID#; the last-used statement (lastUsedAt only) is bookkeeping, apart.
      const reachesKeys = partitions.filter(
        (p) =>
          !p.bookkeeping &&
          /^dynamodb:(PutItem|UpdateItem|DeleteItem|BatchWriteItem)$/.test(p.action) &&
          (p.only ? p.only.some((f) => f.startsWith('APIKEY')) : !(p.except?.includes('APIKEY#*') && p.except.includes('APIKEYID#*'))),
      );
      const managesKeys = rowsOf(id).some((r) => r.permissions.managesKeys);
      expect(reachesKeys.length > 0, reachesKeys.map((p) => p.action).join(', ')).toBe(Boolean(managesKeys));
    });

    it('may send to exactly the queues its code sends to', () => {
      const code = needs.get(id)!;
      const granted = grantsOf(functionOf(id));
      for (const queue of ['webhookQueue', 'deadLetterQueue'] as const) {
        const wanted = code.queues.get(queue) ?? new Set<string>();
        for (const action of wanted) expect(granted.queue(queue), `${queue} ${action}`).toContain(action);
        expect(granted.queue(queue).has('sqs:SendMessage'), `${queue} SendMessage`).toBe(wanted.has('sqs:SendMessage'));
      }
    });

    it('reads exactly the secrets its code reads, and gets their ARNs', () => {
      const code = needs.get(id)!;
      const granted = grantsOf(functionOf(id));
      const wanted = [...code.secrets].filter(([name, modules]) => !excused(id, name, modules)).map(([name]) => name);
      expect([...granted.secrets].sort()).toEqual(wanted.sort());
      // Only GetSecretValue (the Parameters and Secrets extension needs nothing else).
      for (const s of granted.statements.filter((st) => actions(st).some((a) => a.startsWith('secretsmanager:'))))
        expect(actions(s)).toEqual(['secretsmanager:GetSecretValue']);
    });

    it('installs the live adapters its code can ask for, and no other (issue 26: a Lambda bundles only those)', () => {
      const { reached, installed } = needs.get(id)!.live;
      expect([...installed].sort()).toEqual([...reached].sort());
    });
  });

  it('has no stale reviewed line', () => {
    for (const line of reviewed) {
      const used = lambdas.filter((id) => line.applies(id));
      expect(used.length, line.reason).toBeGreaterThan(0);
    }
  });
});
