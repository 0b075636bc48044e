import { fromMinor } from '#shared/domain/money.ts';
import { printable, textWidth, writePdf, type StandardFont, type TextOp } from './pdf-writer.ts';
import { periodBounds, statementCoverage, type Statement, type Totals } from './statements.ts';

/**
 * A statement as PDF (the standard Helvetica and Courier fonts: nothing embedded): the summary
 * (opening balance, subtotals by type, fees, closing balance), then every movement grouped by type,
 * and on every page the statement's digest (shared/services/statements.ts). Written by the minimal
 * writer in ./pdf-writer.ts (a PDF library would put the PDF Lambdas over their bundle budget).
 */
const pageSize: [number, number] = [595.28, 841.89]; // A4
const margin = 40;
const line = 13;

export async function statementPdf(s: Statement, generatedAt = new Date()): Promise<Uint8Array> {
  const regular: StandardFont = 'Helvetica';
  const bold: StandardFont = 'Helvetica-Bold';
  const mono: StandardFont = 'Courier';
  const money = (minor: number) => fromMinor(minor, s.currency).toFixed(s.currency === 'USDT' ? 6 : 2);

  const pages: { width: number; height: number; ops: TextOp[] }[] = [];
  let page: TextOp[] = [];
  let y = 0;
  const footer = (p: TextOp[]) =>
    p.push({ text: `SHA-256 of the statement's rows: ${s.digest}`, x: margin, y: 24, size: 7, font: mono, gray: 0.3 });
  const newPage = () => {
    page = [];
    pages.push({ width: pageSize[0], height: pageSize[1], ops: page });
    footer(page);
    y = pageSize[1] - margin;
  };
  const text = (t: string, x: number, options: { font?: StandardFont; size?: number; right?: boolean } = {}) => {
    const font = options.font ?? regular;
    const size = options.size ?? 9;
    const value = printable(t);
    const at = options.right ? x - textWidth(value, font, size) : x;
    page.push({ text: value, x: at, y, size, font });
  };
  const next = (gap = line) => {
    y -= gap;
    if (y < margin + 20) newPage();
  };
  newPage();

  text('Balance statement', margin, { font: bold, size: 16 });
  if (s.status === 'provisional') text('PROVISIONAL', 555, { font: bold, size: 12, right: true });
  next(24);
  text(`${s.merchantName} (${s.merchantId})`, margin, { size: 10 });
  next(15);
  text(`${s.currency}, ${s.mode} mode: ${statementCoverage(s)}`, margin, { font: bold, size: 10 });
  next(15);
  if (s.status === 'provisional') {
    const notes =
      s.to < periodBounds(s.period).to
        ? [
            `Month to date: every movement recorded from ${s.from} up to ${s.to} (today's too when that is today).`,
            'Later movements are added until the month ends; an hour after it ends, the statement is final and never changes.',
          ]
        : [`The whole month, final an hour after it ended (${s.to}): until then a later copy may still differ.`];
    for (const note of notes) {
      text(note, margin, { size: 8 });
      next(11);
    }
  }
  text(`From ${s.from} to ${s.to} (exclusive). Generated ${generatedAt.toISOString()}. Amounts in ${s.currency}.`, margin, { size: 8 });
  next(24);

  const columns = [
    { label: 'Type', x: margin },
    { label: 'Count', x: 200, right: true },
    { label: 'Amount', x: 280, right: true },
    { label: 'Fee', x: 350, right: true },
    { label: 'Net', x: 430, right: true },
    { label: 'Available change', x: 555, right: true },
  ];
  const totalsLine = (label: string, t: Totals, font: StandardFont = regular) => {
    const cells = [label, String(t.count), money(t.amount), money(t.fee), money(t.net), money(t.availableChange)];
    for (const [i, c] of cells.entries()) text(c, columns[i]!.x, { font, right: columns[i]!.right === true });
    next();
  };
  text('Opening balance', margin, { font: bold, size: 10 });
  text(`available ${money(s.opening.available)}   pending ${money(s.opening.pending)}`, 555, { size: 10, right: true });
  next(18);
  for (const c of columns) text(c.label, c.x, { font: bold, right: c.right === true });
  next(15);
  if (!s.byType.length) {
    text('No movements in this period.', margin);
    next();
  }
  for (const g of s.byType) totalsLine(g.type, g.totals);
  totalsLine('Total', s.totals, bold);
  next(4);
  text('Fees charged', margin, { font: bold, size: 10 });
  text(money(s.totals.fee), 555, { size: 10, right: true });
  next(16);
  text('Closing balance', margin, { font: bold, size: 10 });
  text(`available ${money(s.closing.available)}   pending ${money(s.closing.pending)}`, 555, { size: 10, right: true });
  next(24);

  text('Movements', margin, { font: bold, size: 12 });
  next(18);
  if (!s.byType.length) text(`No movements from ${s.from} to ${s.to}: the opening balance is the closing balance.`, margin);
  const movementColumns = [
    { label: 'Time (UTC)', x: margin },
    { label: 'Source', x: 120 },
    { label: 'Amount', x: 375, right: true },
    { label: 'Fee', x: 425, right: true },
    { label: 'Available after', x: 490, right: true },
    { label: 'Pending after', x: 555, right: true },
  ];
  for (const g of s.byType) {
    text(`${g.type} (${g.totals.count})`, margin, { font: bold });
    next(12);
    for (const c of movementColumns) text(c.label, c.x, { font: bold, size: 7, right: c.right === true });
    next(10);
    for (const m of g.movements) {
      const cells = [
        m.createdAt.replace('T', ' ').slice(0, 19),
        `${m.source.type} ${m.source.id}`.slice(0, 60),
        money(m.amountMinor),
        money(m.feeMinor),
        money(m.availableAfter),
        money(m.pendingAfter),
      ];
      for (const [i, c] of cells.entries()) text(c, movementColumns[i]!.x, { size: 7, right: movementColumns[i]!.right === true });
      next(10);
    }
    next(4);
  }
  const title = `Statement ${s.period}${s.status === 'provisional' ? ' to date (provisional)' : ''} ${s.currency} (${s.mode})`;
  return writePdf({ title, subject: `sha256=${s.digest}`, producer: 'payment-gateway statements', createdAt: generatedAt }, pages);
}
