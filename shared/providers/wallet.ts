import type { Mode } from '#shared/domain/credentials.ts';
import { walletProviders, type WalletProviderId } from '#shared/domain/providers.ts';
import { sandboxWalletProvider } from './wallet-sandbox.ts';
import { instrumented } from '#shared/metrics.ts';
import type { WalletProviderAdapter } from './wallet-contract.ts';

export type { ChargeStart, ChargeStatus, ProviderCallback, WalletProviderAdapter } from './wallet-contract.ts';
export { firstInquiryAt } from './wallet-contract.ts';

/**
 * A mobile-wallet provider (JazzCash, Easypaisa) behind one interface: start a charge (the customer
 * is prompted on the handset), ask its status (authoritative), and verify + parse the provider's
 * signed callback. Test mode always uses the sandbox; live mode uses the adapters configured for
 * the deployment, and none are configured in this repository (a live request is refused with 422).
 */
/** Live adapters configured for this deployment (none in this repository). */
const liveAdapters: Partial<Record<WalletProviderId, WalletProviderAdapter>> = {};

export function walletAdapter(mode: Mode, providerId: WalletProviderId): WalletProviderAdapter | undefined {
  return instrumented(`wallet_${providerId}`, mode === 'test' ? sandboxWalletProvider(providerId) : liveAdapters[providerId]);
}

export function providerIdByCode(code: string): WalletProviderId | undefined {
  const entry = Object.entries(walletProviders).find(([, p]) => p.code.toLowerCase() === code.toLowerCase());
  return entry ? (Number(entry[0]) as WalletProviderId) : undefined;
}
