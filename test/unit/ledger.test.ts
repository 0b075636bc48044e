import { describe, expect, it } from 'vitest';
import { holdFunds, journal, releaseHold, UnbalancedJournal } from '#shared/domain/ledger.ts';

const base = { merchantId: 'm1', mode: 'test' as const, currency: 'PKR' as const, kind: 'x', reference: 'r' };

describe('double-entry journals', () => {
  it('sum to zero and report the wallet delta', () => {
    const { journal: j, delta } = journal({
      ...base,
      movements: [
        { account: { kind: 'available' }, amount: -1300 },
        { account: { kind: 'held', holdType: 'Withdrawal' }, amount: 1300 },
      ],
    });
    expect(j.lines.reduce((s, l) => s + l.amount, 0)).toBe(0);
    expect(j.lines.map((l) => l.account)).toEqual(['merchant:m1:available', 'merchant:m1:held:Withdrawal']);
    expect(delta).toEqual({ available: -1300, held: { Withdrawal: 1300 } });
  });

  it('refuses unbalanced, fractional or one-sided journals', () => {
    expect(() =>
      journal({
        ...base,
        movements: [
          { account: { kind: 'available' }, amount: 5 },
          { account: { kind: 'fees' }, amount: -4 },
        ],
      }),
    ).toThrow(UnbalancedJournal);
    expect(() =>
      journal({
        ...base,
        movements: [
          { account: { kind: 'available' }, amount: 0.5 },
          { account: { kind: 'fees' }, amount: -0.5 },
        ],
      }),
    ).toThrow(RangeError);
    expect(() => journal({ ...base, movements: [{ account: { kind: 'available' }, amount: 5 }] })).toThrow(UnbalancedJournal);
  });

  it('holds and releases funds between available and a hold bucket, and back to where they were', () => {
    const scope = { merchantId: 'm1', mode: 'test' as const, currency: 'PKR' as const, reference: 's1' };
    const hold = holdFunds(scope, 'Settlement', 700, 'settlement.hold');
    const release = releaseHold(scope, 'Settlement', 700, 'settlement.cancelled');
    expect(hold.delta).toEqual({ available: -700, held: { Settlement: 700 } });
    expect(release.delta).toEqual({ available: 700, held: { Settlement: -700 } });
    expect([hold, release].map((j) => j.journal.kind)).toEqual(['settlement.hold', 'settlement.cancelled']);
  });
});
