import { describe, expect, it } from 'vitest';
import { isRefusal } from '#shared/domain/core/decision.ts';
import { decideTestCredit, type TestCreditMarker } from '#shared/domain/core/wallet.ts';
import { feeRefusal } from '#shared/domain/merchant.ts';

/**
 * The operator's money commands decided by the money core: a test credit under a reference that ran before is a replay
 * (nothing credited again) when it asks the same amount and currency, and refused when it asks another.
 */
const ask = { amountMinor: 500_00, currency: 'PKR', reference: 'operator:topup-1' } as const;
const marker: TestCreditMarker = { reference: 'topup-1', journalId: 'j-1', amountMinor: 500_00, currency: 'PKR' };
const outcome = (d: ReturnType<typeof decideTestCredit>) =>
  isRefusal(d) ? [d.refused, d.message] : [d.state.replay, d.journals.map((j) => j.movements.map((m) => m.amount))];

describe('the operator test credit', () => {
  it('credits once from the sandbox funding account, in test mode only', () => {
    expect(outcome(decideTestCredit('test', ask))).toEqual([false, [[-500_00, 500_00]]]);
    expect(outcome(decideTestCredit('live', ask))[0]).toBe('invalid_status');
    expect(outcome(decideTestCredit('test', { ...ask, amountMinor: 0 }))[0]).toBe('invalid_request');
  });

  it('answers a replay of the same reference as before and credits nothing again', () => {
    expect(outcome(decideTestCredit('test', ask, marker))).toEqual([true, []]);
  });

  it('refuses the same reference with another amount or currency', () => {
    const message = 'reference topup-1 already credited 50000 minor units of PKR; use a new reference for a different credit';
    expect(outcome(decideTestCredit('test', { ...ask, amountMinor: 600_00 }, marker))).toEqual(['invalid_request', message]);
    expect(outcome(decideTestCredit('test', { ...ask, currency: 'USD' }, marker))).toEqual(['invalid_request', message]);
  });
});

describe('a fee rate the operator sets', () => {
  it('takes 0-10,000 whole basis points and a whole fixed part >= 0, and refuses any other', () => {
    for (const fee of [
      { basisPoints: 0, fixedMinor: 0 },
      { basisPoints: 10_000, fixedMinor: 1_000_00 },
    ])
      expect(feeRefusal(fee)).toBeUndefined();
    for (const basisPoints of [-1, 10_001, 2.5, Number.NaN])
      expect(feeRefusal({ basisPoints, fixedMinor: 0 })).toBe('basis points must be 0-10000');
    for (const fixedMinor of [-1, 0.5, Number.MAX_SAFE_INTEGER + 1])
      expect(feeRefusal({ basisPoints: 100, fixedMinor })).toBe('fixed fee must be >= 0 minor units');
  });
});
