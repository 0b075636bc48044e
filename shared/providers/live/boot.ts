import { configureLiveProvidersFromSecret } from './index.ts';

/**
 * Imported by the services that move money (deposits, checkout, refunds, withdrawals): in AWS, when
 * LIVE_PROVIDERS_SECRET_ARN is set, the live adapters are installed from that secret before the
 * first request (top-level await at cold start). Without it nothing happens.
 */
if (process.env.LIVE_PROVIDERS_SECRET_ARN) await configureLiveProvidersFromSecret();
