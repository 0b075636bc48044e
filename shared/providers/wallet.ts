import type { Mode } from '#shared/domain/credentials.ts';
import { walletProviders, type WalletProviderId } from '#shared/domain/providers.ts';
import { sandboxWalletProvider } from './wallet-sandbox.ts';
import { instrumented } from '#shared/metrics.ts';
import type { WalletProviderAdapter } from './wallet-contract.ts';

export type { ChargeStart, ChargeStatus, RecordedCharge, SettledStatus, WalletProviderAdapter } from './wallet-contract.ts';
export { firstInquiryAt, inquireCharge, requestedCharge } from './wallet-contract.ts';

/**
 * A mobile-wallet provider (JazzCash, Easypaisa) behind one interface: start a charge (the customer
 * is prompted on the handset), ask its status (authoritative, the only answer that decides), and
 * verify + read the provider's signed notification (a trigger to ask). Test mode always uses the
 * sandbox; live mode uses the adapters configured for the deployment (shared/providers/live); with
 * none, a live request is refused with 422.
 */
/** Live adapters configured for this deployment (shared/providers/live: configureLiveProviders); none by default. */
const liveAdapters: Partial<Record<WalletProviderId, WalletProviderAdapter>> = {};

/**
 * The live wallet providers of this deployment, also known without their adapters: creating a live
 * checkout only asks whether there is one, so its Lambda does not bundle the adapters (issue 26).
 */
const liveProviders = new Set<WalletProviderId>();

/** Installs (or, with undefined, removes) the live adapter of a provider. */
export function configureLiveWallet(providerId: WalletProviderId, adapter: WalletProviderAdapter | undefined): void {
  if (adapter) liveAdapters[providerId] = adapter;
  else delete liveAdapters[providerId];
  configureLiveWalletPresence(providerId, adapter !== undefined);
}

/** Records whether the deployment has a live provider, without its adapter (shared/providers/live installLiveWalletPresence). */
export function configureLiveWalletPresence(providerId: WalletProviderId, present: boolean): void {
  if (present) liveProviders.add(providerId);
  else liveProviders.delete(providerId);
}

/** Whether live mode has at least one wallet provider (the hosted page's live wallet option). */
export const liveWalletConfigured = () => liveProviders.size > 0;

export function walletAdapter(mode: Mode, providerId: WalletProviderId): WalletProviderAdapter | undefined {
  return instrumented(`wallet_${providerId}`, mode === 'test' ? sandboxWalletProvider(providerId) : liveAdapters[providerId]);
}

export function providerIdByCode(code: string): WalletProviderId | undefined {
  const entry = Object.entries(walletProviders).find(([, p]) => p.code.toLowerCase() === code.toLowerCase());
  return entry ? (Number(entry[0]) as WalletProviderId) : undefined;
}
