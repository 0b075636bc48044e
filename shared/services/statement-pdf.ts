import { PDFDocument, StandardFonts, rgb, type PDFFont, type PDFPage } from 'pdf-lib';
import { fromMinor } from '#shared/domain/money.ts';
import type { Statement, Totals } from './statements.ts';

/**
 * A statement as PDF (pdf-lib, the standard Helvetica fonts: nothing embedded): the summary
 * (opening balance, subtotals by type, fees, closing balance), then every movement grouped by type,
 * and on every page the statement's digest (shared/services/statements.ts). Only the PDF Lambdas
 * import this module: pdf-lib is about 430 kB minified (docs/scaling.md, Lambda bundles).
 */
const pageSize: [number, number] = [595.28, 841.89]; // A4
const margin = 40;
const line = 13;

/** The standard fonts speak WinAnsi: anything else is shown as `?` rather than refused. */
const printable = (text: string) => text.replace(/[^\x20-\x7e\xa0-\xff]/g, '?');

export async function statementPdf(s: Statement, generatedAt = new Date()): Promise<Uint8Array> {
  const doc = await PDFDocument.create();
  doc.setTitle(`Statement ${s.period}${s.status === 'provisional' ? ' to date (provisional)' : ''} ${s.currency} (${s.mode})`);
  doc.setSubject(`sha256=${s.digest}`);
  doc.setProducer('payment-gateway statements');
  doc.setCreationDate(generatedAt);
  doc.setModificationDate(generatedAt);
  const regular = await doc.embedFont(StandardFonts.Helvetica);
  const bold = await doc.embedFont(StandardFonts.HelveticaBold);
  const mono = await doc.embedFont(StandardFonts.Courier);
  const money = (minor: number) => fromMinor(minor, s.currency).toFixed(s.currency === 'USDT' ? 6 : 2);

  let page: PDFPage;
  let y = 0;
  const footer = (p: PDFPage) =>
    p.drawText(`SHA-256 of the statement's rows: ${s.digest}`, { x: margin, y: 24, size: 7, font: mono, color: rgb(0.3, 0.3, 0.3) });
  const newPage = () => {
    page = doc.addPage(pageSize);
    footer(page);
    y = pageSize[1] - margin;
  };
  const text = (t: string, x: number, options: { font?: PDFFont; size?: number; right?: boolean } = {}) => {
    const font = options.font ?? regular;
    const size = options.size ?? 9;
    const value = printable(t);
    const at = options.right ? x - font.widthOfTextAtSize(value, size) : x;
    page.drawText(value, { x: at, y, size, font });
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
  const totalsLine = (label: string, t: Totals, font = regular) => {
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
  return doc.save();
}
