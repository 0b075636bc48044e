import { checkpointWallets, verifyAndReport } from '#shared/services/ledger-verify.ts';
import { jobHandler } from '#shared/aws/handler-base.ts';

/**
 * The daily full ledger verification (functions/jobs.ts `ledgerVerifyFull`); see ./ledger-verify.ts.
 * Then every wallet's balance checkpoint at the latest final day boundary (docs/ledger-verification.md).
 */
export const handler = jobHandler('ledgerVerifyFull', async () => {
  const report = await verifyAndReport();
  return { ...report, ...(await checkpointWallets()) };
});
