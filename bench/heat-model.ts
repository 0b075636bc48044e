import type { AttributeValue, ConsumedCapacity } from '@aws-sdk/client-dynamodb';
import type { CapacityRecord } from '#shared/store/client.ts';

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

export interface Units {
  rcu: number;
  wcu: number;
}
type Where = 'table' | `GSI${number}` | string;

interface Touch {
  where: Where;
  key: string;
  weight: number;
}

interface Remembered {
  size: number;
  index: Record<string, string>;
}

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
      const size = JSON.stringify(item).length;
      this.items.set(id, { size, index });
      out.push({ where: 'table', key: str(item.PK)!, weight: kb(size) });
      for (const [gsi, key] of Object.entries(index)) out.push({ where: gsi, key, weight: kb(size) });
      for (const [gsi, key] of Object.entries(before?.index ?? {})) if (index[gsi] !== key) out.push({ where: gsi, key, weight: 1 });
    };
    const update = (u: Record<string, any>) => {
      const id = `${str(u.Key.PK)}|${str(u.Key.SK)}`;
      const known = this.items.get(id) ?? { size: 400, index: {} };
      const index = { ...known.index };
      const moved: Touch[] = [];
      const names = (u.ExpressionAttributeNames ?? {}) as Record<string, string>;
      const values = (u.ExpressionAttributeValues ?? {}) as Record<string, AttributeValue>;
      const expression = String(u.UpdateExpression ?? '');
      const resolve = (token: string) => (token.startsWith('#') ? (names[token] ?? token) : token);
      const set = /SET\s+(.*?)(?=\s+(?:REMOVE|ADD|DELETE)\s|$)/s.exec(expression)?.[1] ?? '';
      for (const m of set.matchAll(/(#?[\w]+)\s*=\s*(:[\w]+)/g)) {
        const n = indexKeyAttribute(resolve(m[1]!));
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
        const n = indexKeyAttribute(resolve(token));
        if (n && index[`GSI${n}`]) {
          moved.push({ where: `GSI${n}`, key: index[`GSI${n}`]!, weight: 1 });
          delete index[`GSI${n}`];
        }
      }
      this.items.set(id, { size: known.size, index });
      out.push({ where: 'table', key: str(u.Key.PK)!, weight: kb(known.size) });
      for (const [gsi, key] of Object.entries(index)) out.push({ where: gsi, key, weight: kb(known.size) });
      out.push(...moved);
    };
    const keyOnly = (key: Record<string, AttributeValue>) => {
      const known = this.items.get(`${str(key.PK)}|${str(key.SK)}`);
      out.push({ where: 'table', key: str(key.PK)!, weight: known ? kb(known.size) : 1 });
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
      case 'BatchGetItem':
        for (const request of Object.values(input.RequestItems ?? {}) as { Keys: Record<string, AttributeValue>[] }[])
          for (const k of request.Keys) keyOnly(k);
        break;
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
  readonly perKey = new Map<string, Units & { where: Where; key: string; instances: Set<number> }>();
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
        const id = `${where} ${x.key}`;
        const k = this.perKey.get(id) ?? { where, key: x.key, rcu: 0, wcu: 0, instances: new Set<number>() };
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
export type Families = (where: string, key: string) => { family: string; members: number } | undefined;

export function summarise(operation: string, t: OperationTally, shared?: (key: string) => boolean, families?: Families): OperationResult {
  const n = Math.max(1, t.count);
  const perOperation = Object.fromEntries([...t.total].map(([w, u]) => [w, { rcu: round(u.rcu / n), wcu: round(u.wcu / n) }]));
  // A key only one instance touched (its payment intent, its idempotency record) is written a
  // bounded number of times, whatever the rate: only keys instances share make heat.
  const keys = [...t.perKey.values()]
    .filter((k) => (shared ? shared(k.key) : n === 1 || k.instances.size > 1))
    .map((k) => ({ where: k.where, key: k.key, pattern: keyPattern(k.key), rcu: round(k.rcu / n), wcu: round(k.wcu / n) }))
    .filter((k) => k.rcu >= 0.01 || k.wcu >= 0.01);
  if (families) {
    const grouped = new Map<string, { where: string; key: string; pattern: string; rcu: number; wcu: number; members: number }>();
    for (const k of keys.splice(0)) {
      const f = families(k.where, k.key);
      if (!f) {
        keys.push(k);
        continue;
      }
      const id = `${k.where} ${f.family}`;
      const g = grouped.get(id) ?? {
        where: k.where,
        key: `${f.family} (each of ${f.members})`,
        pattern: `${keyPattern(f.family)} (each of ${f.members})`,
        rcu: 0,
        wcu: 0,
        members: f.members,
      };
      g.rcu += k.rcu;
      g.wcu += k.wcu;
      grouped.set(id, g);
    }
    for (const g of grouped.values())
      keys.push({ where: g.where, key: g.key, pattern: g.pattern, rcu: round(g.rcu / g.members), wcu: round(g.wcu / g.members) });
  }
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
  let worst = { factor: 0, where: '-', pattern: '-', rcu: 0, wcu: 0 };
  for (const l of load.values()) {
    const factor = Math.max(l.wcu / limits.wcuPerKey, l.rcu / limits.rcuPerKey);
    if (factor > worst.factor) worst = { factor, ...l };
  }
  return {
    rates,
    factor: worst.factor,
    sustainable: worst.factor <= 1,
    hottest: { ...worst, rcu: round(worst.rcu), wcu: round(worst.wcu) },
  };
}
