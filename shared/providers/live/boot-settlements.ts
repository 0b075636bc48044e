import { configureLiveProvidersFromSecret, installLiveSettlements } from './index.ts';

/** Imported by the handler of each Lambda whose code can call the live settlement rail: boot-wallets.ts explains. */
if (process.env.LIVE_PROVIDERS_SECRET_ARN) await configureLiveProvidersFromSecret(installLiveSettlements);
