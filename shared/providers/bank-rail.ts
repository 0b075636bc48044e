import type { Mode } from '#shared/domain/credentials.ts';
import type { Currency } from '#shared/domain/money.ts';
import { instrumented } from '#shared/metrics.ts';

/**
 * The bank rail: where payouts leave the gateway. An adapter does two things, and the gateway
 * calls `submit` AT MOST ONCE per payout (the submission is recorded before the call):
 *
 *   submit(payout)         → accepted | rejected | not_submitted; THROWS when the outcome is unknown
 *                            (timeout, connection lost after sending): the payout then stays
 *                            Processing with WP_OUTCOME_PENDING and only statusInquiry settles it.
 *   statusInquiry(payout)  → Completed | Failed | Processing | NotFound, by our reference.
 *
 * Test mode uses the sandbox below (CONTRACT §9). Live mode uses the adapter configured for the
 * deployment (configureBankRail); with none, live withdrawals are refused with a 422.
 */
export interface PayoutInstruction {
  /** The gateway's transactionReference: the idempotent client reference the provider sees. */
  reference: string;
  amountMinor: number;
  currency: Currency;
  bankCode: string;
  accountNumber: string;
  accountTitle: string;
  description: string;
  submittedAt: string;
}

export type SubmitResult =
  | { outcome: 'accepted'; providerReference: string | null; message?: string; estimatedCompletionAt: Date }
  /** Refused by the provider or bank. `reason` is shown to the merchant and may reach an end customer. */
  | { outcome: 'rejected'; reason: string }
  /** Certainly never reached the provider (the adapter failed before sending). `internal` is logged only. */
  | { outcome: 'not_submitted'; internal: string };

export type InquiryResult =
  | { status: 'Completed'; providerReference?: string | null; completedAt?: Date }
  | { status: 'Failed'; reason: string }
  | { status: 'Processing' }
  /** The provider has no record of the reference. */
  | { status: 'NotFound' };

export interface BankRail {
  /** payoutInfo.provider */
  readonly name: string;
  submit(payout: PayoutInstruction): Promise<SubmitResult>;
  statusInquiry(payout: PayoutInstruction): Promise<InquiryResult>;
  /** After an accepted submission, when to ask for the outcome (and then every `pollIntervalMs`). */
  readonly firstCheckAfterMs: number;
  readonly pollIntervalMs: number;
  /** After a submission whose outcome is unknown, when the reconciler first asks. */
  readonly reconcileAfterMs: number;
}

/** A submit whose outcome is unknown. Adapters may throw anything; this one names the case. */
export class BankRailTimeout extends Error {
  constructor() {
    super('the bank rail did not answer in time');
  }
}

/**
 * The sandbox rail (CONTRACT §9), chosen by the last four characters of the account number:
 *   0000 (and any other)  accepted, completed by the bank within seconds
 *   1111                  rejected by the bank (Failed, WP_REQUEST_REJECTED)
 *   2222                  times out (Processing, WP_OUTCOME_PENDING); the status inquiry says Completed
 * Stateless (the outcome follows from the payout), so any process may ask. Submissions are counted
 * per process, so tests can prove a payout was submitted exactly once.
 */
const submissions = new Map<string, number>();

export const sandboxRejection = 'The beneficiary bank rejected the payout: the account cannot receive funds. Check the account details with the customer.';

export const sandboxBankRail: BankRail = {
  name: 'Sandbox Bank Rail',
  firstCheckAfterMs: 3_000,
  pollIntervalMs: 3_000,
  reconcileAfterMs: 30_000,
  async submit(payout) {
    submissions.set(payout.reference, (submissions.get(payout.reference) ?? 0) + 1);
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
  async statusInquiry(payout) {
    if (payout.accountNumber.slice(-4) === '1111') return { status: 'Failed', reason: sandboxRejection };
    return { status: 'Completed', providerReference: `SBX${payout.reference}` };
  },
};

/** How many times this process submitted `reference` to the sandbox rail (tests). */
export const sandboxSubmissionCount = (reference: string) => submissions.get(reference) ?? 0;

const configured: Partial<Record<Mode, BankRail>> = { test: sandboxBankRail };

/** The rail for a mode; undefined when live mode has no provider configured. */
export function bankRailFor(mode: Mode): BankRail | undefined {
  return instrumented('bank_rail', configured[mode]);
}

/** Installs a live adapter (deployment wiring) or, in tests, a fake one; `undefined` removes it. */
export function configureBankRail(mode: Mode, rail: BankRail | undefined): void {
  if (rail) configured[mode] = rail;
  else delete configured[mode];
}
