import { randomUUID } from 'node:crypto';
import type { Mode } from '#shared/domain/credentials.ts';
import type { IntentType, PaymentIntent } from '#shared/domain/intent.ts';
import { transact } from '#shared/store/client.ts';
import { createIntentWrites } from '#shared/store/intents.ts';

/** A Pending intent written straight to the store, for tests of the shared status machinery. */
export async function seedIntent(merchantId: string, mode: Mode, overrides: Partial<PaymentIntent> & { intentType?: IntentType } = {}) {
  const now = new Date().toISOString();
  const intent: PaymentIntent = {
    paymentIntentId: randomUUID(),
    merchantId,
    mode,
    intentType: 'checkout',
    status: 'Pending',
    amountMinor: 150_00,
    currency: 'PKR',
    feeMinor: 0,
    refundedMinor: 0,
    orderRef: { orderRef: `ORD${randomUUID().slice(0, 8)}`, discount: null, tax: '5' },
    customerRef: { name: 'Ayesha' },
    description: 'Test order',
    metadataJson: '{"cart":7}',
    callbackUrl: null,
    transactionReference: `TRX${randomUUID().replaceAll('-', '').slice(0, 16)}`,
    reason: null,
    traceId: randomUUID(),
    createdAt: now,
    updatedAt: now,
    expiresAt: null,
    version: 1,
    details: {},
    ...overrides,
  };
  await transact(createIntentWrites(intent));
  return intent;
}
