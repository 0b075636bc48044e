import { configureLiveProvidersFromSecret, installLiveWallets } from './index.ts';

/**
 * The boot modules (boot-wallets, boot-wallet-presence, boot-cards, boot-refunds, boot-payouts): the
 * handler of each Lambda that may call a live provider imports the ones for the products its code
 * can reach (the rows and jobs granted the `liveProviders` secret). In AWS, when LIVE_PROVIDERS_SECRET_ARN is set, those
 * adapters are installed from the secret (read once per process) before the first request
 * (top-level await at cold start); without it nothing happens. Not imported by the services, so a
 * Lambda bundles only the adapters it can call: reading a refund none, withdraw the payout rail
 * alone (issue 26). test/infra/code-grants.test.ts checks that the Lambdas loading them are exactly
 * those granted the secret, and that each installs the adapters its code reaches.
 */
if (process.env.LIVE_PROVIDERS_SECRET_ARN) await configureLiveProvidersFromSecret(installLiveWallets);
