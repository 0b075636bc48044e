import type { WalletProviderId } from '#shared/domain/providers.ts';

/** What every mobile-wallet adapter (the sandbox and any live one) implements; shared/providers/wallet.ts picks one. */
export type ChargeStart =
  | { accepted: true; providerReference: string; status: 'Pending' | 'Processing'; message: string }
  | { accepted: false; code: 'insufficient_balance' | 'provider_unavailable' | 'rejected'; message: string };

/** The provider's answer about a charge; `providerTransactionId` is its own id of the charge when it gives one. */
export type ChargeStatus = ({ status: 'Pending' } | { status: 'Approved' } | { status: 'Declined'; reason: string }) & {
  providerTransactionId?: string;
  /** When the provider recorded the charge (ISO 8601), when its answer says: kept with a completed deposit for reconciliation. */
  providerTime?: string;
};

/**
 * A provider's notification about a charge, authenticated (its signature verified) but not
 * believed: it names the charge and states a few facts. It never decides: the gateway checks
 * the facts against the stored payment, then asks `statusInquiry`, whose answer alone moves the
 * payment (docs/security-and-limits.md, Provider callbacks).
 */
export interface ProviderNotification {
  providerReference: string;
  /** The amount the notification states (minor units), when it states one: it must be the stored payment's. */
  amountMinor?: number;
  /** The provider's own id of the charge (JazzCash's retrieval reference), when stated: it must be the inquiry's. */
  providerTransactionId?: string;
  /** Members that name another merchant account or transaction type than this adapter's: the notification is refused. */
  mismatched: string[];
}

/** When an adapter states no `firstInquiryAfterMs`: a handset prompt is rarely answered sooner. */
export const defaultFirstInquiryAfterMs = 3_000;

/** When to ask first about a charge prompted at `now`. */
export const firstInquiryAt = (adapter: WalletProviderAdapter, now: Date) =>
  new Date(now.getTime() + (adapter.firstInquiryAfterMs ?? defaultFirstInquiryAfterMs));

interface WalletCharge {
  reference: string;
  mobileNumber: string;
  amountMinor: number;
  currency: string;
  cnicLast6?: string;
}

export interface WalletProviderAdapter {
  readonly providerId: WalletProviderId;
  readonly name: string;
  /** How long after the prompt the customer's answer is worth asking for (the first status inquiry). */
  readonly firstInquiryAfterMs?: number;
  /** Whether the one-time code the customer typed is the one the provider sent (hosted checkout's wallet step). */
  otpMatches?(otp: string): boolean;
  /**
   * The provider needs the last six digits of the customer's CNIC with every charge (JazzCash MWALLET
   * v2.0, docs/providers/jazzcash.md): the caller passes `cnicLast6` and refuses the request without it.
   */
  readonly asksForCnic?: boolean;
  /** `cnicLast6` goes to the provider only: never logged or stored. */
  startCharge(charge: WalletCharge, now: Date): Promise<ChargeStart>;
  /** The provider's authenticated server-to-server answer: the only thing that decides a charge. */
  statusInquiry(providerReference: string, now: Date): Promise<ChargeStatus>;
  /** Verifies the provider's signature over the raw body and reads what it states; undefined when it does not verify. */
  parseCallback(headers: Record<string, string>, rawBody: string): Promise<ProviderNotification | undefined>;
  /**
   * Withdraws a prompt the gateway will not record or will expire, so the customer cannot approve
   * a charge nobody credits. Throws when the provider cannot confirm it.
   */
  cancelCharge?(providerReference: string): Promise<void>;
}
