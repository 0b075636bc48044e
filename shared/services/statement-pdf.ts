import { fromMinor } from '#shared/domain/money.ts';
import { printable, textWidth, writePdf, type StandardFont, type TextOp } from './pdf-writer.ts';
import type { Statement, Totals } from './statements.ts';

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

  text(s.status === 'provisional' ? 'Balance statement - PROVISIONAL, month to date' : 'Balance statement', margin, {
    font: bold,
    size: 16,
  });
  next(22);
  if (s.status === 'provisional') {
    text(`Not final: through ${s.to}; the month's later movements will be added until it closes.`, margin, { size: 9 });
    next();
  }
  text(`${s.merchantName} (${s.merchantId})`, margin, { size: 10 });
  next();
  text(`${s.period} (${s.from} to ${s.to}, UTC) - ${s.currency} - ${s.mode} mode`, margin, { size: 10 });
  next();
  text(`Generated ${generatedAt.toISOString()}`, margin, { size: 8 });
  next(20);

  const columns = [
    { label: 'Type', x: margin },
    { label: 'Count', x: 230, right: true },
    { label: 'Amount', x: 320, right: true },
    { label: 'Fee', x: 400, right: true },
    { label: 'Net', x: 480, right: true },
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
  next();
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
  next(16);
  for (const g of s.byType) {
    text(`${g.type} (${g.totals.count})`, margin, { font: bold });
    next();
    for (const m of g.movements) {
      text(m.createdAt.replace('T', ' ').slice(0, 19), margin, { size: 7 });
      text(`${m.source.type} ${m.source.id}`.slice(0, 58), 120, { size: 7 });
      text(money(m.amountMinor), 400, { size: 7, right: true });
      text(money(m.feeMinor), 450, { size: 7, right: true });
      text(money(m.availableAfter), 555, { size: 7, right: true });
      next(10);
    }
    next(4);
  }
  const title = `Statement ${s.period}${s.status === 'provisional' ? ' to date (provisional)' : ''} ${s.currency} (${s.mode})`;
  return writePdf({ title, subject: `sha256=${s.digest}`, producer: 'payment-gateway statements', createdAt: generatedAt }, pages);
}
