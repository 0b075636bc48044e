import { randomUUID } from 'node:crypto';
import type { Mode } from '#shared/domain/credentials.ts';
import type { IntentType, PaymentIntent } from '#shared/domain/intent.ts';
import { transact } from '#shared/store/client.ts';
import { createIntentWrites } from '#shared/store/intents.ts';
import { seedPuts } from './bulk-seed.ts';

type Overrides = Partial<PaymentIntent> & { intentType?: IntentType };

/** A Pending intent written straight to the store, for tests of the shared status machinery. */
export async function seedIntent(merchantId: string, mode: Mode, overrides: Overrides = {}) {
  const intent = seededIntent(merchantId, mode, overrides);
  await transact(createIntentWrites(intent));
  return intent;
}

/**
 * Many intents as seedIntent writes them (the same createIntentWrites items), in bulk: BatchWriteItem
 * puts, about 25 times fewer requests than one transaction each (./bulk-seed.ts). For lists to read.
 */
export async function seedIntents(merchantId: string, mode: Mode, overrides: Overrides[]) {
  const intents = overrides.map((o) => seededIntent(merchantId, mode, o));
  await seedPuts(intents.flatMap((intent) => createIntentWrites(intent)));
  return intents;
}

function seededIntent(merchantId: string, mode: Mode, overrides: Overrides): PaymentIntent {
  const now = new Date().toISOString();
  return {
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
}
