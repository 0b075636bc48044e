import { randomBytes } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { defaultSchedule, nextSettlementRun } from '#shared/domain/merchant.ts';
import { deriveMasterKey, open, seal } from '#shared/crypto/seal.ts';

describe('settlement schedule', () => {
  const now = new Date('2026-11-22T07:30:00Z'); // a Sunday
  it('computes the next run for each frequency', () => {
    expect(nextSettlementRun(defaultSchedule, now)).toBeNull();
    expect(nextSettlementRun({ ...defaultSchedule, frequency: 'daily', hourUtc: 6 }, now)?.toISOString()).toBe('2026-11-23T06:00:00.000Z');
    expect(nextSettlementRun({ ...defaultSchedule, frequency: 'daily', hourUtc: 9 }, now)?.toISOString()).toBe('2026-11-22T09:00:00.000Z');
    expect(nextSettlementRun({ ...defaultSchedule, frequency: 'weekly', dayOfPeriod: 1, hourUtc: 2 }, now)?.toISOString()).toBe(
      '2026-11-23T02:00:00.000Z',
    );
    expect(nextSettlementRun({ ...defaultSchedule, frequency: 'weekly', dayOfPeriod: 7, hourUtc: 2 }, now)?.toISOString()).toBe(
      '2026-11-29T02:00:00.000Z',
    );
    expect(nextSettlementRun({ ...defaultSchedule, frequency: 'monthly', dayOfPeriod: 1, hourUtc: 0 }, now)?.toISOString()).toBe(
      '2026-12-01T00:00:00.000Z',
    );
  });
});

describe('sealed secrets', () => {
  const key = deriveMasterKey(randomBytes(32).toString('base64'));
  it('open what they sealed, bound to their item', () => {
    const sealed = seal(key, 'sk_test_abc', 'secret:key_1');
    expect(sealed).not.toContain('sk_test_abc');
    expect(open(key, sealed, 'secret:key_1')).toBe('sk_test_abc');
    expect(() => open(key, sealed, 'secret:key_2')).toThrow();
    expect(() => open(deriveMasterKey(randomBytes(32).toString('base64')), sealed, 'secret:key_1')).toThrow();
  });
});
