import type { Currency } from '#shared/domain/money.ts';
import { hasSandboxReceipt, recordSandboxReceipt } from '#shared/store/sandbox-receipts.ts';
import type { Rail } from './rail.ts';

/**
 * The payout rail (withdrawals): its instruction and the sandbox of test mode. The contract is
 * the one of every outbound rail (shared/providers/rail.ts); adapters are installed with
 * configureRail('payout', mode, rail) (shared/providers/rails.ts).
 */
export interface PayoutInstruction {
  /** The gateway's transactionReference: the idempotent client reference the provider sees. */
  reference: string;
  /** The payout's paymentIntentId (the bank transfer file rail records it on its line). */
  paymentIntentId?: string;
  amountMinor: number;
  currency: Currency;
  bankCode: string;
  accountNumber: string;
  accountTitle: string;
  /**
   * The receiver's CNIC, 13 digits (customerRef.cnic, or given by the operator at approval): a rail that needs it says
   * so with `requires` (a live JazzCash wallet payout: JazzCash matches the wallet's MSISDN with the CNIC).
   */
  receiverCnic?: string;
  description: string;
  submittedAt: string;
}

/** A submit whose outcome is unknown. Adapters may throw anything; this one names the case. */
export class BankRailTimeout extends Error {
  constructor() {
    super('the bank rail did not answer in time');
  }
}

/**
 * The sandbox rail (docs/merchant-guide.md "Sandbox"), chosen by the last four characters of the
 * account number:
 *   0000 (and any other)  accepted, completed by the bank within seconds
 *   1111                  rejected by the bank (Failed, WP_REQUEST_REJECTED)
 *   2222                  times out (Processing, WP_OUTCOME_PENDING); the status inquiry says Completed
 * Like a real bank it answers the status inquiry only for payouts it received (a receipt in the
 * table, shared/store/sandbox-receipts.ts), NotFound otherwise.
 * Submissions are counted per process, so tests can prove a payout was submitted exactly once.
 */
const submissions = new Map<string, number>();

export const sandboxRejection =
  'The beneficiary bank rejected the payout: the account cannot receive funds. Check the account details with the customer.';

export const sandboxBankRail: Rail<PayoutInstruction> = {
  name: 'Sandbox Bank Rail',
  ledgerAccount: 'bank_rail',
  timings: { firstCheckAfterMs: 3_000, pollIntervalMs: 3_000, inquireAfterMs: 30_000, retryAfterMs: 30_000 },
  async submit(payout) {
    submissions.set(payout.reference, (submissions.get(payout.reference) ?? 0) + 1);
    await recordSandboxReceipt('bank_rail', payout.reference);
    switch (payout.accountNumber.slice(-4)) {
      case '1111':
        return { outcome: 'rejected', reason: sandboxRejection };
      case '2222':
        throw new BankRailTimeout();
      default:
        return {
          outcome: 'accepted',
          providerReference: `SBX${payout.reference}`,
          estimatedCompletionAt: new Date(Date.parse(payout.submittedAt) + 10_000),
        };
    }
  },
  async status(payout) {
    if (!(await hasSandboxReceipt('bank_rail', payout.reference))) return { status: 'NotFound' };
    if (payout.accountNumber.slice(-4) === '1111') return { status: 'Failed', reason: sandboxRejection };
    return { status: 'Completed', providerReference: `SBX${payout.reference}` };
  },
};

/** How many times this process submitted `reference` to the sandbox rail (tests). */
export const sandboxSubmissionCount = (reference: string) => submissions.get(reference) ?? 0;
