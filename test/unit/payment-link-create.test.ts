import { describe, expect, it } from 'vitest';
import { isRefusal } from '#shared/domain/core/decision.ts';
import { decideLinkCreate, type LinkCreate, type NewPaymentLink } from '#shared/domain/core/payment-link.ts';

/**
 * A new payment link decided by the money core (shared/domain/core/payment-link.ts decideLinkCreate): the link it
 * creates, and each refusal with the code and sentence the API and the dashboard answer (in the order they are asked).
 */
describe('decideLinkCreate (the money core)', () => {
  const now = new Date('2026-11-29T06:00:00.000Z');
  const input: NewPaymentLink = {
    currency: 'PKR',
    description: 'Blue shirt',
    price: { type: 'fixed', amountMinor: 1500_00 },
    maxQuantity: 3,
    maxPayments: 5,
    expiresAt: '2026-12-01T00:00:00.000Z',
    collect: ['name', 'phone', 'name'],
    returnUrl: null,
  };
  const create = (over: Partial<NewPaymentLink> = {}, c: Partial<LinkCreate> = {}) =>
    decideLinkCreate(
      {
        linkId: 'pl_000000000000000000000001',
        owner: { merchantId: 'm1', mode: 'test' },
        input: { ...input, ...over },
        minimumMinor: 10_00,
        liveProvider: false,
        ...c,
      },
      now,
    );
  const refusal = (d: ReturnType<typeof create>) => (isRefusal(d) ? d : undefined);

  it('creates the link active, with no use held or paid, its fields deduplicated', () => {
    const d = create();
    if (isRefusal(d)) throw new Error(d.message);
    expect(d.state).toEqual({
      linkId: 'pl_000000000000000000000001',
      merchantId: 'm1',
      mode: 'test',
      active: true,
      currency: 'PKR',
      description: 'Blue shirt',
      price: { type: 'fixed', amountMinor: 1500_00 },
      quantity: { max: 3 },
      maxPayments: 5,
      expiresAt: '2026-12-01T00:00:00.000Z',
      collect: ['name', 'phone'],
      returnUrl: null,
      createdAt: now.toISOString(),
      updatedAt: now.toISOString(),
      usesHeld: 0,
      paidCount: 0,
      paidMinor: 0,
    });
    expect(d.journals).toEqual([]);
    const one = create({ maxQuantity: null });
    expect(!isRefusal(one) && one.state.quantity).toBeNull();
  });

  it('refuses a largest order above one payment as a 400 naming maxQuantity', () => {
    expect(create({ price: { type: 'fixed', amountMinor: 50_000_000_000_000_00 }, maxQuantity: 2 })).toEqual({
      refused: 'invalid_request',
      message: 'amount × maxQuantity must be at most PKR 90,071,992,547,409.91, the largest payment the gateway takes.',
      field: { name: 'maxQuantity', message: 'amount × maxQuantity must be at most PKR 90,071,992,547,409.91' },
    });
    expect(isRefusal(create({ price: { type: 'fixed', amountMinor: 45_000_000_000_000_00 }, maxQuantity: 2 }))).toBe(false);
  });

  it('refuses amounts at or below the checkout minimum, a maximum below the minimum, a past expiry', () => {
    expect(refusal(create({ price: { type: 'fixed', amountMinor: 10_00 } }))).toEqual({
      refused: 'amount_below_minimum',
      message: 'Every payment on a link must be greater than 10 PKR: amount is too low.',
    });
    expect(isRefusal(create({ price: { type: 'fixed', amountMinor: 10_01 } }))).toBe(false);
    // The minimum is asked before the range.
    expect(refusal(create({ price: { type: 'customer', minMinor: 5_00, maxMinor: 1_00 }, maxQuantity: null }))).toEqual({
      refused: 'amount_below_minimum',
      message: 'Every payment on a link must be greater than 10 PKR: minAmount is too low.',
    });
    expect(refusal(create({ price: { type: 'customer', minMinor: 500_00, maxMinor: 100_00 }, maxQuantity: null }))).toEqual({
      refused: 'amount_range_invalid',
      message: 'maxAmount must not be below minAmount.',
    });
    expect(refusal(create({ expiresAt: now.toISOString() }))).toEqual({
      refused: 'expiry_in_past',
      message: 'expiresAt must be in the future.',
    });
    expect(isRefusal(create({ expiresAt: new Date(now.getTime() + 1).toISOString() }))).toBe(false);
  });

  it('refuses a live link when no live provider is configured; a test link needs none', () => {
    expect(refusal(create({}, { owner: { merchantId: 'm1', mode: 'live' } }))).toEqual({
      refused: 'provider_unavailable',
      message: 'Live payment links are not available: no card or wallet provider is configured for this deployment.',
    });
    expect(isRefusal(create({}, { owner: { merchantId: 'm1', mode: 'live' }, liveProvider: true }))).toBe(false);
  });
});
