import { describe, expect, it } from 'vitest';
import { feeAtCreation, paymentFee } from '#shared/domain/core/intent.ts';

/** The money core's fee at creation (shared/domain/core/intent.ts): the one rule deposit and checkout creation take. */
describe('feeAtCreation', () => {
  const rate = { basisPoints: 250, fixedMinor: 10_00 };

  it("fixes a deposit's fee at its rate (basis points rounded half up, plus the fixed part)", () => {
    // 2.5 % of 1,234.50 is 30.8625 → 30.86, plus 10.00.
    expect(feeAtCreation('deposit', 1_234_50, rate)).toBe(40_86);
    expect(feeAtCreation('deposit', 1_234_50, rate)).toBe(paymentFee(1_234_50, rate));
  });

  it('never makes the fee more than the amount (the credit net of it is never negative)', () => {
    expect(feeAtCreation('deposit', 5_00, rate)).toBe(5_00);
    expect(paymentFee(1, { basisPoints: 0, fixedMinor: 2 })).toBe(1);
  });

  it("leaves a checkout's fee to the attempt that pays it (0 at creation, whatever the rate)", () => {
    expect(feeAtCreation('checkout', 1_234_50, rate)).toBe(0);
  });
});
