import { describe, expect, it } from 'vitest';
import {
  batchRows,
  decimalAmount,
  genericLayout,
  isBankFileBank,
  newBatchId,
  parseLayout,
  type BankFileBatch,
  type BankFileLine,
} from '#shared/domain/bank-file.ts';
import { configureLiveProviders } from '#shared/providers/live/index.ts';
import { payoutRail, settlementRail } from '#shared/providers/rails.ts';
import { csvOf } from '#shared/services/csv-export.ts';

const line = (over: Partial<BankFileLine>): BankFileLine => ({
  reference: 'WD1',
  kind: 'payout',
  itemId: 'i1',
  mode: 'live',
  bank: 'HBL',
  currency: 'PKR',
  amountMinor: 1500_00,
  beneficiary: { bank: 'MEEZAN', account: 'PK36MEZN0000001123456702', title: 'Ayesha Khan' },
  narration: 'Order 7',
  queuedAt: '2026-11-29T00:00:00.000Z',
  state: 'queued',
  ...over,
});

describe('bank transfer file (domain)', () => {
  it('writes amounts as plain decimal major units', () => {
    expect(decimalAmount(1500_00, 'PKR')).toBe('1500.00');
    expect(decimalAmount(5, 'PKR')).toBe('0.05');
    expect(decimalAmount(1_234_567_89, 'USD')).toBe('1234567.89');
  });

  it("renders a bank's own layout with a totals row, and a formula in a merchant's text is never run", () => {
    const layout = parseLayout({
      name: 'bank-x',
      columns: [
        { title: 'IBAN', field: 'beneficiaryAccount' },
        { title: 'Name', field: 'beneficiaryTitle' },
        { title: 'Amount', field: 'amount' },
        { title: 'Ref', field: 'reference' },
      ],
    });
    const lines = [
      line({}),
      line({ reference: 'WD2', amountMinor: 25_50, beneficiary: { bank: 'HBL', account: 'PK1', title: '=HYPERLINK(1)' } }),
    ];
    const batch: Omit<BankFileBatch, 'digest'> = {
      batchId: newBatchId('HBL', new Date('2026-11-29T01:15:02Z'), 'abcd1234'),
      bank: 'HBL',
      currency: 'PKR',
      layout,
      references: ['WD2', 'WD1'],
      count: 2,
      totalMinor: 1525_50,
      createdAt: '2026-11-29T01:15:02.000Z',
      createdBy: 'alice',
    };
    expect(batch.batchId).toBe('HBL-20261129-011502-ABCD');
    const csv = csvOf(
      layout.columns.map((c) => c.title),
      batchRows(batch, lines),
    );
    expect(csv.split('\r\n')).toEqual([
      'IBAN,Name,Amount,Ref',
      "PK1,'=HYPERLINK(1),25.50,WD2",
      'PK36MEZN0000001123456702,Ayesha Khan,1500.00,WD1',
      'TOTAL,,1525.50,2 lines',
      '',
    ]);
    expect(() => batchRows({ ...batch, references: ['WD3'] }, lines)).toThrow(/line WD3 is missing/);
  });

  it('refuses a layout without the reference, amount or account, or with an unknown field', () => {
    expect(() => parseLayout({ name: 'x', columns: [{ title: 'Amount', field: 'amount' }] })).toThrow(/reference/);
    expect(() => parseLayout({ name: 'x', columns: [{ title: 'A', field: 'iban' }] })).toThrow(/one of line, reference/);
    expect(parseLayout(JSON.parse(JSON.stringify(genericLayout)))).toEqual(genericLayout);
  });

  it('installs the rails only for a valid bank code (it names the files and the queue)', () => {
    expect(isBankFileBank('HBL')).toBe(true);
    expect(isBankFileBank('hbl')).toBe(false);
    configureLiveProviders({ bankFile: { bank: 'bad bank' } });
    expect(payoutRail('live', { bankCode: 'MEEZAN' })).toBeUndefined();
    configureLiveProviders({ bankFile: { bank: 'MCB' } });
    expect(payoutRail('live', { bankCode: 'MEEZAN' })?.name).toBe('Bank transfer file (MCB)');
    expect(settlementRail('live')?.refuses?.({ destination: { type: 'usdt', address: 'T', network: 'TRC20' } })).toMatch(
      /bank accounts only/,
    );
    configureLiveProviders(undefined);
    expect(settlementRail('live')).toBeUndefined();
  });
});
