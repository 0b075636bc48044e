import type { Mode } from './credentials.ts';
import type { Currency } from './money.ts';
import type { ReasonCode } from './reasons.ts';
import { intentStatuses, intentTypes, type IntentStatus, type IntentType } from './core/machines.ts';

/**
 * Payment intents (the "transactions" of docs/merchant-guide.md): checkouts, deposits and withdrawals. Status rules
 * live here and nowhere else; the store turns a permitted transition into a conditional write so
 * that a terminal state is never left, whatever races.
 */
export {
  canTransition,
  intentStatuses,
  intentTypes,
  isTerminal,
  type IntentStatus,
  type IntentType,
} from './core/machines.ts';
export const isIntentType = (value: string): value is IntentType => (intentTypes as readonly string[]).includes(value);
export const isIntentStatus = (value: string): value is IntentStatus => (intentStatuses as readonly string[]).includes(value);

export class IllegalTransition extends Error {
  constructor(
    readonly from: IntentStatus,
    readonly to: IntentStatus,
  ) {
    super(`a ${from} transaction cannot become ${to}`);
  }
}

export interface OrderRef {
  orderRef: string;
  discount?: string | null;
  tax?: string | null;
}

export interface CardSummary {
  brand: string;
  last4: string;
  expMonth: number;
  expYear: number;
}

export interface PaymentIntent {
  paymentIntentId: string;
  merchantId: string;
  mode: Mode;
  intentType: IntentType;
  status: IntentStatus;
  amountMinor: number;
  currency: Currency;
  feeMinor: number;
  refundedMinor: number;
  orderRef: OrderRef;
  customerRef: Record<string, string> | null;
  description: string;
  metadataJson: string | null;
  callbackUrl: string | null;
  /** The gateway's (or provider's) reference for this transaction; unique per merchant and mode. */
  transactionReference: string;
  /**
   * Why it reached its status: a stable code (shared/domain/reasons.ts). Intents stored before
   * codes existed may hold free text here (withdrawals did); events map it to a code.
   */
  reason: string | null;
  /** Free text beside the code (a bank's or provider's message, an operator's note); absent on older intents. */
  reasonDetail?: string | null;
  /** traceId of the request that created it; repeated on lookups and webhook events. */
  traceId: string;
  createdAt: string;
  updatedAt: string;
  expiresAt: string | null;
  /** Incremented by every change; conditions use it to refuse stale read-modify-writes. */
  version: number;
  /** Per-type details (checkout: paymentMethod, card; deposit: walletChargeInfo; withdrawal: payoutInfo …). */
  details: Record<string, unknown>;
  /** A withdrawal's hold shard of a sharded wallet (shared/store/wallets.ts); absent = shard 0. */
  walletShard?: number;
}

/**
 * A wallet provider's approval, or a card provider's answer that a live card payment was captured,
 * that arrived while the merchant was suspended: recorded on the
 * still-Pending intent (details.heldApproval) instead of crediting the wallet, until an operator
 * releases (Completed, credited once) or declines it (Failed). docs/security-and-limits.md.
 */
export interface HeldApproval {
  heldAt: string;
  /**
   * Where the approval came from: a wallet provider's signed callback; a provider's status inquiry
   * (a wallet's, or a card provider's about a live card payment whose outcome was unknown); or a
   * card provider's own answer when the payment was confirmed (authorised and captured).
   */
  source: 'callback' | 'inquiry' | 'confirm';
  providerReference: string;
  /** Set by the operator's decision (in the same write as the status change). */
  decision?: 'released' | 'declined';
  decidedAt?: string;
}

export const heldApprovalOf = (intent: PaymentIntent): HeldApproval | undefined =>
  (intent.details as { heldApproval?: HeldApproval }).heldApproval ?? undefined;

/** The reason of a held approval the operator declined (a Failed checkout or deposit). */
export const heldApprovalDeclinedReason: ReasonCode = 'declined_merchant_suspended';

/** What a new intent keeps of the merchant's request as given (checkouts and deposits alike). */
export const requestedFields = (
  input: Pick<PaymentIntent, 'orderRef' | 'customerRef' | 'description' | 'metadataJson' | 'callbackUrl'>,
) => ({
  orderRef: input.orderRef,
  customerRef: input.customerRef,
  description: input.description,
  metadataJson: input.metadataJson,
  callbackUrl: input.callbackUrl,
});
