import { describe, expect, it } from 'vitest';
import * as entities from '#shared/store/entities.ts';
import { readFileSync } from 'node:fs';
import { fill, literalHead, putEntry as put, updateEntry as update } from '#shared/store/entity.ts';
import * as keys from '#shared/store/keys.ts';
import { indexBuilderFamilies, keysGenPath, renderKeys } from '../../scripts/store-keys.ts';
import * as before from '../fixtures/keys-before.ts';

/**
 * The declaration layer (shared/store/entities.ts) must build byte-identical keys: items stored before it must still be
 * read, updated and found by their indexes. Every builder of keys.ts is compared with its hand-written predecessor
 * (test/fixtures/keys-before.ts) for sample values, shard 0 and a higher shard.
 */
const subjectBuilders = new Set(['eventHome', 'outboxEvent', 'eventsOf', 'webhookDelivery', 'webhookResend']);
const subjects = [
  { kind: 'transaction', id: 'txn-1' },
  { kind: 'refund', id: 'ref-2' },
  { kind: 'settlement', id: 'set-3' },
] as const;
type Builder = (...args: unknown[]) => unknown;
/** shardKey: a listing's shard suffix is now part of the templates (`{#shard?}`), compared through every sharded builder. */
const retired = new Set(['shardKey']);
const builders = (Object.entries(before) as [string, unknown][]).filter(
  (e): e is [string, Builder] => typeof e[1] === 'function' && !retired.has(e[0]),
);

describe('the key builders derived from the declarations', () => {
  it('exports every builder there was', () => {
    expect(builders.length).toBeGreaterThan(80);
    for (const [name] of builders) expect(typeof (keys as unknown as Record<string, unknown>)[name], name).toBe('function');
  });

  it.each(builders)('%s builds the same keys as before', (name, old) => {
    const derived = (keys as unknown as Record<string, Builder>)[name]!;
    const strings = ['m_1', 'test', 'PKR', '2026-11-29T02:00:00.000Z', 'id#9', 'x', 'y', 'z'];
    const firsts: unknown[][] = subjectBuilders.has(name) ? subjects.map((s) => [s]) : [[], ['live'], ['payout'], ['refund']];
    for (const first of firsts) {
      const rest = strings.slice(0, Math.max(0, old.length + 2 - first.length));
      for (const extra of [[], [0], [1], [7]]) {
        const args = [...first, ...rest.slice(0, Math.max(0, old.length - first.length)), ...extra];
        expect(derived(...args), `${name}(${args.join(', ')})`).toEqual(old(...args));
      }
    }
  });

  it('derives the IAM partition families unchanged', () => {
    expect(keys.partitionPrefixes).toEqual(before.partitionPrefixes);
    expect(Object.keys(keys.partitionPrefixes).sort()).toEqual(Object.keys(before.partitionPrefixes).sort());
  });

  it('derives the index partition families: every index partition key a builder makes is in its family (IAM index Query)', () => {
    const families = indexBuilderFamilies();
    expect(Object.keys(families).length).toBeGreaterThan(20);
    const like = (pattern: string, value: string) => (pattern.endsWith('*') ? value.startsWith(pattern.slice(0, -1)) : value === pattern);
    for (const [name, { family }] of Object.entries(families)) {
      const pattern = (keys.indexPartitions as Record<string, string>)[family]!;
      const builder = (keys as unknown as Record<string, Builder>)[name]!;
      for (const shard of [0, 3]) {
        const args = [...['m_1', 'test', 'PKR', '2026-11-29T02:00:00.000Z', 'id#9', 'x', 'y'].slice(0, builder.length), shard];
        const built = builder(...args);
        const values =
          typeof built === 'string'
            ? [built]
            : Array.isArray(built)
              ? built
              : Object.entries(built as object)
                  .filter(([attribute]) => /^GSI\dPK$/.test(attribute))
                  .map(([, value]) => value as string);
        expect(values.length, name).toBeGreaterThan(0);
        for (const value of values) expect(like(pattern, value), `${name}: ${value} in ${pattern}`).toBe(true);
      }
    }
    // No family's pattern takes in another's partitions (MERCHANT#* is not MERCHANTS; DUE#* is not MONEYDUE#…).
    const patterns = Object.values(keys.indexPartitions) as string[];
    for (const a of patterns) for (const b of patterns) if (a !== b) expect(like(a, b.replace(/\*$/, 'x')), `${a} / ${b}`).toBe(false);
  });

  it('is generated from the declarations as they are (run `npm run docs` after changing shared/store/entities.ts)', () => {
    expect(readFileSync(keysGenPath, 'utf8'), 'shared/store/keys.gen.ts is stale: run `npm run docs`').toBe(renderKeys());
  });

  it('declares each entity once, every builder of one entity', () => {
    const declared = entities.allEntities.map((e) => `${e.tag} ${e.pk} ${e.sk}`);
    expect(new Set(declared).size).toBe(declared.length);
    const builders = entities.allEntities.flatMap((e) => Object.keys(e.keys));
    expect(new Set(builders).size).toBe(builders.length);
    expect(Object.values(entities).filter((v) => typeof v === 'object' && v !== null && 'pk' in v)).toHaveLength(
      entities.allEntities.length,
    );
  });
});

describe('the declaration layer', () => {
  it('fills templates, with optional shard parts only for a shard above 0', () => {
    expect(fill('MERCHANT#{merchantId}{#SHARD#shard?}', { merchantId: 'm', shard: 0 })).toBe('MERCHANT#m');
    expect(fill('MERCHANT#{merchantId}{#SHARD#shard?}', { merchantId: 'm', shard: 2 })).toBe('MERCHANT#m#SHARD#2');
    expect(() => fill('TXN#{paymentIntentId}', {})).toThrow(/paymentIntentId/);
    expect(literalHead('BANKFILE#LINE#{reference}')).toBe('BANKFILE#LINE#');
  });

  it('builds a Put created if absent, with the entity tag, and replaces only what is declared to be replaced', () => {
    process.env.TABLE_NAME ??= 'gateway';
    const item = put(entities.PayoutMaker.tag, keys.payoutMaker('test', 'm', 'o'), { userId: 'u' });
    expect(item.Put?.ConditionExpression).toBe('attribute_not_exists(PK)');
    expect(item.Put?.Item).toMatchObject({ PK: { S: 'PAYOUTMAKER#test#m#o' }, entity: { S: 'PayoutMaker' }, userId: { S: 'u' } });
    expect(put(entities.SandboxReceipt.tag, keys.sandboxReceipt('r', 'x'), {}, { when: false }).Put?.ConditionExpression).toBeUndefined();
    expect(() => put(entities.SandboxReceipt.tag, keys.sandboxReceipt('r', 'x'), {})).toThrow(/replace/);
    expect(() => put(entities.PayoutMaker.tag, keys.payoutMaker('test', 'm', 'o'), {}, { when: false })).toThrow(/replace/);
  });

  it('lets the webhook store write only what each of its entities declares', () => {
    process.env.TABLE_NAME ??= 'gateway';
    const delivery = keys.webhookDeliveryIn('TXN#t', 'e');
    // A delivery is Put pending with its event (if absent), then replaced whole by the dispatcher.
    expect(put(entities.WebhookDelivery.tag, delivery, {}, { when: { exists: false } }).Put?.ConditionExpression).toBe(
      'attribute_not_exists(PK)',
    );
    expect(put(entities.WebhookDelivery.tag, delivery, {}, { when: false }).Put?.ConditionExpression).toBeUndefined();
    expect(() => put(entities.EventFeed.tag, keys.eventFeed('e'), {}, { when: false })).toThrow(/replace/);
    // The sweep moves only the due-index keys of outbox and delivery items; a link's counters, a destination's health.
    expect(() => update(entities.WebhookDelivery.tag, delivery, { remove: ['GSI2PK', 'GSI2SK'] })).not.toThrow();
    expect(() => update(entities.WebhookDelivery.tag, delivery, { set: { state: 'delivered' } })).toThrow(/undeclared/);
    expect(() => update(entities.OutboxEvent.tag, delivery, { set: { event: {} } })).toThrow(/undeclared/);
    expect(() => update(entities.PaymentLink.tag, keys.paymentLink('l'), { add: { usesHeld: 1 } })).not.toThrow();
    expect(() => update(entities.PaymentLink.tag, keys.paymentLink('l'), { set: { maxPayments: 9 } })).toThrow(/undeclared/);
    const health = keys.webhookHealth('m', 'test', 'h');
    expect(() => update(entities.WebhookHealth.tag, health, { set: { disabledAt: null }, upsert: true })).not.toThrow();
    expect(() => update(entities.WebhookHealth.tag, health, { set: { secret: 'x' } })).toThrow(/undeclared/);
    for (const tag of [entities.EventPointer.tag, entities.EventFeed.tag, entities.WebhookAttempt.tag, entities.WebhookResend.tag])
      expect(() => update(tag, delivery, { set: { x: 1 } }), tag).toThrow(/undeclared/);
  });

  it('builds an Update from plain objects and refuses attributes the entity does not declare', () => {
    process.env.TABLE_NAME ??= 'gateway';
    const u = update(entities.DashInvite.tag, keys.dashInvite('h'), {
      set: { usedAt: 'now' },
      when: { exists: true, eq: { usedAt: null } },
    });
    expect(u.Update?.UpdateExpression).toBe('SET #usedAt = :usedAt');
    expect(u.Update?.ConditionExpression).toBe('attribute_exists(PK) AND #usedAt = :was_usedAt');
    expect(u.Update?.ExpressionAttributeValues).toEqual({ ':usedAt': { S: 'now' }, ':was_usedAt': { NULL: true } });
    expect(() => update(entities.DashInvite.tag, keys.dashInvite('h'), { set: { userId: 'u' } })).toThrow(/undeclared/);
  });
});
