import type { Currency } from '#shared/domain/money.ts';
import type { WalletProviderId } from '#shared/domain/providers.ts';
import type { RefundCapability } from '#shared/domain/refund.ts';
import type { Rail } from './rail.ts';
import { sandboxRail } from './sandbox-rail.ts';

/**
 * The refund rail: returns money to the customer through the original payment's network. Its
 * instruction and the sandbox of test mode; the contract is the one of every outbound rail
 * (shared/providers/rail.ts), installed with configureRail('refund', mode, rail).
 *
 * For a refund, `accepted` means paid and `rejected` a DEFINITE decline (nothing was paid, retried
 * up to 3 attempts). `reference` is the refund id, the SAME for every attempt: the provider pays a
 * reference AT MOST ONCE (a repeated request for a reference it paid or is paying answers with
 * that payment). A reference it declined may be sent again. `status` answers for the reference's
 * latest request: Completed (paid), Failed (declined, nothing in flight), Processing (in flight) or
 * NotFound (no request with that reference ever arrived). Failed, and NotFound once the grace
 * period has passed, are final for the current attempt, so a live adapter must guarantee that a
 * reference it answered Failed or NotFound for will not be paid unless it is sent again.
 */
export interface RefundInstruction {
  /** The refund id: the provider's idempotency key, the same for every attempt. */
  reference: string;
  refundId: string;
  /** Which attempt this is (1-based); informational, never part of the idempotency key. */
  attempt: number;
  paymentIntentId: string;
  /** The payment's reference at the provider: its paying attempt's (Refund.paymentReference), else the transaction reference. */
  transactionReference: string;
  amountMinor: number;
  currency: Currency;
  /**
   * What took the payment: a wallet provider's id (1 JazzCash, 2 Easypaisa) or null (a card).
   * Read by a rail's `refuses` when the refund is requested (a live rail that cannot refund
   * through that network refuses with a 422 before anything is reserved), and by its `submit`
   * to pick the provider's refund API (absent for refunds requested before it was recorded).
   */
  walletProviderId?: WalletProviderId | null;
}

/**
 * A refund rail: an outbound rail that may declare what it can refund of a payment taken through `walletProviderId`
 * (a card: null); the money core decides the request with it (decideRefund). Absent: partial refunds up to the payment.
 */
export interface RefundRail extends Rail<RefundInstruction> {
  refundsAllowed?(walletProviderId: WalletProviderId | null): RefundCapability;
}

export const sandboxRefundDecline = 'The payment network declined the refund (sandbox amount ending .91/.92).';

/**
 * The sandbox provider, by the minor part of the refund amount (its last two digits of minor units):
 *   .91        every attempt is declined → Failed after 3 attempts (hold released)
 *   .92        the first attempt is declined, the second completes (attemptCount 2)
 *   any other  completes at the first attempt
 * It answers the status inquiry only for references it received (shared/store/sandbox-receipts.ts),
 * NotFound otherwise.
 */
export const sandboxRefundProvider: Rail<RefundInstruction> = /* @__PURE__ */ sandboxRail(
  { receipts: 'refund_provider', name: 'Sandbox Refund Provider', ledgerAccount: 'refund_rail', prefix: 'SBXRFD' },
  { firstCheckAfterMs: 30_000, pollIntervalMs: 30_000, inquireAfterMs: 60_000, retryAfterMs: 2_000 },
  (i) => (i.amountMinor % 100 === 91 || (i.amountMinor % 100 === 92 && i.attempt === 1) ? sandboxRefundDecline : undefined),
);
