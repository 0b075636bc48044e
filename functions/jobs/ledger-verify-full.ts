import { verifyAndReport } from '#shared/services/ledger-verify.ts';
import { jobHandler } from '#shared/aws/handler-base.ts';

/** The daily full ledger verification (functions/jobs.ts `ledgerVerifyFull`); see ./ledger-verify.ts. */
export const handler = jobHandler('ledgerVerifyFull', async () => verifyAndReport());
