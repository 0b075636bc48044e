import { configureLiveProvidersFromSecret } from './index.ts';

/**
 * Imported by the handler of each Lambda that may call a live provider (the rows and jobs granted
 * the `liveProviders` secret: refund creation, checkout and the hosted page, deposit, withdraw, the
 * provider callback, the dashboard app, the due sweeper): in AWS, when LIVE_PROVIDERS_SECRET_ARN is
 * set, the live adapters are installed from that secret before the first request (top-level await
 * at cold start). Without it nothing happens. Not imported by the services, so a Lambda that never
 * calls a provider (reading a refund, a settlement request) bundles no adapter (issue 26);
 * test/infra/code-grants.test.ts checks that the Lambdas loading it are exactly those granted it.
 */
if (process.env.LIVE_PROVIDERS_SECRET_ARN) await configureLiveProvidersFromSecret();
