import type { WalletProviderId } from '#shared/domain/providers.ts';

/** What every mobile-wallet adapter (the sandbox and any live one) implements; shared/providers/wallet.ts picks one. */
export type ChargeStart =
  | { accepted: true; providerReference: string; status: 'Pending' | 'Processing'; message: string }
  | { accepted: false; code: 'insufficient_balance' | 'provider_unavailable' | 'rejected'; message: string };

export type ChargeStatus = { status: 'Pending' } | { status: 'Approved' } | { status: 'Declined'; reason: string };

export interface ProviderCallback {
  providerReference: string;
  status: 'Approved' | 'Declined';
  reason?: string;
}

/** When an adapter states no `firstInquiryAfterMs`: a handset prompt is rarely answered sooner. */
export const defaultFirstInquiryAfterMs = 3_000;

/** When to ask first about a charge prompted at `now`. */
export const firstInquiryAt = (adapter: WalletProviderAdapter, now: Date) =>
  new Date(now.getTime() + (adapter.firstInquiryAfterMs ?? defaultFirstInquiryAfterMs));

export interface WalletProviderAdapter {
  readonly providerId: WalletProviderId;
  readonly name: string;
  /** How long after the prompt the customer's answer is worth asking for (the first status inquiry). */
  readonly firstInquiryAfterMs?: number;
  /** Whether the one-time code the customer typed is the one the provider sent (hosted checkout's wallet step). */
  otpMatches?(otp: string): boolean;
  startCharge(charge: { reference: string; mobileNumber: string; amountMinor: number; currency: string }, now: Date): Promise<ChargeStart>;
  statusInquiry(providerReference: string, now: Date): Promise<ChargeStatus>;
  /** Verifies the provider's signature over the raw body; undefined when it does not verify. */
  parseCallback(headers: Record<string, string>, rawBody: string): Promise<ProviderCallback | undefined>;
  /**
   * Withdraws a prompt the gateway will not record or will expire, so the customer cannot approve
   * a charge nobody credits. Throws when the provider cannot confirm it.
   */
  cancelCharge?(providerReference: string): Promise<void>;
}
