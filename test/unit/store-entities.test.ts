import { describe, expect, it } from 'vitest';
import * as entities from '#shared/store/entities.ts';
import { fill, literalHead, partitionOf, prefix, put, update } from '#shared/store/entity.ts';
import * as keys from '#shared/store/keys.ts';
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
const builders = (Object.entries(before) as [string, unknown][]).filter((e): e is [string, Builder] => typeof e[1] === 'function');

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

  it('declares every entity tag once', () => {
    const tags = entities.allEntities.map((e) => `${e.tag} ${e.decl.pk} ${e.decl.sk}`);
    expect(new Set(tags).size).toBe(tags.length);
    expect(Object.values(entities).filter((v) => typeof v === 'object' && v !== null && 'decl' in v)).toHaveLength(
      entities.allEntities.length,
    );
  });
});

describe('the declaration layer', () => {
  it('fills templates, with optional shard parts only for a shard above 0', () => {
    expect(fill('MERCHANT#{merchantId}{#SHARD#shard?}', { merchantId: 'm', shard: 0 })).toBe('MERCHANT#m');
    expect(fill('MERCHANT#{merchantId}{#SHARD#shard?}', { merchantId: 'm', shard: 2 })).toBe('MERCHANT#m#SHARD#2');
    expect(() => fill('TXN#{paymentIntentId}', {})).toThrow(/paymentIntentId/);
    expect(prefix('JOURNAL#{mode}#{createdAt}#{journalId}', { mode: 'test' })).toBe('JOURNAL#test#');
    expect(literalHead('BANKFILE#LINE#{reference}')).toBe('BANKFILE#LINE#');
    expect(partitionOf(entities.Wallet, { merchantId: 'm', mode: 'live', shard: 1 })).toEqual({
      PK: 'MERCHANT#m#SHARD#1',
      SKPrefix: 'WALLET#live#',
    });
  });

  it('builds a Put created if absent, with the entity tag', () => {
    process.env.TABLE_NAME ??= 'gateway';
    const item = put(entities.SandboxReceipt, { rail: 'r', reference: 'x' }, { receivedAt: 't' });
    expect(item.Put?.ConditionExpression).toBe('attribute_not_exists(PK)');
    expect(item.Put?.Item).toMatchObject({
      PK: { S: 'SANDBOX#r#x' },
      SK: { S: 'RECEIPT' },
      entity: { S: 'SandboxReceipt' },
      receivedAt: { S: 't' },
    });
    expect(put(entities.EventFeed, { eventId: 'e' }, {}).Put?.ConditionExpression).toBeUndefined();
  });

  it('builds an Update from plain objects and refuses attributes the entity does not declare', () => {
    process.env.TABLE_NAME ??= 'gateway';
    const u = update(entities.DashInvite, keys.dashInvite('h'), { set: { usedAt: 'now' }, when: { exists: true, eq: { usedAt: null } } });
    expect(u.Update?.UpdateExpression).toBe('SET #usedAt = :usedAt');
    expect(u.Update?.ConditionExpression).toBe('attribute_exists(PK) AND (attribute_not_exists(#usedAt) OR #usedAt = :null)');
    expect(() => update(entities.DashInvite, keys.dashInvite('h'), { set: { userId: 'u' } })).toThrow(/undeclared/);
  });
});
