import type { BankFileKind, BankFileLine } from '#shared/domain/bank-file.ts';
import type { Mode } from '#shared/domain/credentials.ts';
import { getBankFileLine, queueBankFileLine, voidBankFileLine } from '#shared/store/bank-file.ts';
import type { PayoutInstruction } from './bank-rail.ts';
import type { Instruction, Rail, RailTimings, StatusAnswer, SubmitAnswer } from './rail.ts';
import type { SettlementInstruction } from './settlement-rail.ts';

/**
 * The bank transfer file rail (docs/providers/bank-file.md): the outbound rail contract
 * (shared/providers/rail.ts) over a file the operator exports, uploads to the bank's corporate portal
 * and marks line by line (shared/services/bank-file.ts, `ops bank-file`). Nothing here talks to a bank.
 *
 *   submit   queues the instruction as a line of the next file of `bank` (once per reference: a
 *            second delivery finds the same line): accepted, no provider reference yet
 *   status   the line: queued or in a file → Processing; marked paid → Completed with the bank's
 *            reference; marked failed → Failed; no line → NotFound, and the reference is made void
 *            first, so a submission arriving later is never queued (the contract's NotFound rule)
 *
 * The payout or settlement stays Processing, its funds held, until the operator marks its line.
 */
export interface BankFileRailConfig {
  /** The operator's (paying) bank: its code names its files (`ops bank-file export --bank <code>`). */
  bank: string;
}

/** Banks confirm a bulk file in hours, not seconds: the inquiry asks rarely; a mark asks at once. */
export const bankFileTimings: RailTimings = {
  firstCheckAfterMs: 15 * 60_000,
  pollIntervalMs: 15 * 60_000,
  inquireAfterMs: 30_000,
  retryAfterMs: 30_000,
};

/** A line is usually paid the next business day: what the payout shows as its estimated completion. */
const expectedWithinMs = 24 * 3_600_000;

type LineOf<I> = (i: I) => Omit<BankFileLine, 'bank' | 'mode' | 'state' | 'queuedAt' | 'kind'> | { refused: string };

function bankFileRail<I extends Instruction>(
  kind: BankFileKind,
  spec: { name: string; ledgerAccount: string },
  config: BankFileRailConfig,
  mode: Mode,
  lineOf: LineOf<I>,
  now: () => Date,
): Rail<I> {
  return {
    name: spec.name,
    ledgerAccount: spec.ledgerAccount,
    timings: bankFileTimings,
    async submit(i): Promise<SubmitAnswer> {
      const made = lineOf(i);
      if ('refused' in made) return { outcome: 'rejected', reason: made.refused };
      const at = now();
      const line = await queueBankFileLine({ ...made, kind, bank: config.bank, mode, state: 'queued', queuedAt: at.toISOString() });
      if (line.state === 'void')
        return { outcome: 'rejected', reason: 'The bank transfer file rail never received this submission in time.', internal: true };
      return {
        outcome: 'accepted',
        providerReference: null,
        message: `Queued for the bank transfer file of ${line.bank}; paid once the bank confirms it.`,
        estimatedCompletionAt: new Date(Date.parse(line.queuedAt) + expectedWithinMs),
      };
    },
    async status(i): Promise<StatusAnswer> {
      const line = (await getBankFileLine(i.reference)) ?? (await voidBankFileLine(i.reference, now()));
      if (!line || line.state === 'void') return { status: 'NotFound' };
      if (line.state === 'paid')
        return { status: 'Completed', providerReference: line.bankReference ?? null, completedAt: new Date(line.markedAt!) };
      if (line.state === 'failed') return { status: 'Failed', reason: `The bank did not pay the transfer: ${line.failureReason}` };
      return { status: 'Processing' };
    },
  };
}

/** Live payouts to bank accounts (every bank code the payout rail routes here). */
export const bankFilePayoutRail = (config: BankFileRailConfig, mode: Mode = 'live', now = () => new Date()): Rail<PayoutInstruction> =>
  bankFileRail<PayoutInstruction>(
    'payout',
    { name: `Bank transfer file (${config.bank})`, ledgerAccount: 'bank_rail' },
    config,
    mode,
    (i) =>
      i.paymentIntentId
        ? {
            reference: i.reference,
            itemId: i.paymentIntentId,
            currency: i.currency,
            amountMinor: i.amountMinor,
            beneficiary: { bank: i.bankCode, account: i.accountNumber, title: i.accountTitle },
            narration: i.description,
          }
        : { refused: 'The payout has no payment intent id.' },
    now,
  );

/** Live settlements to bank accounts; a USDT destination is refused (no such rail in live mode). */
export const bankFileSettlementRail = (
  config: BankFileRailConfig,
  mode: Mode = 'live',
  now = () => new Date(),
): Rail<SettlementInstruction> => ({
  ...bankFileRail<SettlementInstruction>(
    'settlement',
    { name: `Bank transfer file (${config.bank})`, ledgerAccount: 'settlement_rail' },
    config,
    mode,
    (i) =>
      i.destination.type === 'bank'
        ? {
            reference: i.reference,
            itemId: i.reference,
            currency: i.payoutCurrency,
            amountMinor: i.payoutMinor,
            beneficiary: { bank: i.destination.bankName, account: i.destination.iban, title: i.destination.accountTitle },
            narration: `Settlement ${i.reference}`,
          }
        : { refused: usdtRefusal },
    now,
  ),
  refuses: (target) => (target.destination?.type === 'usdt' ? usdtRefusal : undefined),
});

const usdtRefusal = 'Live settlements go to bank accounts only: no USDT transfer rail is configured for live mode.';
