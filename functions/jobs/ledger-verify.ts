import { verifyAndReport } from '#shared/services/ledger-verify.ts';
import { jobHandler } from '#shared/aws/handler-base.ts';

/**
 * The hourly ledger verifier (functions/jobs.ts `ledgerVerify`): the ledgers whose wallets changed
 * in the last 65 minutes (overlapping the previous run so no change falls between two), with the
 * same code as `npm run ops -- ledger verify`. The daily full run is ./ledger-verify-full.ts.
 */
const windowMs = 65 * 60_000;

export const handler = jobHandler('ledgerVerify', async () =>
  verifyAndReport({ changedSince: new Date(Date.now() - windowMs).toISOString() }),
);
