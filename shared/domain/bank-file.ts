import { createHash } from 'node:crypto';
import type { Mode } from './credentials.ts';
import { currencyExponents, type Currency } from './money.ts';

/**
 * The bank transfer file rail (docs/providers/bank-file.md): for banks with no payout API, live
 * payouts and settlements to bank accounts are queued as lines, exported by the operator as one
 * bulk-transfer file per batch (a CSV in the layout of the operator's bank), uploaded to the bank's
 * corporate portal by hand, and marked paid (with the bank's reference) or failed line by line.
 *
 *   queued    the rail received the instruction (the payout / settlement is Processing, funds held)
 *   exported  the line is in exactly one batch (a file); the bank has it or will
 *   paid      the bank confirmed it: the rail's status inquiry answers Completed
 *   failed    the bank refused it: Failed, the hold released
 *   void      the rail never received it and never will (its status inquiry answered NotFound)
 */
export type BankFileLineState = 'queued' | 'exported' | 'paid' | 'failed' | 'void';
export type BankFileKind = 'payout' | 'settlement';

export interface BankFileLine {
  /** The rail reference: a payout's transactionReference or a settlement's id. */
  reference: string;
  kind: BankFileKind;
  /** The payout's paymentIntentId or the settlement's id: what the mark completes or fails. */
  itemId: string;
  mode: Mode;
  /** The operator's (paying) bank whose file carries the line: its corporate portal pays it. */
  bank: string;
  currency: Currency;
  amountMinor: number;
  beneficiary: { bank: string; account: string; title: string };
  narration: string;
  queuedAt: string;
  state: BankFileLineState;
  batchId?: string;
  exportedAt?: string;
  bankReference?: string;
  failureReason?: string;
  markedAt?: string;
  markedBy?: string;
}

/** The operator's bank code: it names the files and the queue (`ops bank-file export --bank <code>`). */
export const isBankFileBank = (bank: string) => /^[A-Z0-9]{2,12}$/.test(bank);

/** What a layout's column shows. */
export const layoutFields = [
  'line',
  'reference',
  'beneficiaryBank',
  'beneficiaryAccount',
  'beneficiaryTitle',
  'amount',
  'currency',
  'narration',
  'batch',
] as const;
export type LayoutField = (typeof layoutFields)[number];

/**
 * A bank's bulk-transfer CSV layout: its column titles in order, each showing one field. A bank's own
 * template (from its corporate portal, at onboarding) is written as such a layout (a JSON file given to
 * `ops bank-file export --layout`); without one the generic layout below is used.
 */
export interface BankFileLayout {
  name: string;
  columns: { title: string; field: LayoutField }[];
}

export const genericLayout: BankFileLayout = {
  name: 'generic',
  columns: [
    { title: 'Sr', field: 'line' },
    { title: 'Customer Reference', field: 'reference' },
    { title: 'Beneficiary Bank', field: 'beneficiaryBank' },
    { title: 'Beneficiary Account / IBAN', field: 'beneficiaryAccount' },
    { title: 'Beneficiary Title', field: 'beneficiaryTitle' },
    { title: 'Amount', field: 'amount' },
    { title: 'Currency', field: 'currency' },
    { title: 'Narration', field: 'narration' },
    { title: 'Batch', field: 'batch' },
  ],
};

/** A layout given by the operator: refused unless it names known fields and has the reference and amount columns. */
export function parseLayout(value: unknown): BankFileLayout {
  const v = value as Partial<BankFileLayout> | null;
  if (!v || typeof v.name !== 'string' || !v.name || !Array.isArray(v.columns) || v.columns.length === 0)
    throw new Error('a layout is { "name": "...", "columns": [{ "title": "...", "field": "..." }, ...] }');
  for (const c of v.columns)
    if (typeof c?.title !== 'string' || !(layoutFields as readonly string[]).includes(c.field))
      throw new Error(`each column has a title and a field, one of ${layoutFields.join(', ')}`);
  for (const needed of ['reference', 'amount', 'beneficiaryAccount'] as const)
    if (!v.columns.some((c) => c.field === needed)) throw new Error(`a layout needs a ${needed} column`);
  return { name: v.name, columns: v.columns.map((c) => ({ title: c.title, field: c.field })) };
}

/** One file: its lines (in file order) and what identifies it. Stored; reprinting it gives the same bytes. */
export interface BankFileBatch {
  batchId: string;
  bank: string;
  currency: Currency;
  layout: BankFileLayout;
  references: string[];
  count: number;
  totalMinor: number;
  /** SHA-256 (hex) of the file's bytes. */
  digest: string;
  createdAt: string;
  createdBy: string;
}

/** At most this many lines in one file: the batch and its lines change in ONE transaction (100 items). */
export const maxLinesPerBatch = 95;

/** An amount as a bank file shows it: plain decimal major units (`1500.00`), no grouping. */
export function decimalAmount(minor: number, currency: Currency): string {
  const exponent = currencyExponents[currency];
  const digits = String(minor).padStart(exponent + 1, '0');
  return exponent ? `${digits.slice(0, -exponent)}.${digits.slice(-exponent)}` : digits;
}

/** A batch id: the bank, the UTC time to the second and a random suffix (`HBL-20261129-011502-7F3A`). */
export function newBatchId(bank: string, now: Date, random: string): string {
  const t = now.toISOString();
  return `${bank}-${t.slice(0, 10).replaceAll('-', '')}-${t.slice(11, 19).replaceAll(':', '')}-${random.slice(0, 4).toUpperCase()}`;
}

/** The rows of a file (header, lines, totals) as cells; the caller writes them as CSV. */
export function batchRows(batch: Omit<BankFileBatch, 'digest'>, lines: BankFileLine[]): Record<string, string>[] {
  const byRef = new Map(lines.map((l) => [l.reference, l]));
  const cell = (field: LayoutField, line: BankFileLine, n: number): string => {
    switch (field) {
      case 'line':
        return String(n);
      case 'reference':
        return line.reference;
      case 'beneficiaryBank':
        return line.beneficiary.bank;
      case 'beneficiaryAccount':
        return line.beneficiary.account;
      case 'beneficiaryTitle':
        return line.beneficiary.title;
      case 'amount':
        return decimalAmount(line.amountMinor, line.currency);
      case 'currency':
        return line.currency;
      case 'narration':
        return line.narration;
      case 'batch':
        return batch.batchId;
    }
  };
  const rows = batch.references.map((reference, i) => {
    const line = byRef.get(reference);
    if (!line) throw new Error(`bank file ${batch.batchId}: line ${reference} is missing`);
    return Object.fromEntries(batch.layout.columns.map((c) => [c.title, cell(c.field, line, i + 1)]));
  });
  const total = (field: LayoutField, first: boolean): string => {
    if (field === 'amount') return decimalAmount(batch.totalMinor, batch.currency);
    if (field === 'currency') return batch.currency;
    if (field === 'reference') return `${batch.count} lines`;
    if (field === 'batch') return batch.batchId;
    return first ? 'TOTAL' : '';
  };
  rows.push(Object.fromEntries(batch.layout.columns.map((c, i) => [c.title, total(c.field, i === 0)])));
  return rows;
}

/** Where a line stands, as the merchant sees it (the dashboard's settlement page). */
export function bankFileStanding(line: BankFileLine): string {
  switch (line.state) {
    case 'queued':
      return `Queued for the next bank transfer file (${line.bank}).`;
    case 'exported':
      return `In bank file ${line.batchId}, awaiting the bank.`;
    case 'paid':
      return `Paid by the bank: reference ${line.bankReference} (bank file ${line.batchId}).`;
    case 'failed':
      return `Not paid by the bank: ${line.failureReason} (bank file ${line.batchId}).`;
    case 'void':
      return 'Never received by the bank transfer file rail.';
  }
}

export const sha256Hex = (text: string) => createHash('sha256').update(text, 'utf8').digest('hex');
