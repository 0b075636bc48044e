import type { PaymentIntent } from '#shared/domain/intent.ts';

/**
 * A Pending deposit of 1,000.00 PKR (fee 20.00) created at `at`, as the pure tests of the money core take it (no
 * database): each test names only what its case is about.
 */
export const fixtureAt = '2026-11-29T05:00:00.000Z';

export const intentFixture = (over: Partial<PaymentIntent> = {}): PaymentIntent => ({
  paymentIntentId: 'p1',
  merchantId: 'm1',
  mode: 'test',
  intentType: 'deposit',
  status: 'Pending',
  amountMinor: 1_000_00,
  currency: 'PKR',
  feeMinor: 20_00,
  refundedMinor: 0,
  orderRef: { orderRef: 'O1' },
  customerRef: null,
  description: 'deposit',
  metadataJson: null,
  callbackUrl: null,
  transactionReference: 'T1',
  reason: null,
  traceId: 'trace',
  createdAt: fixtureAt,
  updatedAt: fixtureAt,
  expiresAt: '2026-11-29T05:05:00.000Z',
  version: 3,
  details: {},
  ...over,
});
