import { GetItemCommand } from '@aws-sdk/client-dynamodb';
import { db, fromItem, tableName, toItem, toValues, type TxItem } from './client.ts';
import type { Key } from './key-parts.ts';

/*
 * The declaration layer of the one table (issue 40). Each entity is declared once in shared/store/entities.ts; its key
 * builders are generated from there (shared/store/keys.gen.ts) and its writes built here: Put, Update, ConditionCheck
 * and Delete entries from plain objects, so no store file writes an expression, a TableName or a marshalling call.
 * Written here, not taken from ElectroDB or dynamodb-toolbox: those add about 290 kB / 130 kB to every Lambda (budget
 * 300 kB, most Lambdas within a few hundred bytes of theirs); this is about 1.5 kB minified and no dependency.
 *
 * Key templates: `{name}` is a value; `{lit name?}` is optional: `lit` and the value, or nothing when the value is
 * 0 or absent (a shard suffix: `MERCHANT#{merchantId}{#SHARD#shard?}` is `MERCHANT#m` for shard 0, `MERCHANT#m#SHARD#2`
 * for shard 2). Everything else is literal.
 */

/** A template filled with `values`; a missing required value is a bug (thrown). */
export function fill(template: string, values: Record<string, string | number | undefined>): string {
  return template.replace(/\{([^{}]*?)(\w+)(\?)?\}/g, (_all, lit: string, name: string, optional?: string) => {
    const value = values[name];
    if (optional) return value === undefined || value === 0 || value === '' ? '' : `${lit}${value}`;
    if (value === undefined) throw new Error(`key template ${template}: no value for ${name}`);
    return `${lit}${value}`;
  });
}

/** The literal text before a template's first value: the partition family's `dynamodb:LeadingKeys` prefix. */
export const literalHead = (template: string) => template.split('{')[0]!;

export interface EntityDecl {
  /** The `entity` attribute every item carries. */
  readonly tag: string;
  /** The IAM partition family (infra `dynamodb:LeadingKeys`) the items belong to; none for items in another entity's partition. */
  readonly family?: string;
  readonly pk: string;
  readonly sk: string;
  /** Each index entry: its partition and sort key attributes and their templates (`{ GSI1PK: '…', GSI1SK: '…' }`). */
  readonly indexes?: Readonly<Record<string, Readonly<Record<string, string>>>>;
  /** The attributes an update may SET, ADD or REMOVE (top level; `held_*`: any with that start; `*`: any). Undeclared: not checked. */
  readonly updates?: readonly string[];
  /**
   * How a Put creates it: `ifAbsent` (default: `attribute_not_exists(PK)`, never overwritten), `replace` (no condition) or
   * `ifAbsentThenReplaced` (created if absent, later Puts replace it whole).
   */
  readonly create?: 'ifAbsent' | 'replace' | 'ifAbsentThenReplaced';
  /** The key builders generated into shared/store/keys.gen.ts: name → `shape(params; slot = expression)` (entities.ts). */
  readonly keys: Readonly<Record<string, string>>;
}

/**
 * Where the declarations are loaded (tests, scripts: entities.ts installs it), every write is checked against its
 * entity's declaration: a Put replaces only an entity declared to be replaced, an update changes only declared
 * attributes. Lambdas never load the declarations, so they carry no check.
 */
let checkWrite: ((tag: string, write: Change & { replace?: boolean }) => void) | undefined;
export const checkWritesWith = (check: typeof checkWrite) => {
  checkWrite = check;
};

/**
 * A write's condition: `exists` (`attribute_exists(PK)`, or `attribute_not_exists(PK)` when false), `eq` (each attribute
 * equals the value, a stored null included), and `expr` (any further condition with its own `:values` and `#names`; an
 * update's own `#attribute` and `:attribute` placeholders may be used too), ANDed.
 */
export interface When {
  exists?: boolean;
  eq?: Record<string, unknown>;
  expr?: string;
  names?: Record<string, string>;
  values?: Record<string, unknown>;
}

/**
 * One entry's expressions: `#a` placeholders for attributes (a dotted path: `#a.#b`), `:a` for values; `entry` ends it
 * with the condition (`when`) and the table, key and refusal fields of a transaction entry.
 */
function expressions(when: When | undefined) {
  const names: Record<string, string> = {};
  const values: Record<string, unknown> = {};
  const name = (attribute: string) =>
    attribute.replace(/\w+/g, (part) => {
      names[`#${part}`] = part;
      return `#${part}`;
    });
  const value = (placeholder: string, v: unknown) => {
    const p = `:${placeholder.replace(/\W/g, '_')}`;
    values[p] = v;
    return p;
  };
  const entry = (key?: Key, old?: boolean) => {
    const parts = when?.exists === undefined ? [] : [`attribute_${when.exists ? '' : 'not_'}exists(PK)`];
    for (const [a, v] of Object.entries(when?.eq ?? {})) parts.push(`${name(a)} = ${value(`was_${a}`, v)}`);
    if (when?.expr) parts.push(when.expr);
    Object.assign(names, when?.names);
    Object.assign(values, when?.values);
    return {
      TableName: tableName(),
      ...(key && { Key: toItem(key) }),
      ...(parts.length > 0 && { ConditionExpression: parts.join(' AND ') }),
      ...(Object.keys(names).length > 0 && { ExpressionAttributeNames: names }),
      ...(Object.keys(values).length > 0 && { ExpressionAttributeValues: toValues(values) }),
      ...(old && { ReturnValuesOnConditionCheckFailure: 'ALL_OLD' as const }),
    };
  };
  return { name, value, entry };
}

/**
 * A Put of a whole item of the entity tagged `tag`: its key, the tag, then `item` (index keys and attributes). Created
 * only if absent (`attribute_not_exists(PK)`) unless `when` says otherwise (false: whatever is there is replaced, for
 * the entities declared `create: 'replace'`). `old`: the refusal carries the item as it was (ALL_OLD).
 */
export function putEntry(
  tag: string,
  key: Key,
  item: Record<string, unknown>,
  options: { when?: When | false; old?: boolean } = {},
): TxItem {
  checkWrite?.(tag, { replace: options.when === false });
  const x = expressions(options.when === false ? undefined : (options.when ?? { exists: false }));
  return { Put: { ...x.entry(undefined, options.old), Item: toItem({ ...key, entity: tag, ...item }) } };
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

/** An Update of the item at `key` (of the entity tagged `tag`): SET, SET-once, ADD and REMOVE built from plain objects, under `when`. */
export function updateEntry(tag: string, key: Key, change: Change): TxItem {
  const set = change.upsert ? { ...change.set, entity: tag } : (change.set ?? {});
  checkWrite?.(tag, change);
  const x = expressions(change.when);
  const sets = [
    ...Object.entries(set).map(([a, v]) => `${x.name(a)} = ${x.value(a, v)}`),
    ...Object.entries(change.setOnce ?? {}).map(([a, v]) => `${x.name(a)} = if_not_exists(${x.name(a)}, ${x.value(a, v)})`),
  ];
  const adds = Object.entries(change.add ?? {}).map(([a, v]) => `${x.name(a)} ${x.value(a, v)}`);
  const clauses = [
    sets.length ? `SET ${sets.join(', ')}` : '',
    adds.length ? `ADD ${adds.join(', ')}` : '',
    change.remove?.length ? `REMOVE ${change.remove.map(x.name).join(', ')}` : '',
  ];
  return { Update: { UpdateExpression: clauses.filter(Boolean).join(' '), ...x.entry(key, change.old) } as never };
}

/** A ConditionCheck of the item at `key` (another item's state a transaction depends on). */
export const checkEntry = (key: Key, when: When): TxItem => ({ ConditionCheck: { ...expressions(when).entry(key) } as never });

/** A Delete of the item at `key`, under `when` if given. */
export const deleteEntry = (key: Key, when?: When): TxItem => ({ Delete: { ...expressions(when).entry(key) } as never });

/** A Query's key condition for the items of a partition whose sort key begins with `SKPrefix` (all of it: no prefix). */
export const inPartition = (k: { PK: string; SKPrefix?: string }) => ({
  KeyConditionExpression: k.SKPrefix ? 'PK = :pk AND begins_with(SK, :sk)' : 'PK = :pk',
  ExpressionAttributeValues: toValues(k.SKPrefix ? { ':pk': k.PK, ':sk': k.SKPrefix } : { ':pk': k.PK }),
});

/** The item at `key` (GetItem; consistent unless told), undefined when none. */
export async function get<T = Record<string, unknown>>(key: Key, consistent = true): Promise<T | undefined> {
  const out = await db().send(new GetItemCommand({ TableName: tableName(), Key: toItem(key), ConsistentRead: consistent }));
  return out.Item ? fromItem<T>(out.Item) : undefined;
}

/**
 * A conditional write sent on its own (`db().send(new UpdateItemCommand(updateEntry(…).Update))`, the command named where it
 * is sent, so test/support/code-needs.ts sees which module calls what): its output, or undefined when its condition refused it.
 */
export async function applied<T>(sent: Promise<T>): Promise<T | undefined> {
  try {
    return await sent;
  } catch (error) {
    if ((error as { name?: string }).name === 'ConditionalCheckFailedException') return undefined;
    throw error;
  }
}
