import { configureLiveProvidersFromSecret, installLivePayouts } from './index.ts';

/** Imported by the handler of each Lambda whose code can call the live payout adapters: boot-wallets.ts explains. */
if (process.env.LIVE_PROVIDERS_SECRET_ARN) await configureLiveProvidersFromSecret(installLivePayouts);
