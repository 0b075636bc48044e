import { describe, expect, it } from 'vitest';
import { checkoutMinimumMinor, checkoutRefusal, depositRefusal, newIntent, type NewIntent } from '#shared/domain/core/intent.ts';

/**
 * An intent's creation rules are the money core's, once (shared/domain/core/intent.ts): a checkout's minimum (the API,
 * a payment link's prices and its page ask the same one), a deposit's currency and provider minimum, and the new
 * intent's status, fee at creation and window.
 */
const now = new Date('2026-11-29T06:00:00.000Z');
const request = (over: Partial<NewIntent> = {}): NewIntent => ({
  paymentIntentId: 'p1',
  merchantId: 'm1',
  mode: 'test',
  intentType: 'checkout',
  amountMinor: 1_000_00,
  currency: 'PKR',
  feeRate: { basisPoints: 200, fixedMinor: 0 },
  orderRef: { orderRef: 'O1' },
  customerRef: null,
  description: 'order',
  metadataJson: null,
  callbackUrl: null,
  transactionReference: 'T1',
  traceId: 'trace',
  details: {},
  ...over,
});

describe('the rules of a new checkout or deposit', () => {
  it('a checkout takes more than 10 in its currency, not 10', () => {
    expect(checkoutMinimumMinor('PKR')).toBe(10_00);
    expect(checkoutRefusal(10_00, 'PKR')).toEqual({
      refused: 'amount_below_minimum',
      message: 'The checkout amount must be greater than 10 PKR.',
    });
    expect(checkoutRefusal(10_01, 'PKR')).toBeUndefined();
    expect(checkoutRefusal(10_00, 'USD')).toMatchObject({ message: 'The checkout amount must be greater than 10 USD.' });
  });

  it("a deposit is in PKR and at least its wallet provider's minimum", () => {
    expect(depositRefusal(1_000_00, 'USD', 1)).toEqual({ refused: 'unsupported_currency', message: 'JazzCash charges in PKR only.' });
    expect(depositRefusal(99_99, 'PKR', 1)).toEqual({
      refused: 'amount_below_minimum',
      message: 'The minimum deposit with JazzCash is 100 PKR.',
    });
    expect(depositRefusal(100_00, 'PKR', 1)).toBeUndefined();
    expect(depositRefusal(150_00, 'PKR', 2)).toMatchObject({ message: 'The minimum deposit with Easypaisa is 200 PKR.' });
  });

  it("a new checkout: Pending, no fee until an attempt pays, its session's 30 minutes", () => {
    const { feeRate, ...given } = request();
    expect(newIntent(request(), now)).toEqual({
      ...given,
      status: 'Pending',
      feeMinor: 0,
      refundedMinor: 0,
      reason: null,
      createdAt: now.toISOString(),
      updatedAt: now.toISOString(),
      expiresAt: '2026-11-29T06:30:00.000Z',
      version: 1,
    });
    expect(feeRate).toBeDefined();
  });

  it('a new deposit: its fee fixed at its rate (never above the amount), its approval window of 5 minutes', () => {
    const deposit = newIntent(request({ intentType: 'deposit', details: { providerId: 1 } }), now);
    expect(deposit).toMatchObject({ status: 'Pending', feeMinor: 20_00, expiresAt: '2026-11-29T06:05:00.000Z', version: 1 });
    const capped = newIntent(request({ intentType: 'deposit', amountMinor: 1_00, feeRate: { basisPoints: 0, fixedMinor: 5_00 } }), now);
    expect(capped.feeMinor).toBe(1_00);
  });
});
