import type { Mode } from '#shared/domain/credentials.ts';
import type { Currency } from '#shared/domain/money.ts';

/**
 * The refund provider: returns money to the customer through the original payment's network.
 * One call per attempt; `reference` (`<refundId>-<attempt>`) is the attempt's idempotency key.
 * A thrown error counts as a failed attempt. Test mode uses the sandbox below; live mode uses the
 * adapter configured for the deployment (configureRefundProvider); with none, live refunds are
 * refused with a 422 at creation.
 */
export interface RefundInstruction {
  reference: string;
  refundId: string;
  attempt: number;
  paymentIntentId: string;
  transactionReference: string;
  amountMinor: number;
  currency: Currency;
}

export type RefundResult = { outcome: 'completed'; providerReference: string } | { outcome: 'failed'; reason: string };

export interface RefundProvider {
  /** The ledger's external account the refunded amount goes to: `external:<ledgerAccount>`. */
  readonly ledgerAccount: string;
  refund(instruction: RefundInstruction): Promise<RefundResult>;
  /** Wait before the next attempt after a failed one. */
  readonly retryAfterMs: number;
}

export const sandboxRefundDecline = 'The payment network declined the refund (sandbox amount ending .91/.92).';

/**
 * The sandbox provider, by the minor part of the refund amount (its last two digits of minor units):
 *   .91        every attempt fails → Failed after 3 attempts (hold released)
 *   .92        the first attempt fails, the second completes (attemptCount 2)
 *   any other  completes at the first attempt
 */
export const sandboxRefundProvider: RefundProvider = {
  ledgerAccount: 'refund_rail',
  retryAfterMs: 2_000,
  async refund(i) {
    const cents = i.amountMinor % 100;
    if (cents === 91 || (cents === 92 && i.attempt === 1)) return { outcome: 'failed', reason: sandboxRefundDecline };
    return { outcome: 'completed', providerReference: `SBXRFD${i.reference.replaceAll('-', '').slice(0, 20).toUpperCase()}` };
  },
};

const configured: Partial<Record<Mode, RefundProvider>> = { test: sandboxRefundProvider };

export const refundProviderFor = (mode: Mode): RefundProvider | undefined => configured[mode];

export function configureRefundProvider(mode: Mode, provider: RefundProvider | undefined): void {
  if (provider) configured[mode] = provider;
  else delete configured[mode];
}
