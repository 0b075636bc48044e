import { describe, expect, it } from 'vitest';
import { feeFor, fromMinor, MoneyFormatError, toMinor } from '#shared/domain/money.ts';

describe('money in minor units', () => {
  it('converts decimals without floating-point error', () => {
    expect(toMinor(0.1, 'PKR')).toBe(10);
    expect(toMinor(1.15, 'USD')).toBe(115); // 1.15 * 100 = 114.99999999999999 in floats
    expect(toMinor(100.5, 'PKR')).toBe(10050);
    expect(toMinor(12.345678, 'USDT')).toBe(12345678);
    expect(toMinor(5000, 'PKR')).toBe(500000);
  });

  it('refuses more decimals than the currency allows, negatives, exponents and overflow', () => {
    expect(() => toMinor(10.123, 'PKR')).toThrow(MoneyFormatError);
    expect(() => toMinor(-1, 'PKR')).toThrow(MoneyFormatError);
    expect(() => toMinor(1e21, 'PKR')).toThrow(MoneyFormatError);
    expect(() => toMinor(1e-7, 'USDT')).toThrow(MoneyFormatError);
    expect(() => toMinor(Number.NaN, 'PKR')).toThrow(MoneyFormatError);
    expect(() => toMinor(1e15, 'PKR')).toThrow(MoneyFormatError); // 1e17 minor units: not a safe integer
  });

  it('round-trips to the decimal a merchant sees', () => {
    for (const [minor, currency, shown] of [
      [115, 'USD', 1.15],
      [5, 'PKR', 0.05],
      [-250, 'PKR', -2.5],
      [1, 'USDT', 0.000001],
      [0, 'PKR', 0],
    ] as const) {
      expect(fromMinor(minor, currency)).toBe(shown);
      expect(toMinor(Math.abs(fromMinor(minor, currency)), currency)).toBe(Math.abs(minor));
    }
  });

  it('computes fees in integers, rounding half up', () => {
    expect(feeFor(10000, { basisPoints: 250, fixedMinor: 0 })).toBe(250);
    expect(feeFor(1, { basisPoints: 5000, fixedMinor: 0 })).toBe(1); // 0.5 rounds up
    expect(feeFor(30000, { basisPoints: 100, fixedMinor: 1000 })).toBe(1300);
  });
});
