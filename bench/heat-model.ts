import type { AttributeValue, ConsumedCapacity } from '@aws-sdk/client-dynamodb';
import type { CapacityRecord } from '#shared/store/client.ts';
import { dueShardCount } from '#shared/store/keys.ts';
import { transactionListShards } from '#shared/store/shards.ts';

/**
 * The capacity model of `npm run bench -- heat` (bench/heat.ts, docs/scaling.md). Pure: it turns
 * the calls one business operation made (each with the ConsumedCapacity DynamoDB reported, per
 * table and per index) into units per operation in total and per partition key, and those into the
 * ceiling one merchant hits and the on-demand cost.
 *
 * DynamoDB reports consumed capacity per table and per index of a call, not per partition key, so
 * the units of one call are shared among the items it touched, in proportion to each item's
 * size in 1 KB units (what DynamoDB bills), and an index's units among the items that have (or had,
 * when the write moved them) a key in that index. The index keys an Update does not set are the
 * ones the item last had (every index projects ALL, so any change rewrites the index entry).
 */
export const limits = { wcuPerKey: 1_000, rcuPerKey: 3_000 } as const;
/** DynamoDB on-demand, us-east-1, standard table class (from 1 Nov 2024): USD per million request units. */
export const prices = { usdPerMillionWrite: 0.625, usdPerMillionRead: 0.125, region: 'us-east-1', tableClass: 'Standard' } as const;

/**
 * What one merchant must sustain (issue 40, docs/scaling.md): each operation alone at its rate, and
 * the target mix at once, 2,000 paid checkouts/s and 500 payouts/s with the webhook deliveries they cause.
 */
export const operationTargets = {
  'checkout.paid': 2_000,
  'deposit.approved': 500,
  'withdrawal.auto': 500,
  'refund.approved': 500,
  'webhook.delivery': 2_500,
} as const;
export const targetMix = { 'checkout.paid': 2_000, 'withdrawal.auto': 500 } as const;

export interface Units {
  rcu: number;
  wcu: number;
}
type Where = 'table' | `GSI${number}` | string;

interface Touch {
  where: Where;
  key: string;
  /** The item's sort key (table touches of one item): which family a shared partition's item belongs to. */
  sk?: string;
  weight: number;
}

interface Remembered {
  /** Bytes per attribute (name and value), so an update's new size is known. */
  attributes: Record<string, number>;
  index: Record<string, string>;
}
const sizeOf = (r: Remembered) => Object.values(r.attributes).reduce((a, b) => a + b, 0);

const indexKeyAttribute = (attribute: string) => /^GSI(\d+)PK$/.exec(attribute)?.[1];
const str = (v: AttributeValue | undefined) => (v && 'S' in v ? v.S : undefined);
const readCommands = new Set(['GetItem', 'Query', 'Scan', 'BatchGetItem', 'TransactGetItems']);

/** What each call touched, with memory of item sizes and index keys across calls. */
export class Attributor {
  private readonly items = new Map<string, Remembered>();

  touches(record: CapacityRecord): { read: boolean; touches: Touch[] } {
    const input = record.input as Record<string, any>;
    const read = readCommands.has(record.command);
    const out: Touch[] = [];
    const put = (item: Record<string, AttributeValue>) => {
      const id = `${str(item.PK)}|${str(item.SK)}`;
      const before = this.items.get(id);
      const index: Record<string, string> = {};
      for (const [attribute, value] of Object.entries(item)) {
        const n = indexKeyAttribute(attribute);
        if (n && str(value)) index[`GSI${n}`] = str(value)!;
      }
      const attributes = Object.fromEntries(Object.entries(item).map(([name, v]) => [name, Buffer.byteLength(name) + valueBytes(v)]));
      this.items.set(id, { attributes, index });
      const size = Math.max(sizeOf(this.items.get(id)!), before ? sizeOf(before) : 0);
      out.push({ where: 'table', key: str(item.PK)!, sk: str(item.SK), weight: kb(size) });
      for (const [gsi, key] of Object.entries(index)) out.push({ where: gsi, key, weight: kb(size) });
      for (const [gsi, key] of Object.entries(before?.index ?? {})) if (index[gsi] !== key) out.push({ where: gsi, key, weight: 1 });
    };
    const update = (u: Record<string, any>) => {
      const id = `${str(u.Key.PK)}|${str(u.Key.SK)}`;
      const known = this.items.get(id) ?? { attributes: { '(unknown)': 400 }, index: {} };
      const index = { ...known.index };
      const attributes = { ...known.attributes };
      const moved: Touch[] = [];
      const names = (u.ExpressionAttributeNames ?? {}) as Record<string, string>;
      const values = (u.ExpressionAttributeValues ?? {}) as Record<string, AttributeValue>;
      const expression = String(u.UpdateExpression ?? '');
      const resolve = (token: string) => (token.startsWith('#') ? (names[token] ?? token) : token);
      const set = /SET\s+(.*?)(?=\s+(?:REMOVE|ADD|DELETE)\s|$)/s.exec(expression)?.[1] ?? '';
      for (const m of set.matchAll(/(#?[\w]+)\s*=\s*(:[\w]+)/g)) {
        const name = resolve(m[1]!);
        if (values[m[2]!]) attributes[name] = Buffer.byteLength(name) + valueBytes(values[m[2]!]!);
        const n = indexKeyAttribute(name);
        const value = str(values[m[2]!]);
        if (n && value) {
          if (index[`GSI${n}`] && index[`GSI${n}`] !== value) moved.push({ where: `GSI${n}`, key: index[`GSI${n}`]!, weight: 1 });
          index[`GSI${n}`] = value;
        }
      }
      const remove = /REMOVE\s+(.*?)(?=\s+(?:SET|ADD|DELETE)\s|$)/s.exec(expression)?.[1] ?? '';
      for (const token of remove
        .split(',')
        .map((t) => t.trim())
        .filter(Boolean)) {
        delete attributes[resolve(token)];
        const n = indexKeyAttribute(resolve(token));
        if (n && index[`GSI${n}`]) {
          moved.push({ where: `GSI${n}`, key: index[`GSI${n}`]!, weight: 1 });
          delete index[`GSI${n}`];
        }
      }
      const add = /ADD\s+(.*?)(?=\s+(?:SET|REMOVE|DELETE)\s|$)/s.exec(expression)?.[1] ?? '';
      for (const m of add.matchAll(/(#?[\w]+)\s+(:[\w]+)/g)) {
        const name = resolve(m[1]!);
        if (values[m[2]!] && attributes[name] === undefined) attributes[name] = Buffer.byteLength(name) + valueBytes(values[m[2]!]!);
      }
      const after = { attributes, index };
      this.items.set(id, after);
      // DynamoDB bills an update by the larger of the item's sizes before and after it.
      const size = Math.max(sizeOf(known), sizeOf(after));
      out.push({ where: 'table', key: str(u.Key.PK)!, sk: str(u.Key.SK), weight: kb(size) });
      for (const [gsi, key] of Object.entries(index)) out.push({ where: gsi, key, weight: kb(size) });
      out.push(...moved);
    };
    const keyOnly = (key: Record<string, AttributeValue>) => {
      const known = this.items.get(`${str(key.PK)}|${str(key.SK)}`);
      out.push({ where: 'table', key: str(key.PK)!, sk: str(key.SK), weight: known ? kb(sizeOf(known)) : 1 });
    };
    switch (record.command) {
      case 'GetItem':
        keyOnly(input.Key);
        break;
      case 'PutItem':
        put(input.Item);
        break;
      case 'UpdateItem':
        update(input);
        break;
      case 'DeleteItem':
        keyOnly(input.Key);
        break;
      case 'Query':
      case 'Scan': {
        const where: Where = input.IndexName ?? 'table';
        const names = (input.ExpressionAttributeNames ?? {}) as Record<string, string>;
        const values = (input.ExpressionAttributeValues ?? {}) as Record<string, AttributeValue>;
        let key = record.command === 'Scan' ? '(scan)' : '(unknown)';
        for (const m of String(input.KeyConditionExpression ?? '').matchAll(/(#?[\w]+)\s*=\s*(:[\w]+)/g)) {
          const attribute = m[1]!.startsWith('#') ? names[m[1]!] : m[1]!;
          if (attribute === 'PK' || (attribute && indexKeyAttribute(attribute))) key = str(values[m[2]!]) ?? key;
        }
        out.push({ where, key, weight: 1 });
        break;
      }
      case 'BatchGetItem': {
        // The units are the found items' (DynamoDB Local bills nothing for a key it did not find):
        // a destination's health item read with a batch's deliveries is not there while it stays healthy.
        const found = record.found?.length ? new Set(record.found) : undefined;
        for (const request of Object.values(input.RequestItems ?? {}) as { Keys: Record<string, AttributeValue>[] }[])
          for (const k of request.Keys) if (!found || found.has(`${str(k.PK)}|${str(k.SK)}`)) keyOnly(k);
        break;
      }
      case 'TransactGetItems':
        for (const t of input.TransactItems ?? []) keyOnly(t.Get.Key);
        break;
      case 'BatchWriteItem':
        for (const requests of Object.values(input.RequestItems ?? {}) as Record<string, any>[][])
          for (const r of requests) {
            if (r.PutRequest) put(r.PutRequest.Item);
            else keyOnly(r.DeleteRequest.Key);
          }
        break;
      case 'TransactWriteItems':
        for (const t of input.TransactItems ?? []) {
          if (t.Put) put(t.Put.Item);
          else if (t.Update) update(t.Update);
          else if (t.Delete) keyOnly(t.Delete.Key);
          else if (t.ConditionCheck) keyOnly(t.ConditionCheck.Key);
        }
        break;
    }
    return { read, touches: out };
  }
}

const kb = (bytes: number) => Math.max(1, Math.ceil(bytes / 1024));

/**
 * An attribute value's size as DynamoDB counts it for capacity (with its name's bytes, an item's
 * size): a string in UTF-8 bytes, a number about one byte per two digits plus one, a list or map
 * 3 bytes plus 1 per element.
 */
function valueBytes(v: AttributeValue): number {
  if (v.S !== undefined) return Buffer.byteLength(v.S);
  if (v.N !== undefined) return Math.ceil(v.N.replace(/^-|\.|^0+/g, '').length / 2) + 1;
  if (v.B !== undefined) return v.B.length;
  if (v.BOOL !== undefined || v.NULL !== undefined) return 1;
  if (v.L) return 3 + v.L.reduce((a, x) => a + 1 + valueBytes(x), 0);
  if (v.M) return 3 + Object.entries(v.M).reduce((a, [k, x]) => a + 1 + Buffer.byteLength(k) + valueBytes(x), 0);
  if (v.SS) return v.SS.reduce((a, x) => a + Buffer.byteLength(x), 0);
  if (v.NS) return v.NS.reduce((a, x) => a + x.length, 0);
  return 0;
}

/** The units DynamoDB reported for a call: table and each index. */
function reported(consumed: ConsumedCapacity[]): Map<Where, number> {
  const units = new Map<Where, number>();
  const add = (where: Where, n: number | undefined) => n && units.set(where, (units.get(where) ?? 0) + n);
  for (const c of consumed) {
    const indexes = Object.entries(c.GlobalSecondaryIndexes ?? {});
    add('table', c.Table?.CapacityUnits ?? (indexes.length ? undefined : c.CapacityUnits));
    for (const [name, cap] of indexes) add(name, cap.CapacityUnits);
  }
  return units;
}

/** Per operation: units (totals and per partition key) summed over every instance run. */
export class OperationTally {
  count = 0;
  calls = 0;
  readonly total = new Map<Where, Units>();
  readonly perKey = new Map<string, Units & { where: Where; key: string; sk?: string; instances: Set<number> }>();
  readonly steps = new Map<string, { calls: number; commands: string[]; instances: number }>();
  outboxEvents = 0;

  add(record: CapacityRecord, attributed: { read: boolean; touches: Touch[] }, step: string) {
    this.calls++;
    const s = this.steps.get(step) ?? { calls: 0, commands: [], instances: 0 };
    s.calls++;
    if (s.commands.length < 40) s.commands.push(record.command);
    this.steps.set(step, s);
    const field: keyof Units = attributed.read ? 'rcu' : 'wcu';
    if (record.command === 'TransactWriteItems')
      this.outboxEvents += ((record.input.TransactItems as any[]) ?? []).filter(
        (t) => t.Put && str(t.Put.Item.SK)?.startsWith('EVENT#'),
      ).length;
    for (const [where, units] of reported(record.consumed)) {
      const t = this.total.get(where) ?? { rcu: 0, wcu: 0 };
      t[field] += units;
      this.total.set(where, t);
      const here = attributed.touches.filter((x) => x.where === where);
      const weight = here.reduce((a, x) => a + x.weight, 0);
      for (const x of here) {
        const id = `${where} ${x.key} ${x.sk ?? ''}`;
        const k = this.perKey.get(id) ?? { where, key: x.key, ...(x.sk ? { sk: x.sk } : {}), rcu: 0, wcu: 0, instances: new Set<number>() };
        k[field] += (units * x.weight) / weight;
        k.instances.add(this.count);
        this.perKey.set(id, k);
      }
    }
  }
}

/** A key with ids replaced, so the table shows the pattern (`MERCHANT#<id>#test#TXN`). */
export const keyPattern = (key: string) =>
  key
    .replace(/[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}/gi, '<id>')
    .replace(/(?<=#)(?=[^#]*\d)[0-9A-Za-z_-]{16,}/g, '<id>');

export interface OperationResult {
  operation: string;
  instances: number;
  roundTrips: Record<string, { perInstance: number; commands: string[] }>;
  perOperation: Record<string, Units>;
  hottest: Record<string, Units & { key: string; pattern: string }>;
  /** Operations per second of this operation alone before a partition key passes its limit. */
  ceilingPerSecond: number;
  limitedBy: string;
  usdPerMillion: number;
  outboxEventsPerOperation: number;
  /** Per-key units per operation of every key that matters for a merchant's heat (≥ 0.01 unit). */
  keys: { where: string; key: string; pattern: string; rcu: number; wcu: number }[];
}

/**
 * A sharded family of partition keys (a merchant's listing shards `…#TXN`, `…#TXN#<n>`; its
 * wallet shards `MERCHANT#<id>#SHARD#<n>`; the due shards `DUE#<n>`): objects are placed by a
 * uniform hash of their id, so the expected load of one member is the family's total divided by
 * the number of members. A short run puts a handful of objects on each shard, whose maximum would
 * overstate the heat; `families` gives each family's member count.
 */
export type Families = (
  where: string,
  key: string,
  sk?: string,
) =>
  | { family: string; members: number /** A key whose partition also holds member 0 (its load is added there too). */; alsoOn?: string }
  | undefined;

/**
 * The hash-placed families of one merchant on `shards` shards (shared/store/shards.ts, keys.ts): the
 * platform's due shards (`DUE#<n>`, `MONEYDUE#<n>`, `WEBHOOKDUE#<n>`), the wallet's shards with
 * their journals (`MERCHANT#<id>#SHARD#<n>`; shard 0's items are in the merchant's own partition,
 * whose other items' load its member's is added to), and the
 * merchant's listing shards: a base key and its `#<n>` siblings (n ≥ 1; shard 0 is the base) of the
 * transactions list, the events feed, the reference search, the balance transactions by kind and the
 * refunds list. A key
 * not named here is one partition, whatever the load: a new index is hot until it is sharded.
 */
const walletItem = /^(WALLET|JOURNAL|DAILY)#/;

export function shardFamilies(merchantId: string, shards: number): Families {
  const listing = new RegExp(
    '#(TXN|test|live|Pending|Completed|Failed|Processing|Cancelled|Expired|REFUND|REFS|BALTXN#[^#]+|' +
      'pending|retrying|delivered|dead_lettered|no_destination|endpoint_disabled)$',
  );
  const own = `MERCHANT#${merchantId}`;
  return (where, key, sk) => {
    const due = /^((?:MONEY|WEBHOOK)?DUE)#\d+$/.exec(key);
    if (due) return { family: `${due[1]}#<n>`, members: dueShardCount };
    if (shards <= 1 || !key.includes(merchantId)) return undefined;
    // The wallet's shards with their journals and daily volume: member 0 is in the merchant's own partition.
    if (where === 'table' && (key.startsWith(`${own}#SHARD#`) || (key === own && sk !== undefined && walletItem.test(sk))))
      return { family: `${own}[#SHARD#<n>]`, members: shards, alsoOn: own };
    if (!/#(TXN|EVENTS|REFUND|REFS|BALTXN)|^EVENTS#/.test(key)) return undefined;
    const base = /^(.*?)(?:#(\d+))?$/.exec(key)![1]!;
    if (!listing.test(base)) return undefined;
    // The all-transactions listing has twice the partitions (shared/store/shards.ts).
    const members = where === 'GSI1' && base.endsWith('#TXN') ? transactionListShards(shards) : shards;
    return { family: `${base}[#<n>]`, members };
  };
}

export function summarise(operation: string, t: OperationTally, shared?: (key: string) => boolean, families?: Families): OperationResult {
  const n = Math.max(1, t.count);
  const perOperation = Object.fromEntries([...t.total].map(([w, u]) => [w, { rcu: round(u.rcu / n), wcu: round(u.wcu / n) }]));
  // The members of a hash-placed family first (each instance lands on one member, so a short run
  // sees a member touched once: the family as a whole is what instances share), then: a key only one
  // instance touched (its payment intent, its idempotency record) is written a bounded number of
  // times, whatever the rate: only keys instances share make heat.
  type Group = {
    where: string;
    key: string;
    pattern: string;
    rcu: number;
    wcu: number;
    members: number;
    alsoOn?: string;
    instances: Set<number>;
  };
  const grouped = new Map<string, Group>();
  for (const k of t.perKey.values()) {
    const f = families?.(k.where, k.key, k.sk);
    const key = f ? `${f.family} (each of ${f.members})` : k.key;
    const id = `${k.where} ${key}`;
    const g = grouped.get(id) ?? {
      where: k.where,
      key,
      pattern: f ? `${keyPattern(f.family)} (each of ${f.members})` : keyPattern(k.key),
      rcu: 0,
      wcu: 0,
      members: f?.members ?? 1,
      alsoOn: f?.alsoOn,
      instances: new Set<number>(),
    };
    g.rcu += k.rcu;
    g.wcu += k.wcu;
    for (const i of k.instances) g.instances.add(i);
    grouped.set(id, g);
  }
  const isShared = (g: Group) => (shared ? shared(g.key) : n === 1 || g.instances.size > 1);
  // Member 0 of a family may share its partition with other items (wallet shard 0 is the merchant's own partition).
  for (const g of [...grouped.values()])
    if (g.alsoOn && isShared(g)) {
      const id = `${g.where} ${g.alsoOn}`;
      const on = grouped.get(id) ?? {
        where: g.where,
        key: g.alsoOn,
        pattern: keyPattern(g.alsoOn),
        rcu: 0,
        wcu: 0,
        members: 1,
        instances: new Set(),
      };
      on.rcu += g.rcu / g.members;
      on.wcu += g.wcu / g.members;
      for (const i of g.instances) on.instances.add(i);
      grouped.set(id, on);
    }
  const keys = [...grouped.values()]
    .filter(isShared)
    .map((g) => ({ where: g.where, key: g.key, pattern: g.pattern, rcu: round(g.rcu / n / g.members), wcu: round(g.wcu / n / g.members) }))
    .filter((k) => k.rcu >= 0.01 || k.wcu >= 0.01);
  const hottest: OperationResult['hottest'] = {};
  let ceilingPerSecond = Infinity;
  let limitedBy = '-';
  for (const k of keys) {
    const load = Math.max(k.wcu / limits.wcuPerKey, k.rcu / limits.rcuPerKey);
    const h = hottest[k.where];
    if (!h || Math.max(h.wcu / limits.wcuPerKey, h.rcu / limits.rcuPerKey) < load)
      hottest[k.where] = { key: k.key, pattern: k.pattern, rcu: k.rcu, wcu: k.wcu };
    if (load > 0 && 1 / load < ceilingPerSecond) {
      ceilingPerSecond = 1 / load;
      limitedBy = `${k.where} ${k.pattern} (${k.wcu / limits.wcuPerKey >= k.rcu / limits.rcuPerKey ? `${k.wcu} WCU` : `${k.rcu} RCU`})`;
    }
  }
  const totalRcu = Object.values(perOperation).reduce((a, u) => a + u.rcu, 0);
  const totalWcu = Object.values(perOperation).reduce((a, u) => a + u.wcu, 0);
  return {
    operation,
    instances: t.count,
    roundTrips: Object.fromEntries(
      [...t.steps].map(([step, s]) => [step, { perInstance: round(s.calls / n), commands: s.commands.slice(0, 12) }]),
    ),
    perOperation,
    hottest,
    ceilingPerSecond: Math.floor(ceilingPerSecond),
    limitedBy,
    usdPerMillion: round(totalWcu * prices.usdPerMillionWrite + totalRcu * prices.usdPerMillionRead),
    outboxEventsPerOperation: round(t.outboxEvents / n),
    keys,
  };
}

const round = (x: number) => Math.round(x * 100) / 100;

/**
 * A mix at given rates (operations per second): the load on every partition key against its
 * limit. `factor` ≤ 1 means the mix is sustainable by the model; the key with the largest share
 * is the one that throttles first.
 */
export function mixLoad(results: OperationResult[], rates: Record<string, number>) {
  const load = new Map<string, { where: string; pattern: string; rcu: number; wcu: number }>();
  for (const r of results) {
    const rate = rates[r.operation] ?? 0;
    if (!rate) continue;
    for (const k of r.keys) {
      const id = `${k.where} ${k.key}`;
      const l = load.get(id) ?? { where: k.where, pattern: k.pattern, rcu: 0, wcu: 0 };
      l.rcu += rate * k.rcu;
      l.wcu += rate * k.wcu;
      load.set(id, l);
    }
  }
  const keys = [...load.values()]
    .map((l) => ({ factor: Math.max(l.wcu / limits.wcuPerKey, l.rcu / limits.rcuPerKey), ...l, rcu: round(l.rcu), wcu: round(l.wcu) }))
    .sort((a, b) => b.factor - a.factor);
  const worst = keys[0] ?? { factor: 0, where: '-', pattern: '-', rcu: 0, wcu: 0 };
  return {
    rates,
    factor: worst.factor,
    sustainable: worst.factor <= 1,
    hottest: worst,
    /** The keys under the most load, hottest first. */
    top: keys.slice(0, 6),
  };
}
