import { randomUUID } from 'node:crypto';
import type { Mode } from '#shared/domain/credentials.ts';
import { decided, type JournalDraft } from '#shared/domain/core/decision.ts';
import { intentTransition, type IntentChange } from '#shared/domain/core/intent.ts';
import type { IntentStatus, IntentType, PaymentIntent } from '#shared/domain/intent.ts';
import { changeIntent } from '#shared/services/transactions.ts';
import { transact } from '#shared/store/client.ts';
import { createIntentWrites, type Transition } from '#shared/store/intents.ts';
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

/** A test's status change: where it goes, with what (the journals: drafts, `draft()` of shared/domain/core/decision.ts). */
export interface TestChange extends IntentChange {
  to: IntentStatus;
  journals?: JournalDraft[];
}

/**
 * Tests of the shared status machinery (events, webhooks, listings, volume) move an intent straight to a status: the
 * intent after a move the state machine permits (intentTransition), committed through changeIntent as a decision of
 * the money core is, with the journals given (none: no money moves). `now`: the clock, asked once per decision (a lost
 * race or a settlement's cut-off decides again). Money paths decide through the core itself.
 */
export function changeStatus(
  paymentIntentId: string,
  decide: (current: PaymentIntent) => TestChange | null,
  now = () => new Date(),
): Promise<{ changed: true; intent: PaymentIntent; transition: Transition } | { changed: false; intent: PaymentIntent | undefined }> {
  let at = new Date();
  // A status change always has its transition (its event).
  return changeIntent(
    paymentIntentId,
    (current) => {
      at = now();
      const change = decide(current);
      const next = change && intentTransition(current, change.to, change, at);
      return next ? decided(next, change.journals) : null;
    },
    () => at,
  ) as never;
}
