import type { Mode } from '#shared/domain/credentials.ts';
import { walletProviders, type WalletProviderId } from '#shared/domain/providers.ts';
import { sandboxWalletProvider } from './wallet-sandbox.ts';
import { instrumented } from '#shared/metrics.ts';

/**
 * A mobile-wallet provider (JazzCash, Easypaisa) behind one interface: start a charge (the customer
 * is prompted on the handset), ask its status (authoritative), and verify + parse the provider's
 * signed callback. Test mode always uses the sandbox; live mode uses the adapters configured for
 * the deployment, and none are configured in this repository (a live request is refused with 422).
 */
export type ChargeStart =
  | { accepted: true; providerReference: string; status: 'Pending' | 'Processing'; message: string }
  | { accepted: false; code: 'insufficient_balance' | 'provider_unavailable' | 'rejected'; message: string };

export type ChargeStatus = { status: 'Pending' } | { status: 'Approved' } | { status: 'Declined'; reason: string };

export interface ProviderCallback {
  providerReference: string;
  status: 'Approved' | 'Declined';
  reason?: string;
}

export interface WalletProviderAdapter {
  readonly providerId: WalletProviderId;
  readonly name: string;
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

/** Live adapters configured for this deployment (none in this repository). */
const liveAdapters: Partial<Record<WalletProviderId, WalletProviderAdapter>> = {};

export function walletAdapter(mode: Mode, providerId: WalletProviderId): WalletProviderAdapter | undefined {
  return instrumented(`wallet_${providerId}`, mode === 'test' ? sandboxWalletProvider(providerId) : liveAdapters[providerId]);
}

export function providerIdByCode(code: string): WalletProviderId | undefined {
  const entry = Object.entries(walletProviders).find(([, p]) => p.code.toLowerCase() === code.toLowerCase());
  return entry ? (Number(entry[0]) as WalletProviderId) : undefined;
}
