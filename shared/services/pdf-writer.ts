/**
 * A minimal PDF 1.7 writer: text in three of the standard 14 fonts (nothing embedded), pages,
 * deflated content streams and a classic cross-reference table. Hand-written because pdf-lib alone
 * is about 430 kB minified and the Lambda bundle budget is 300 kB (docs/scaling.md, Lambda bundles);
 * it writes exactly what the statement PDF needs (shared/services/statement-pdf.ts).
 */
export type StandardFont = 'Helvetica' | 'Helvetica-Bold' | 'Courier';

const fonts: readonly StandardFont[] = ['Helvetica', 'Helvetica-Bold', 'Courier'];

/**
 * Glyph widths (1/1000 em) of WinAnsi codes 32-126 then 160-255, from the fonts' Adobe metrics (AFM);
 * test/unit/pdf-writer.test.ts checks them against pdf-lib's copy. Courier is monospaced (600).
 */
const helvetica =
  '278,278,355,556,556,889,667,191,333,333,389,584,278,333,278,278,556,556,556,556,556,556,556,556,556,556,278,278,584,584,584,' +
  '556,1015,667,667,722,722,667,611,778,722,278,500,667,556,833,722,778,667,778,722,667,611,722,667,944,667,667,611,278,278,278,' +
  '469,556,333,556,556,500,556,556,278,556,556,222,222,500,222,833,556,556,556,556,333,500,278,556,500,722,500,500,500,334,260,334,' +
  '584,278,333,556,556,556,556,260,556,333,737,370,556,584,333,737,333,400,584,333,333,333,556,537,278,333,333,365,556,834,834,834,' +
  '611,667,667,667,667,667,667,1000,722,667,667,667,667,278,278,278,278,722,722,778,778,778,778,778,584,778,722,722,722,722,667,667,' +
  '611,556,556,556,556,556,556,889,500,556,556,556,556,278,278,278,278,556,556,556,556,556,556,556,584,611,556,556,556,556,500,556,500';
const helveticaBold =
  '278,333,474,556,556,889,722,238,333,333,389,584,278,333,278,278,556,556,556,556,556,556,556,556,556,556,333,333,584,584,584,' +
  '611,975,722,722,722,722,667,611,778,722,278,556,722,611,833,722,778,667,778,722,667,611,722,667,944,667,667,611,333,278,333,' +
  '584,556,333,556,611,556,611,556,333,611,611,278,278,556,278,889,611,611,611,611,389,556,333,611,556,778,556,556,500,389,280,389,' +
  '584,278,333,556,556,556,556,280,556,333,737,370,556,584,333,737,333,400,584,333,333,333,611,556,278,333,333,365,556,834,834,834,' +
  '611,722,722,722,722,722,722,1000,722,667,667,667,667,278,278,278,278,722,722,778,778,778,778,778,584,778,722,722,722,722,667,667,' +
  '611,556,556,556,556,556,556,889,556,556,556,556,556,278,278,278,278,611,611,611,611,611,611,611,584,611,611,611,611,611,556,611,556';
const widthTables: Record<StandardFont, number[] | undefined> = {
  Helvetica: helvetica.split(',').map(Number),
  'Helvetica-Bold': helveticaBold.split(',').map(Number),
  Courier: undefined,
};

/** Standard fonts speak WinAnsi: dashes are drawn as `-`, anything else outside printable Latin-1 as `?` rather than refused. */
export const printable = (text: string) => text.replace(/[\u2013\u2014]/g, '-').replace(/[^\x20-\x7e\xa0-\xff]/g, '?');

/** The width of `text` (printable Latin-1) drawn at `size`, in points, as a viewer lays it out (no kerning). */
export function textWidth(text: string, font: StandardFont, size: number): number {
  const table = widthTables[font];
  let units = 0;
  for (const ch of text) {
    const code = ch.charCodeAt(0);
    units += table ? (table[code < 160 ? code - 32 : code - 160 + 95] ?? 0) : 600;
  }
  return (units * size) / 1000;
}

export interface TextOp {
  text: string;
  x: number;
  y: number;
  size: number;
  font: StandardFont;
  /** 0 black (the default) to 1 white. */
  gray?: number;
}

export interface PdfInfo {
  title: string;
  subject: string;
  producer: string;
  createdAt: Date;
}

/** A number as PDF writes it: at most 4 decimals, never an exponent. */
const num = (n: number) => String(Number(n.toFixed(4)));
/** A text string in UTF-16BE with its byte-order mark (any Unicode title survives). */
const textString = (s: string) => `<FEFF${Buffer.from(s, 'utf16le').swap16().toString('hex').toUpperCase()}>`;
/** PDF date: D:YYYYMMDDHHmmSSZ (UTC). */
const pdfDate = (d: Date) => `(D:${d.toISOString().replace(/[-:T]/g, '').slice(0, 14)}Z)`;

function contentOf(ops: readonly TextOp[]): Buffer {
  const lines = ops.map((op) => {
    const hex = Buffer.from(printable(op.text), 'latin1').toString('hex').toUpperCase();
    const font = `/F${fonts.indexOf(op.font) + 1}`;
    return `BT ${font} ${num(op.size)} Tf ${num(op.gray ?? 0)} g 1 0 0 1 ${num(op.x)} ${num(op.y)} Tm <${hex}> Tj ET`;
  });
  // node:zlib loaded when a page is written, not when the Lambda loads (issue 26, module load: about 7 ms).
  return process.getBuiltinModule('node:zlib').deflateSync(Buffer.from(lines.join('\n'), 'latin1'));
}

/** The PDF file of `pages` (each its size in points and the text drawn on it). */
export function writePdf(info: PdfInfo, pages: readonly { width: number; height: number; ops: readonly TextOp[] }[]): Uint8Array {
  // Objects: 1 catalog, 2 page tree, 3 info, 4-6 fonts, then a page and its content stream per page.
  const firstPage = 4 + fonts.length;
  const objects: (string | Buffer)[] = [
    '<< /Type /Catalog /Pages 2 0 R >>',
    `<< /Type /Pages /Kids [${pages.map((_, i) => `${firstPage + 2 * i} 0 R`).join(' ')}] /Count ${pages.length} >>`,
    `<< /Title ${textString(info.title)} /Subject ${textString(info.subject)} /Producer ${textString(info.producer)} ` +
      `/CreationDate ${pdfDate(info.createdAt)} /ModDate ${pdfDate(info.createdAt)} >>`,
    ...fonts.map((f) => `<< /Type /Font /Subtype /Type1 /BaseFont /${f} /Encoding /WinAnsiEncoding >>`),
  ];
  const fontResources = fonts.map((_, i) => `/F${i + 1} ${4 + i} 0 R`).join(' ');
  for (const [i, page] of pages.entries()) {
    objects.push(
      `<< /Type /Page /Parent 2 0 R /MediaBox [0 0 ${num(page.width)} ${num(page.height)}] ` +
        `/Resources << /Font << ${fontResources} >> >> /Contents ${firstPage + 2 * i + 1} 0 R >>`,
    );
    const stream = contentOf(page.ops);
    objects.push(
      Buffer.concat([
        Buffer.from(`<< /Length ${stream.length} /Filter /FlateDecode >>\nstream\n`, 'latin1'),
        stream,
        Buffer.from('\nendstream', 'latin1'),
      ]),
    );
  }

  const chunks: Buffer[] = [Buffer.from('%PDF-1.7\n%\xe2\xe3\xcf\xd3\n', 'latin1')];
  let offset = chunks[0]!.length;
  const offsets: number[] = [];
  for (const [i, body] of objects.entries()) {
    const chunk = Buffer.concat([
      Buffer.from(`${i + 1} 0 obj\n`, 'latin1'),
      typeof body === 'string' ? Buffer.from(body, 'latin1') : body,
      Buffer.from('\nendobj\n'),
    ]);
    offsets.push(offset);
    offset += chunk.length;
    chunks.push(chunk);
  }
  // Each cross-reference entry is exactly 20 bytes: 10-digit offset, 5-digit generation, n/f, EOL.
  const xref = ['xref', `0 ${objects.length + 1}`, '0000000000 65535 f ', ...offsets.map((o) => `${String(o).padStart(10, '0')} 00000 n `)];
  chunks.push(
    Buffer.from(
      `${xref.join('\n')}\ntrailer\n<< /Size ${objects.length + 1} /Root 1 0 R /Info 3 0 R >>\nstartxref\n${offset}\n%%EOF\n`,
      'latin1',
    ),
  );
  return new Uint8Array(Buffer.concat(chunks));
}
