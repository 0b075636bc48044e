import { afterEach, describe, expect, it } from 'vitest';
import { configureLiveProviders, installLiveWalletPresence, type LiveProvidersConfig } from '#shared/providers/live/index.ts';
import { liveWalletConfigured, walletAdapter } from '#shared/providers/wallet.ts';

/**
 * Creating a live checkout asks only whether the deployment has a live wallet provider; its Lambda
 * installs that answer from the secret without the adapters (boot-wallet-presence.ts, issue 26).
 */
describe('live wallet presence without the adapters', () => {
  afterEach(() => configureLiveProviders(undefined));

  it('answers whether a live wallet provider is configured, and installs no adapter', () => {
    expect(liveWalletConfigured()).toBe(false);
    installLiveWalletPresence({ easypaisa: {} } as LiveProvidersConfig);
    expect(liveWalletConfigured()).toBe(true);
    expect(walletAdapter('live', 2)).toBeUndefined();
    expect(walletAdapter('live', 1)).toBeUndefined();
  });

  it('is cleared by a configuration without wallet providers, and by removing the live providers', () => {
    installLiveWalletPresence({ jazzcash: {} } as LiveProvidersConfig);
    installLiveWalletPresence({});
    expect(liveWalletConfigured()).toBe(false);
    installLiveWalletPresence({ jazzcash: {} } as LiveProvidersConfig);
    configureLiveProviders(undefined);
    expect(liveWalletConfigured()).toBe(false);
  });
});
