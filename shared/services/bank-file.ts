import { randomUUID } from 'node:crypto';
import { again, retry, retryPolicies, type Again } from '#shared/retry.ts';
import {
  batchRows,
  decimalAmount,
  genericLayout,
  maxLinesPerBatch,
  newBatchId,
  sha256Hex,
  type BankFileBatch,
  type BankFileLayout,
  type BankFileLine,
} from '#shared/domain/bank-file.ts';
import { BusinessRuleError, NotFoundError } from '#shared/domain/errors.ts';
import type { Currency } from '#shared/domain/money.ts';
import { settlementStatusNames } from '#shared/domain/settlement.ts';
import { bankFilePayoutRail, bankFileSettlementRail } from '#shared/providers/bank-file-rail.ts';
import {
  auditBankFile,
  bankFileAuditOf,
  createBankFileBatch,
  getBankFileBatch,
  getBankFileLine,
  linesOfBatch,
  listBankFileBatches,
  markBankFileLine,
  queuedBankFileLines,
} from '#shared/store/bank-file.ts';
import { TransactionFailed } from '#shared/store/client.ts';
import { getIntent } from '#shared/store/intents.ts';
import { csvOf } from './csv-export.ts';
import { advanceSettlement } from './settlements.ts';
import { reconcileWithdrawal } from './withdrawals.ts';

/**
 * The operator's side of the bank transfer file rail (docs/providers/bank-file.md, `ops bank-file`):
 * export the queued lines of a bank as ONE new file (a line is never in two files; exporting with
 * nothing new prints the newest file again, byte for byte), and mark each line paid or failed with
 * the bank's answer, which the rail's status inquiry then carries into the payout's or settlement's
 * own completion or failure (Completed; or Failed with the hold released). Every step is audited.
 */

/** The file's bytes: CSV (RFC 4180, `\r\n`, formula-safe cells), header, lines, totals. */
function render(batch: Omit<BankFileBatch, 'digest'>, lines: BankFileLine[]): string {
  return csvOf(
    batch.layout.columns.map((c) => c.title),
    batchRows(batch, lines),
  );
}

export interface ExportedFile {
  batch: BankFileBatch;
  csv: string;
  /** True for a new file; false when nothing was queued and the newest file is printed again. */
  created: boolean;
}

/**
 * `ops bank-file export`: the queued lines of `bank` in `currency` (at most maxLinesPerBatch, oldest
 * first) become one new file, in ONE transaction with the lines' move to it and its audit entry. With
 * nothing queued, the newest file of the bank again (audited as a reprint); undefined when there is none.
 */
export async function exportBankFile(input: {
  bank: string;
  currency: Currency;
  actor: string;
  layout?: BankFileLayout;
  now?: Date;
}): Promise<ExportedFile | undefined> {
  let lost: unknown;
  return retry(
    { ...retryPolicies.versionRace, attempts: 3 },
    async (): Promise<ExportedFile | undefined | Again> => {
      const lines = await queuedBankFileLines(input.bank, input.currency, maxLinesPerBatch);
      if (lines.length === 0) {
        const [newest] = await listBankFileBatches(input.bank, input.currency, 1);
        return newest ? { ...(await reprintBankFile(newest.batchId, input.actor, input.now)), created: false } : undefined;
      }
      const now = input.now ?? new Date();
      const draft = {
        batchId: newBatchId(input.bank, now, randomUUID()),
        bank: input.bank,
        currency: input.currency,
        layout: input.layout ?? genericLayout,
        references: lines.map((l) => l.reference),
        count: lines.length,
        totalMinor: lines.reduce((sum, l) => sum + l.amountMinor, 0),
        createdAt: now.toISOString(),
        createdBy: input.actor,
      };
      const csv = render(draft, lines);
      const batch: BankFileBatch = { ...draft, digest: sha256Hex(csv) };
      try {
        await createBankFileBatch(batch, {
          batchId: batch.batchId,
          at: batch.createdAt,
          actor: input.actor,
          action: 'exported',
          digest: batch.digest,
          detail:
            `${batch.count} lines, ${decimalAmount(batch.totalMinor, batch.currency)} ${batch.currency}, ` +
            `${Buffer.byteLength(csv)} bytes`,
        });
        return { batch, csv, created: true };
      } catch (error) {
        // A line left the queue meanwhile (another export took it): read the queue again.
        if (!(error instanceof TransactionFailed)) throw error;
        lost = error;
        return again;
      }
    },
    () => lost as Error,
  );
}

/** A file again, exactly as exported (its digest checked), audited as a reprint. */
export async function reprintBankFile(batchId: string, actor: string, now = new Date()): Promise<{ batch: BankFileBatch; csv: string }> {
  const batch = await getBankFileBatch(batchId);
  if (!batch) throw new NotFoundError(`No bank file ${batchId}.`);
  const csv = render(batch, await linesOfBatch(batch));
  if (sha256Hex(csv) !== batch.digest)
    throw new Error(`bank file ${batchId}: the lines no longer give the exported bytes (digest ${batch.digest}); do not upload it`);
  await auditBankFile({ batchId, at: now.toISOString(), actor, action: 'reprinted', digest: batch.digest });
  return { batch, csv };
}

/** `ops bank-file show`: a file, its lines' states and the operator's steps on it. */
export async function showBankFile(batchId: string) {
  const batch = await getBankFileBatch(batchId);
  if (!batch) throw new NotFoundError(`No bank file ${batchId}.`);
  const lines = await linesOfBatch(batch);
  return { batch, lines, audit: await bankFileAuditOf(batchId) };
}

/** `ops bank-file list`: what is queued for a bank and its newest files. */
export async function bankFileQueue(bank: string, currency: Currency) {
  const [queued, batches] = await Promise.all([queuedBankFileLines(bank, currency, 1_000), listBankFileBatches(bank, currency, 10)]);
  return { queued, batches };
}

export type LineOutcome = { state: 'paid'; bankReference: string } | { state: 'failed'; failureReason: string };

const sameOutcome = (line: BankFileLine, outcome: LineOutcome) =>
  line.state === outcome.state &&
  (outcome.state === 'paid' ? line.bankReference === outcome.bankReference : line.failureReason === outcome.failureReason);

/**
 * `ops bank-file mark`: the bank's answer for one line of a file, once (the same answer again changes
 * nothing; a different one is refused), audited in the line's own transaction; then the payout or
 * settlement is settled at once through its rail's status inquiry (Completed, or Failed with the hold
 * released: the products' own paths and journals). Returns the line and the item's status after.
 */
export async function markBankFile(input: { batchId: string; reference: string; outcome: LineOutcome; actor: string; now?: Date }) {
  const now = input.now ?? new Date();
  const { batchId, reference, outcome } = input;
  if (outcome.state === 'paid' && !outcome.bankReference.trim())
    throw new BusinessRuleError("A paid line needs the bank's reference.", 'bank_reference_required');
  if (outcome.state === 'failed' && !outcome.failureReason.trim())
    throw new BusinessRuleError('A failed line needs the reason the bank gave.', 'reason_required');
  const batch = await getBankFileBatch(batchId);
  if (!batch) throw new NotFoundError(`No bank file ${batchId}.`);
  if (!batch.references.includes(reference)) throw new NotFoundError(`Bank file ${batchId} has no line ${reference}.`);
  const marked = await markBankFileLine(reference, batchId, outcome, {
    batchId,
    at: now.toISOString(),
    actor: input.actor,
    action: outcome.state === 'paid' ? 'line.paid' : 'line.failed',
    digest: batch.digest,
    reference,
    detail: outcome.state === 'paid' ? `bank reference ${outcome.bankReference}` : outcome.failureReason,
  });
  const line = (await getBankFileLine(reference))!;
  if (!marked && !sameOutcome(line, outcome))
    throw new BusinessRuleError(
      `Line ${reference} of ${batchId} is already ${line.state}` +
        `${line.state === 'paid' ? ` (bank reference ${line.bankReference})` : line.failureReason ? ` (${line.failureReason})` : ''}` +
        `; it cannot be marked ${outcome.state}.`,
      'already_marked',
    );
  return { line, changed: marked, status: await settle(line, now) };
}

/** The payout's or settlement's step through the bank file rail's inquiry (never a submit); its status after. */
async function settle(line: BankFileLine, now: Date): Promise<string | undefined> {
  const config = { bank: line.bank };
  if (line.kind === 'payout') {
    const intent = await getIntent(line.itemId);
    if (!intent) return undefined;
    await reconcileWithdrawal(
      intent,
      now,
      bankFilePayoutRail(config, line.mode, () => now),
    );
    return (await getIntent(line.itemId))?.status;
  }
  const after = await advanceSettlement(line.itemId, now, () => bankFileSettlementRail(config, line.mode, () => now));
  return after && settlementStatusNames[after.status];
}
