import { verifyAndReport } from '#shared/services/ledger-verify.ts';

/** The daily full ledger verification (functions/jobs.ts `ledgerVerifyFull`); see ./ledger-verify.ts. */
export const handler = async () => verifyAndReport();
