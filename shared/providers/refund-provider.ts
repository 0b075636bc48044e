import type { Mode } from '#shared/domain/credentials.ts';
import type { Currency } from '#shared/domain/money.ts';
import { instrumented } from '#shared/metrics.ts';

/**
 * The refund provider: returns money to the customer through the original payment's network.
 *
 *   refund(instruction)  → completed | failed (a DEFINITE decline: nothing was paid). THROWS when
 *                          the outcome is unknown (timeout, connection lost after sending): the
 *                          refund then stays Processing and only `status` settles it.
 *   status(instruction)  → Completed | Failed | Processing | NotFound, by `reference`.
 *
 * `reference` is the refund id, the SAME for every attempt of a refund: the provider must treat it
 * as an idempotency key and pay a reference AT MOST ONCE (a repeated request for a reference it
 * paid or is paying answers with that payment, never pays again). A reference it declined may be
 * sent again (the retry of a declined attempt). `status` answers for the reference's latest request:
 * Completed (paid), Failed (declined, nothing in flight), Processing (in flight) or NotFound (no
 * request with that reference ever arrived). Failed, and NotFound once a grace period has passed,
 * are final for the gateway's current attempt (it is retried, or after the 3rd the refund is Failed
 * with the hold released), so a live adapter must guarantee that a reference it answered Failed or
 * NotFound for will not be paid unless it is sent again (a late-arriving request must be refused or
 * voided); otherwise the customer could be refunded while the merchant's hold is released.
 *
 * Test mode uses the sandbox below; live mode uses the adapter configured for the deployment
 * (configureRefundProvider); with none, live refunds are refused with a 422 at creation.
 */
export interface RefundInstruction {
  /** The refund id: the provider's idempotency key, the same for every attempt. */
  reference: string;
  refundId: string;
  /** Which attempt this is (1-based); informational, never part of the idempotency key. */
  attempt: number;
  paymentIntentId: string;
  transactionReference: string;
  amountMinor: number;
  currency: Currency;
}

export type RefundResult =
  | { outcome: 'completed'; providerReference: string }
  /** A definite decline (nothing was paid); counts as one of the 3 attempts. Shown to the merchant. */
  | { outcome: 'failed'; reason: string };

export type RefundStatusResult =
  | { status: 'Completed'; providerReference: string }
  | { status: 'Failed'; reason: string }
  | { status: 'Processing' }
  /** The provider has no record of the reference. */
  | { status: 'NotFound' };

export interface RefundProvider {
  /** The ledger's external account the refunded amount goes to: `external:<ledgerAccount>`. */
  readonly ledgerAccount: string;
  refund(instruction: RefundInstruction): Promise<RefundResult>;
  /** The status inquiry, by `instruction.reference` (the rest is given for stateless adapters). */
  status(instruction: RefundInstruction): Promise<RefundStatusResult>;
  /** Wait before the next attempt after a declined one. */
  readonly retryAfterMs: number;
}

export const sandboxRefundDecline = 'The payment network declined the refund (sandbox amount ending .91/.92).';

/**
 * The sandbox provider, by the minor part of the refund amount (its last two digits of minor units):
 *   .91        every attempt is declined → Failed after 3 attempts (hold released)
 *   .92        the first attempt is declined, the second completes (attemptCount 2)
 *   any other  completes at the first attempt
 * Stateless (the outcome follows from the instruction), so any process may ask its status.
 */
const sandboxDeclines = (i: RefundInstruction) => {
  const cents = i.amountMinor % 100;
  return cents === 91 || (cents === 92 && i.attempt === 1);
};
const sandboxProviderReference = (i: RefundInstruction) => `SBXRFD${i.reference.replaceAll('-', '').slice(0, 20).toUpperCase()}`;

export const sandboxRefundProvider: RefundProvider = {
  ledgerAccount: 'refund_rail',
  retryAfterMs: 2_000,
  async refund(i) {
    if (sandboxDeclines(i)) return { outcome: 'failed', reason: sandboxRefundDecline };
    return { outcome: 'completed', providerReference: sandboxProviderReference(i) };
  },
  async status(i) {
    if (sandboxDeclines(i)) return { status: 'Failed', reason: sandboxRefundDecline };
    return { status: 'Completed', providerReference: sandboxProviderReference(i) };
  },
};

const configured: Partial<Record<Mode, RefundProvider>> = { test: sandboxRefundProvider };

export const refundProviderFor = (mode: Mode): RefundProvider | undefined => instrumented('refund_provider', configured[mode]);

/** Installs a live adapter (deployment wiring) or, in tests, a fake one; `undefined` removes it. */
export function configureRefundProvider(mode: Mode, provider: RefundProvider | undefined): void {
  if (provider) configured[mode] = provider;
  else delete configured[mode];
}
