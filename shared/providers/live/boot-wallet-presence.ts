import { configureLiveProvidersFromSecret, installLiveWalletPresence } from './index.ts';

/** Imported by the handler of each Lambda that asks only whether a live wallet provider exists: boot-wallets.ts explains. */
if (process.env.LIVE_PROVIDERS_SECRET_ARN) await configureLiveProvidersFromSecret(installLiveWalletPresence);
