/**
 * Reason codes (issue 11 point 9): why a transaction reached a status, as a stable code for every
 * intent type. `Reason` in TransactionStatusChanged is always one of these (or null); free text
 * (a bank's or wallet provider's message, an operator's note) goes in `ReasonDetail`. Codes are
 * only ever added, never renamed: receivers switch on them. docs/merchant-guide.md lists them.
 */
export const reasonCodes = {
  // checkout (card)
  card_declined: 'The card was declined by its issuer.',
  insufficient_funds: 'The card has insufficient funds.',
  authentication_failed: 'The cardholder did not pass the card issuer’s 3-D Secure check (ReasonDetail holds the provider’s message).',
  otp_failed: 'The customer entered the wallet verification code wrongly too many times.',
  customer_cancelled: 'The customer cancelled on the payment page.',
  expired: 'The checkout session expired before the customer paid.',
  // checkout (wallet) and deposit
  customer_declined: 'The customer declined the charge in their wallet app.',
  wallet_declined: 'The wallet provider declined the charge (ReasonDetail holds its message).',
  unknown_reference: 'The wallet provider does not know the charge.',
  not_approved: 'The customer never approved the wallet charge; it expired.',
  declined_merchant_suspended:
    'The wallet approval or the card capture arrived while the merchant was suspended and the operator declined it; ' +
    'the customer is refunded by the provider.',
  // withdrawal
  bank_rejected: 'The bank or payout provider rejected the payout (ReasonDetail holds its message).',
  payout_not_sent: 'The payout could not be sent, or the bank never received it; the funds were released.',
  rejected_by_operator: 'The withdrawal was not approved (ReasonDetail holds the note, if any).',
} as const;

export type ReasonCode = keyof typeof reasonCodes;

/** Codes by intent type (for docs and tests; a code may serve several types). */
export const reasonCodesByIntentType: Record<'checkout' | 'deposit' | 'withdrawal', readonly ReasonCode[]> = {
  checkout: [
    'card_declined',
    'insufficient_funds',
    'authentication_failed',
    'otp_failed',
    'customer_cancelled',
    'expired',
    'customer_declined',
    'wallet_declined',
    'unknown_reference',
    'declined_merchant_suspended',
  ],
  deposit: ['customer_declined', 'wallet_declined', 'unknown_reference', 'not_approved', 'declined_merchant_suspended'],
  withdrawal: ['bank_rejected', 'payout_not_sent', 'rejected_by_operator'],
};

export const isReasonCode = (value: unknown): value is ReasonCode => typeof value === 'string' && Object.hasOwn(reasonCodes, value);

/** A wallet provider's decline: its own code when it is one of ours, else `wallet_declined` with its text. */
export function walletDecline(raw: string | undefined): { reason: ReasonCode; reasonDetail: string | null } {
  if (raw === undefined || raw === '') return { reason: 'customer_declined', reasonDetail: null };
  return isReasonCode(raw) ? { reason: raw, reasonDetail: null } : { reason: 'wallet_declined', reasonDetail: raw };
}

/**
 * The event's Reason and ReasonDetail for an intent. Intents stored before codes existed may hold
 * free text in `reason` (withdrawals did): that text becomes the detail, and the code is the
 * type's generic one, so `Reason` is a code whatever is stored.
 */
export function eventReason(intent: { intentType: string; status: string; reason: string | null; reasonDetail?: string | null }): {
  Reason: ReasonCode | null;
  ReasonDetail: string | null;
} {
  const detail = intent.reasonDetail ?? null;
  if (intent.reason === null) return { Reason: null, ReasonDetail: detail };
  if (isReasonCode(intent.reason)) return { Reason: intent.reason, ReasonDetail: detail };
  const fallback: ReasonCode =
    intent.intentType === 'withdrawal'
      ? intent.status === 'Cancelled'
        ? 'rejected_by_operator'
        : 'bank_rejected'
      : intent.status === 'Expired'
        ? 'expired'
        : 'wallet_declined';
  return { Reason: fallback, ReasonDetail: detail ?? intent.reason };
}
