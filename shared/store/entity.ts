import {
  DeleteItemCommand,
  GetItemCommand,
  PutItemCommand,
  type ReturnValue,
  type ReturnValuesOnConditionCheckFailure,
  UpdateItemCommand,
} from '@aws-sdk/client-dynamodb';
import { db, fromItem, tableName, toItem, toValues, type TxItem } from './client.ts';

/*
 * The declaration layer of the one table (issue 40): an entity is declared once (shared/store/entities.ts) and its
 * keys, index keys, transaction entries and single writes are built from that declaration here.
 * Written here, not taken from ElectroDB or dynamodb-toolbox: those add about 290 kB / 130 kB to every Lambda
 * (budget 300 kB); this is a few hundred lines and no dependency.
 *
 * Key templates: `{name}` is a value; `{lit name?}` is optional: `lit` and the value, or nothing when the value is
 * 0 or absent (a shard suffix: `MERCHANT#{merchantId}{#SHARD#shard?}` is `MERCHANT#m` for shard 0, `MERCHANT#m#SHARD#2`
 * for shard 2). Everything else is literal.
 */
export type Key = { PK: string; SK: string };
export type Values = Record<string, string | number | undefined>;

const slot = /\{([^{}]*?)(\w+)(\?)?\}/g;

/** A template filled with `values`; a missing required value is a bug (thrown). */
export function fill(template: string, values: Values): string {
  return template.replace(slot, (_all, lit: string, name: string, optional?: string) => {
    const value = values[name];
    if (optional) return value === undefined || value === 0 || value === '' ? '' : `${lit}${value}`;
    if (value === undefined) throw new Error(`key template ${template}: no value for ${name}`);
    return `${lit}${value}`;
  });
}

/** The template filled up to its first required value not given (a begins_with prefix, a partition of a listing). */
export function prefix(template: string, values: Values): string {
  let end = template.length;
  for (const m of template.matchAll(slot)) {
    if (!m[3] && values[m[2]!] === undefined) {
      end = m.index;
      break;
    }
  }
  return fill(template.slice(0, end), values);
}

/** The literal text before a template's first value: the partition family's `dynamodb:LeadingKeys` prefix. */
export const literalHead = (template: string) => template.slice(0, template.search(/\{/) < 0 ? undefined : template.search(/\{/));

/** An index entry: its partition and sort key attributes and their templates (`{ GSI1PK: '…', GSI1SK: '…' }`). */
export type IndexDecl = Readonly<Record<string, string>>;

export interface EntityDecl {
  /** The `entity` attribute every item carries. */
  readonly tag: string;
  /** The IAM partition family (infra `dynamodb:LeadingKeys`) the items belong to; none for items in another entity's partition. */
  readonly family?: string;
  readonly pk: string;
  readonly sk: string;
  readonly indexes?: Readonly<Record<string, IndexDecl>>;
  /**
   * The attributes an update may SET, ADD or REMOVE (top level; `held_*`: any with that start). Undeclared: not checked.
   * update() refuses any other, so the list is what the code changes on stored items.
   */
  readonly updates?: readonly string[];
  /** How a Put creates it: `ifAbsent` (default: `attribute_not_exists(PK)`, never overwritten) or `replace` (no condition). */
  readonly create?: 'ifAbsent' | 'replace';
  /** For docs/access-patterns.md: what the item holds. */
  readonly doc: string;
}

export interface Entity<D extends EntityDecl = EntityDecl> {
  readonly decl: D;
  readonly tag: D['tag'];
  key(values: Values): Key;
  /** An index's key attributes (`{ GSI1PK, GSI1SK }`). */
  index<N extends keyof NonNullable<D['indexes']> & string>(name: N, values: Values): { [A in keyof NonNullable<D['indexes']>[N]]: string };
}

/** Declares an entity (pure: a Lambda bundles only the declarations its code uses). */
/* @__NO_SIDE_EFFECTS__ */
export function entity<const D extends EntityDecl>(decl: D): Entity<D> {
  return {
    decl,
    tag: decl.tag,
    key: (values) => ({ PK: fill(decl.pk, values), SK: fill(decl.sk, values) }),
    index: (name, values) => {
      const templates = decl.indexes![name]!;
      return Object.fromEntries(Object.entries(templates).map(([attribute, t]) => [attribute, fill(t, values)])) as never;
    },
  };
}

/** A partition and the sort key prefix of the entity's items in it (`begins_with`), from the values known. */
export const partitionOf = (e: Entity, values: Values) => ({ PK: fill(e.decl.pk, values), SKPrefix: prefix(e.decl.sk, values) });

type FamilyOf<D> = D extends { family: infer F extends string } ? F : never;

/**
 * The IAM partition families: each declared `family` and the literal head of its entities' partition key, which must
 * agree (two entities of one family in different partitions would make a LeadingKeys grant cover one of them only).
 */
export function partitionFamilies<const E extends readonly { decl: EntityDecl }[]>(entities: E) {
  const families: Record<string, string> = {};
  for (const { decl } of entities) {
    if (!decl.family) continue;
    const head = literalHead(decl.pk);
    if (families[decl.family] !== undefined && families[decl.family] !== head)
      throw new Error(`family ${decl.family}: ${head} and ${families[decl.family]}`);
    families[decl.family] = head;
  }
  return families as Record<FamilyOf<E[number]['decl']>, string>;
}

/**
 * A write's condition: `exists` (`attribute_exists(PK)`, or `attribute_not_exists(PK)` when false), `eq` (each attribute
 * equals the value; null: the attribute is absent or null), and `expr` (any further condition with its own `:values`), ANDed.
 */
export interface When {
  exists?: boolean;
  eq?: Record<string, unknown>;
  expr?: string;
  names?: Record<string, string>;
  values?: Record<string, unknown>;
}

/** `#a` for attribute a (a dotted path: `#a.#b`), with its names entry. */
const name = (attribute: string, names: Record<string, string>) =>
  attribute
    .split('.')
    .map((part) => {
      const placeholder = `#${part.replace(/\W/g, '_')}`;
      names[placeholder] = part;
      return placeholder;
    })
    .join('.');
const token = (attribute: string) => attribute.replace(/\W/g, '_');

function condition(when: When | undefined, names: Record<string, string>, values: Record<string, unknown>): string | undefined {
  if (!when) return undefined;
  const parts: string[] = [];
  if (when.exists !== undefined) parts.push(when.exists ? 'attribute_exists(PK)' : 'attribute_not_exists(PK)');
  for (const [attribute, value] of Object.entries(when.eq ?? {})) {
    const n = name(attribute, names);
    if (value === null) {
      parts.push(`(attribute_not_exists(${n}) OR ${n} = :null)`);
      values[':null'] = null;
    } else {
      parts.push(`${n} = :was_${token(attribute)}`);
      values[`:was_${token(attribute)}`] = value;
    }
  }
  if (when.expr) parts.push(when.expr);
  Object.assign(names, when.names);
  Object.assign(values, when.values);
  return parts.length ? parts.join(' AND ') : undefined;
}

/** The expression fields of a condition, empty when there is none. */
function expressionFields(expression: Record<string, string | undefined>, names: Record<string, string>, values: Record<string, unknown>) {
  return {
    ...Object.fromEntries(Object.entries(expression).filter(([, v]) => v !== undefined)),
    ...(Object.keys(names).length ? { ExpressionAttributeNames: names } : {}),
    ...(Object.keys(values).length ? { ExpressionAttributeValues: toValues(values) } : {}),
  };
}

const returnOld = (old: boolean | undefined) =>
  old ? { ReturnValuesOnConditionCheckFailure: 'ALL_OLD' as ReturnValuesOnConditionCheckFailure } : {};

/**
 * A Put of a whole item: the entity's key and tag, then `item` (index keys and attributes). Created if absent unless the
 * entity replaces (create: 'replace'); `when` replaces that default condition.
 */
export function put(
  e: Entity,
  keyValues: Values | Key,
  item: Record<string, unknown>,
  options: { when?: When; old?: boolean } = {},
): TxItem {
  const names: Record<string, string> = {};
  const values: Record<string, unknown> = {};
  const when = options.when ?? (e.decl.create === 'replace' ? undefined : { exists: false });
  const key = 'PK' in keyValues && 'SK' in keyValues && Object.keys(keyValues).length === 2 ? (keyValues as Key) : e.key(keyValues);
  return {
    Put: {
      TableName: tableName(),
      Item: toItem({ ...key, entity: e.tag, ...item }),
      ...expressionFields({ ConditionExpression: condition(when, names, values) }, names, values),
      ...returnOld(options.old),
    },
  };
}

export interface Change {
  set?: Record<string, unknown>;
  /** SET a = if_not_exists(a, :a): set once, never replaced. */
  setOnce?: Record<string, unknown>;
  add?: Record<string, number>;
  remove?: readonly string[];
  when?: When;
  /** The item as it was when the condition refused (ReturnValuesOnConditionCheckFailure ALL_OLD). */
  old?: boolean;
  /** The update may create the item: SET its `entity` tag too. */
  upsert?: boolean;
}

function allowed(e: Entity, attribute: string): boolean {
  const declared = e.decl.updates;
  const top = attribute.split('.')[0]!;
  return !declared || top === 'entity' || declared.some((a) => a === top || (a.endsWith('*') && top.startsWith(a.slice(0, -1))));
}

/** An Update of the entity's item at `key`: SET, SET-once, ADD and REMOVE built from plain objects, under `when`. */
export function update(e: Entity, key: Key, change: Change): TxItem {
  const names: Record<string, string> = {};
  const values: Record<string, unknown> = {};
  const clauses: string[] = [];
  const attributes = [change.set, change.setOnce, change.add].flatMap((o) => Object.keys(o ?? {})).concat(change.remove ?? []);
  const refused = attributes.filter((a) => !allowed(e, a));
  if (refused.length) throw new Error(`${e.tag}: update of undeclared attribute(s) ${refused.join(', ')} (shared/store/entities.ts)`);
  const assign = (o: Record<string, unknown> | undefined, once: boolean) =>
    Object.entries(o ?? {}).map(([a, v]) => {
      const n = name(a, names);
      values[`:${token(a)}`] = v;
      return once ? `${n} = if_not_exists(${n}, :${token(a)})` : `${n} = :${token(a)}`;
    });
  const sets = [...assign(change.upsert ? { ...change.set, entity: e.tag } : change.set, false), ...assign(change.setOnce, true)];
  if (sets.length) clauses.push(`SET ${sets.join(', ')}`);
  const adds = Object.entries(change.add ?? {}).map(([a, v]) => {
    values[`:${token(a)}`] = v;
    return `${name(a, names)} :${token(a)}`;
  });
  if (adds.length) clauses.push(`ADD ${adds.join(', ')}`);
  if (change.remove?.length) clauses.push(`REMOVE ${change.remove.map((a) => name(a, names)).join(', ')}`);
  const conditionExpression = condition(change.when, names, values);
  return {
    Update: {
      TableName: tableName(),
      Key: toItem(key),
      UpdateExpression: clauses.join(' '),
      ...expressionFields({ ConditionExpression: conditionExpression }, names, values),
      ...returnOld(change.old),
    },
  };
}

/** A ConditionCheck of the entity's item at `key` (another item's state a transaction depends on). */
export function check(_e: Entity, key: Key, when: When): TxItem {
  const names: Record<string, string> = {};
  const values: Record<string, unknown> = {};
  const expression = condition(when, names, values)!;
  return {
    ConditionCheck: {
      TableName: tableName(),
      Key: toItem(key),
      ...expressionFields({ ConditionExpression: expression }, names, values),
    } as never,
  };
}

/** A Delete of the entity's item at `key`, under `when` if given. */
export function remove(_e: Entity, key: Key, when?: When): TxItem {
  const names: Record<string, string> = {};
  const values: Record<string, unknown> = {};
  return {
    Delete: {
      TableName: tableName(),
      Key: toItem(key),
      ...expressionFields({ ConditionExpression: condition(when, names, values) }, names, values),
    },
  };
}

/** The entity's item at `key` (GetItem; consistent unless told), undefined when none. */
export async function get<T = Record<string, unknown>>(key: Key, consistent = true): Promise<T | undefined> {
  const out = await db().send(new GetItemCommand({ TableName: tableName(), Key: toItem(key), ConsistentRead: consistent }));
  return out.Item ? fromItem<T>(out.Item) : undefined;
}

/**
 * One write of a transaction entry on its own (PutItem, UpdateItem or DeleteItem): false when its condition refused it.
 * `returnValues` (an UpdateItem's ReturnValues) hands back the attributes asked for.
 */
export async function write(item: TxItem, returnValues?: ReturnValue): Promise<{ ok: boolean; attributes?: Record<string, unknown> }> {
  try {
    if (item.Put) await db().send(new PutItemCommand(item.Put));
    else if (item.Delete) await db().send(new DeleteItemCommand(item.Delete));
    else if (item.Update) {
      const out = await db().send(new UpdateItemCommand({ ...item.Update, ...(returnValues ? { ReturnValues: returnValues } : {}) }));
      return { ok: true, ...(out.Attributes ? { attributes: fromItem(out.Attributes) } : {}) };
    } else throw new Error('write: a Put, Update or Delete');
    return { ok: true };
  } catch (error) {
    if ((error as { name?: string }).name === 'ConditionalCheckFailedException') return { ok: false };
    throw error;
  }
}
