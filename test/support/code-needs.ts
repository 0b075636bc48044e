import { build } from 'esbuild';
import type { SecretName } from '#functions/routes.ts';
import { esbuildOptionsFor } from '#infra/bundling.ts';
import type { IndexFamily } from '#shared/store/keys.ts';
import { lambdaEntries } from '../../bench/bundles.ts';
import { indexBuilderFamilies } from '../../scripts/store-keys.ts';

const builderFamilies = indexBuilderFamilies() as Record<string, { family: IndexFamily; query: boolean }>;

/**
 * The index families a bundle's code can query: those of the query-shaped index builders it keeps (a partition's key,
 * prefix or due shards) and of the whole-entry builders whose partition key it takes out (`name(…).GSI1PK`, `{ GSI1PK }
 * = name(…)`); a whole entry spread into an item it writes is no query.
 */
function indexQueries(modules: ReadonlyMap<string, string>): Set<IndexFamily> {
  const found = new Set<IndexFamily>();
  const builders = modules.get('shared/store/keys.gen.ts') ?? '';
  for (const [, name] of builders.matchAll(/\bvar ([a-zA-Z]+)\d* = /g))
    if (builderFamilies[name!]?.query) found.add(builderFamilies[name!]!.family);
  const code = [...modules]
    .filter(([module]) => module !== 'shared/store/keys.gen.ts')
    .map(([, text]) => text)
    .join('\n');
  const taken = [
    ...code.matchAll(/(?<![\w$.])([a-zA-Z]+)\d*\((?:[^()]|\([^()]*\))*\)\.GSI\dPK\b/g),
    ...code.matchAll(/\{\s*GSI\dPK\s*\}\s*=\s*(?:\w+\.)?([a-zA-Z]+)\d*\(/g),
  ];
  for (const [, name] of taken) if (builderFamilies[name!] && builders.includes(`var ${name}`)) found.add(builderFamilies[name!]!.family);
  return found;
}

/**
 * What each Lambda's code may call in AWS, read from its bundle: every function entry is bundled
 * the way it ships (infra/bundling.ts: esbuild, tree-shaken) but unminified, so each of our modules
 * keeps its `// shared/...` header and its call sites. Only code of this repository counts (the
 * SDK's own waiters are never called). Reachable is not the same as called: the caller compares
 * with the grants and keeps a short reviewed allowlist for calls a function's requests never make.
 */
export type QueueName = 'webhookQueue' | 'deadLetterQueue';

export interface CodeNeeds {
  /** IAM actions on the table, each with the modules whose code needs it. */
  readonly dynamodb: Map<string, Set<string>>;
  /**
   * The partition families (key prefixes, `MERCHANT#`) of the table keys the code builds: the key builders of
   * shared/store/keys.ts its bundle keeps (tree-shaken, so only those some reachable code calls) and any other
   * `PK:` template. What IAM's dynamodb:LeadingKeys sees of each item the code reads or writes.
   */
  readonly partitions: Set<string>;
  /** Queries that name an index (GSI1-3). */
  readonly indexes: boolean;
  /**
   * The index partition families (shared/store/keys.ts indexPartitions) its index queries can reach, when it queries an
   * index: those of the index key builders its bundle keeps (tree-shaken: only those some reachable code calls). A
   * builder kept to write an index entry counts too: reachable, not necessarily queried (code-grants reviews those).
   */
  readonly indexPartitions: Set<IndexFamily>;
  /**
   * Whether some module asks `withFunds` for a hold's shard (`await place(`): only then can the
   * sharded wallet's placement hint (a BatchGetItem in shared/store/wallets.ts) run.
   */
  readonly placesHolds: boolean;
  /** IAM actions per queue. */
  readonly queues: Map<QueueName, Set<string>>;
  /** Secrets whose ARN variable the code reads, each with the modules that call for the key. */
  readonly secrets: Map<SecretName, Set<string>>;
  /**
   * Live products whose adapter the code asks for (wallets, cards, refunds, payouts; walletPresence:
   * only whether a live wallet provider exists), and those its boot modules install.
   */
  readonly live: { reached: Set<LiveProduct>; installed: Set<LiveProduct> };
}

export type LiveProduct = 'wallets' | 'walletPresence' | 'cards' | 'refunds' | 'payouts' | 'settlements';
/**
 * Where the code asks for a live adapter (outside the registries that define these accessors), and
 * the installer each product's boot module passes (shared/providers/live/boot-*.ts).
 */
const liveAccessors: Record<LiveProduct, RegExp> = {
  wallets: /\bwalletAdapter\d*\(/,
  walletPresence: /\bliveWalletConfigured\d*\(/,
  cards: /\bliveCardProvider\d*\(/,
  refunds: /\brefundRail\d*\(/,
  payouts: /\bpayoutRail\d*\(/,
  settlements: /\bsettlementRail\d*\(/,
};
const liveRegistries = ['shared/providers/wallet.ts', 'shared/providers/cards.ts', 'shared/providers/rails.ts'];
const liveInstallers: Record<LiveProduct, RegExp> = {
  wallets: /\binstallLiveWallets\d*\b/,
  walletPresence: /\binstallLiveWalletPresence\d*\b/,
  cards: /\binstallLiveCards\d*\b/,
  refunds: /\binstallLiveRefunds\d*\b/,
  payouts: /\binstallLivePayouts\d*\b/,
  settlements: /\binstallLiveSettlements\d*\b/,
};

const commandActions: Record<string, string[]> = {
  GetItem: ['dynamodb:GetItem'],
  BatchGetItem: ['dynamodb:BatchGetItem'],
  TransactGetItems: ['dynamodb:GetItem'],
  Query: ['dynamodb:Query'],
  Scan: ['dynamodb:Scan'],
  PutItem: ['dynamodb:PutItem'],
  UpdateItem: ['dynamodb:UpdateItem'],
  DeleteItem: ['dynamodb:DeleteItem'],
  BatchWriteItem: ['dynamodb:BatchWriteItem'],
};
/** The item kinds of TransactWriteItems and the action each needs (IAM checks each item). */
const transactItemActions: Record<string, string> = {
  Put: 'dynamodb:PutItem',
  Update: 'dynamodb:UpdateItem',
  ConditionCheck: 'dynamodb:ConditionCheckItem',
  Delete: 'dynamodb:DeleteItem',
};
/** The entry each builder of shared/store/entity.ts makes. */
const layerItems: Record<string, string> = { put: 'Put', update: 'Update', check: 'ConditionCheck', delete: 'Delete' };
const sqsActions: Record<string, string> = {
  SendMessage: 'sqs:SendMessage',
  SendMessageBatch: 'sqs:SendMessage',
  ChangeMessageVisibility: 'sqs:ChangeMessageVisibility',
  GetQueueAttributes: 'sqs:GetQueueAttributes',
  DeleteMessage: 'sqs:DeleteMessage',
  ReceiveMessage: 'sqs:ReceiveMessage',
};
/** The environment variable each secret's ARN reaches the code by. */
export const secretVariables: Record<SecretName, string> = {
  masterKey: 'SECRETS_MASTER_KEY_ARN',
  publicPathsKey: 'SECRETS_PUBLIC_KEY_ARN',
  totpKey: 'SECRETS_TOTP_KEY_ARN',
  liveProviders: 'LIVE_PROVIDERS_SECRET_ARN',
};

/** Calls that load each secret, outside the modules that define the loaders. */
const secretCalls: Record<SecretName, RegExp> = {
  masterKey: /\bmasterKey\d*\(\)/,
  publicPathsKey: /\b(publicPathsKey|legacyDashboardTotpKey)\d*\(\)/,
  totpKey: /\bdashboardTotpKey\d*\(\)/,
  liveProviders: /\bconfigureLiveProvidersFromSecret\d*\(/,
};
const loaderModules = ['shared/crypto/seal.ts', 'shared/providers/live/index.ts'];

/**
 * The partition key prefixes a module's code builds: `PK: \`FAMILY#...\`` templates, the merchant's shard partitions
 * (merchantShardPK: `MERCHANT#<id>[#SHARD#<n>]`) and an event's home partition (eventHome, webhookDeliveryIn: its
 * subject's, TXN#, REFUND# or SETTLEMENT#).
 */
export function partitionsBuilt(code: string): Set<string> {
  const found = new Set<string>();
  // One literal segment (not the first of two: BANKFILE#LINE#<ref> is the lines' family, below, not BANKFILE#).
  for (const [, prefix] of code.matchAll(/\bPK: `([A-Z_]+#)(?![A-Z_]+#\$\{)/g)) found.add(prefix!);
  // A family named by two literal segments (BANKFILE#LINE#: the lines, apart from the operator's batches and audit).
  for (const [, prefix] of code.matchAll(/\bPK: `([A-Z_]+#[A-Z_]+#)\$\{/g)) found.add(prefix!);
  if (/\bmerchantShardPK\d* = /.test(code)) found.add('MERCHANT#');
  // An event's home, built from its subject or from the `home` an events-feed entry keeps (webhookDeliveryIn).
  if (/\b(eventHome|webhookDeliveryIn)\d* = /.test(code)) for (const prefix of ['TXN#', 'REFUND#', 'SETTLEMENT#']) found.add(prefix);
  return found;
}

/** Splits an unminified esbuild bundle into the code of each of our modules. */
function ownModules(bundle: string): Map<string, string> {
  const modules = new Map<string, string>();
  let current: string | undefined;
  let lines: string[] = [];
  const flush = () => {
    if (current && /^(shared|functions)\//.test(current)) modules.set(current, (modules.get(current) ?? '') + lines.join('\n'));
  };
  for (const line of bundle.split('\n')) {
    const header = /^\s*\/\/ (\S+\.[cm]?[jt]s)$/.exec(line);
    if (header) {
      flush();
      current = header[1];
      lines = [];
    } else lines.push(line);
  }
  flush();
  return modules;
}

export function needsOf(bundle: string): CodeNeeds {
  const needs: CodeNeeds = {
    dynamodb: new Map(),
    indexes: false,
    indexPartitions: new Set(),
    partitions: new Set(),
    placesHolds: false,
    queues: new Map(),
    secrets: new Map(),
    live: { reached: new Set(), installed: new Set() },
  };
  const read = new Set<SecretName>();
  const callers = new Map<SecretName, Set<string>>();
  const need = (action: string, module: string) => {
    if (!needs.dynamodb.has(action)) needs.dynamodb.set(action, new Set());
    needs.dynamodb.get(action)!.add(module);
  };
  let transactWrites = false;
  const transactItems: [string, string][] = [];
  const modules = ownModules(bundle);
  for (const [module, code] of modules) {
    for (const [, command] of code.matchAll(/new (\w+)Command\(/g)) {
      for (const action of commandActions[command!] ?? []) need(action, module);
      if (command === 'TransactWriteItems') transactWrites = true;
    }
    // The store's declaration layer (shared/store/entity.ts) builds the entries its callers ask for: each is counted in the
    // module that calls putEntry/updateEntry/checkEntry/deleteEntry, not in the layer.
    if (module !== 'shared/store/entity.ts')
      for (const [, kind] of code.matchAll(/\b(Put|Update|ConditionCheck|Delete): \{/g)) transactItems.push([kind!, module]);
    if (module !== 'shared/store/entity.ts')
      for (const [, builder] of code.matchAll(/(?<![.\w$])(put|update|check|delete)Entry\d*\(/g))
        transactItems.push([layerItems[builder!]!, module]);
    if (/\bIndexName: /.test(code)) (needs as { indexes: boolean }).indexes = true;
    for (const prefix of partitionsBuilt(code)) needs.partitions.add(prefix);
    if (module !== 'shared/store/wallets.ts' && /\bawait place\d*\(/.test(code)) (needs as { placesHolds: boolean }).placesHolds = true;
    for (const [, command, url] of code.matchAll(/new (\w+)Command\(\s*\{\s*QueueUrl: (\w+)\(\)/g)) {
      const action = sqsActions[command!];
      if (!action) continue;
      const queue: QueueName = /^deadLetterQueueUrl\d*$/.test(url!) ? 'deadLetterQueue' : 'webhookQueue';
      if (!needs.queues.has(queue)) needs.queues.set(queue, new Set());
      needs.queues.get(queue)!.add(action);
    }
    for (const product of Object.keys(liveAccessors) as LiveProduct[]) {
      if (!liveRegistries.includes(module) && liveAccessors[product].test(code)) needs.live.reached.add(product);
      if (!loaderModules.includes(module) && liveInstallers[product].test(code)) needs.live.installed.add(product);
    }
    for (const [name, variable] of Object.entries(secretVariables) as [SecretName, string][]) {
      if (code.includes(`process.env.${variable}`)) read.add(name);
      if (!loaderModules.includes(module) && secretCalls[name].test(code)) callers.set(name, (callers.get(name) ?? new Set()).add(module));
    }
  }
  for (const name of read) needs.secrets.set(name, callers.get(name) ?? new Set(loaderModules.slice(0, 1)));
  if (needs.indexes) for (const family of indexQueries(modules)) needs.indexPartitions.add(family);
  if (transactWrites) for (const [kind, module] of transactItems) need(transactItemActions[kind]!, module);
  return needs;
}

/** Bundles every Lambda entry once (about half a minute on a busy machine) and reads its needs. */
export async function codeNeeds(): Promise<Map<string, CodeNeeds>> {
  const out = await build({
    ...esbuildOptionsFor('unused'),
    entryPoints: Object.fromEntries(lambdaEntries().map(({ id, handler }) => [id, handler])),
    minify: false,
    write: false,
    outdir: '/tmp/code-needs',
    logLevel: 'error',
  });
  const byId = new Map<string, CodeNeeds>();
  for (const file of out.outputFiles) {
    const id = /([^/]+)\.js$/.exec(file.path)![1]!;
    byId.set(id, needsOf(file.text));
  }
  return byId;
}
