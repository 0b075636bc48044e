import { inflateSync } from 'node:zlib';
import { PDFDocument, StandardFonts } from 'pdf-lib';
import { describe, expect, it } from 'vitest';
import { textWidth, writePdf, type StandardFont, type TextOp } from '#shared/services/pdf-writer.ts';
import { statementPdf } from '#shared/services/statement-pdf.ts';
import type { Statement } from '#shared/services/statements.ts';

/**
 * The minimal PDF writer (shared/services/pdf-writer.ts) that replaced pdf-lib in the statement
 * Lambdas (bundle budget): its files are well-formed (every cross-reference offset lands on its
 * object, startxref on the table), pdf-lib (a devDependency) loads them, and its glyph widths are
 * the fonts' Adobe metrics.
 */
const latin1 = (bytes: Uint8Array) => Buffer.from(bytes).toString('latin1');

function checkStructure(bytes: Uint8Array) {
  const file = latin1(bytes);
  expect(file.startsWith('%PDF-1.7\n')).toBe(true);
  expect(file.endsWith('%%EOF\n')).toBe(true);
  const startxref = Number(/startxref\n(\d+)\n%%EOF\n$/.exec(file)![1]);
  expect(file.slice(startxref, startxref + 5)).toBe('xref\n');
  const [, first, count] = /^xref\n(\d+) (\d+)\n/.exec(file.slice(startxref))!.map(Number);
  expect(first).toBe(0);
  const table = file
    .slice(startxref)
    .split('\n')
    .slice(2, 2 + count!);
  expect(table[0]).toBe('0000000000 65535 f ');
  for (const [n, entry] of table.entries()) {
    expect(entry).toHaveLength(19); // 20 bytes with the EOL
    if (n === 0) continue;
    const at = Number(entry.slice(0, 10));
    expect(file.slice(at, at + `${n} 0 obj\n`.length)).toBe(`${n} 0 obj\n`);
  }
  expect(file).toContain(`/Size ${count}`);
  return file;
}

/** What each page draws: every text with its font, size and position (the writer's `BT … Tm <hex> Tj ET`). */
function drawnOps(file: string): TextOp[][] {
  const fonts: StandardFont[] = ['Helvetica', 'Helvetica-Bold', 'Courier'];
  return [...file.matchAll(/stream\n([\s\S]*?)\nendstream/g)].map(([, body]) =>
    [
      ...inflateSync(Buffer.from(body!, 'latin1'))
        .toString('latin1')
        .matchAll(/\/F(\d) ([\d.]+) Tf [\d.]+ g 1 0 0 1 ([\d.]+) ([\d.]+) Tm <([0-9A-F]*)> Tj/g),
    ].map(([, f, size, x, y, hex]) => ({
      font: fonts[Number(f) - 1]!,
      size: Number(size),
      x: Number(x),
      y: Number(y),
      text: Buffer.from(hex!, 'hex').toString('latin1'),
    })),
  );
}

/** Texts drawn on one line that run into each other or past the page's right margin (`a | b`). */
function collisions(pages: TextOp[][], right: number): string[] {
  const out: string[] = [];
  for (const ops of pages)
    for (const a of ops) {
      const end = a.x + textWidth(a.text, a.font, a.size);
      if (end > right) out.push(`${a.text} | page edge`);
      for (const b of ops)
        if (b !== a && Math.abs(b.y - a.y) < Math.max(a.size, b.size) * 0.8 && b.x >= a.x && b.x < end + 3)
          out.push(`${a.text} | ${b.text}`);
    }
  return out;
}

/** The text a page draws: every `<hex> Tj` of its deflated content stream. */
function drawnText(file: string): string[] {
  const out: string[] = [];
  for (const [, body] of file.matchAll(/stream\n([\s\S]*?)\nendstream/g)) {
    const content = inflateSync(Buffer.from(body!, 'latin1')).toString('latin1');
    for (const [, hex] of content.matchAll(/<([0-9A-F]*)> Tj/g)) out.push(Buffer.from(hex!, 'hex').toString('latin1'));
  }
  return out;
}

describe('pdf writer', () => {
  it('writes a well-formed PDF that pdf-lib loads: pages, sizes, metadata, text', async () => {
    const op = (text: string, font: StandardFont): TextOp => ({ text, x: 40, y: 800, size: 9, font });
    const bytes = writePdf(
      { title: 'Statement – Ü', subject: 'sha256=ab', producer: 'test', createdAt: new Date('2026-10-31T23:59:58Z') },
      [
        { width: 595.28, height: 841.89, ops: [op('Héllo (world) \\ ✓', 'Helvetica'), op('bold', 'Helvetica-Bold')] },
        { width: 595.28, height: 841.89, ops: [op('second page', 'Courier')] },
      ],
    );
    const file = checkStructure(bytes);
    expect(drawnText(file)).toEqual(['Héllo (world) \\ ?', 'bold', 'second page']);

    const doc = await PDFDocument.load(bytes);
    expect(doc.getPageCount()).toBe(2);
    expect(doc.getPage(1).getSize()).toEqual({ width: 595.28, height: 841.89 });
    expect(doc.getTitle()).toBe('Statement – Ü');
    expect(doc.getSubject()).toBe('sha256=ab');
    expect(doc.getCreationDate()?.toISOString()).toBe('2026-10-31T23:59:58.000Z');
  });

  it('measures text with the standard fonts’ metrics (as pdf-lib has them, glyph by glyph)', async () => {
    const doc = await PDFDocument.create();
    const pairs: [StandardFont, StandardFonts][] = [
      ['Helvetica', StandardFonts.Helvetica],
      ['Helvetica-Bold', StandardFonts.HelveticaBold],
      ['Courier', StandardFonts.Courier],
    ];
    const chars = [...Array(256).keys()].filter((c) => (c >= 32 && c <= 126) || c >= 160).map((c) => String.fromCharCode(c));
    expect(chars).toHaveLength(191);
    for (const [ours, theirs] of pairs) {
      const font = await doc.embedFont(theirs);
      for (const ch of chars) expect(textWidth(ch, ours, 10), `${ours} ${ch}`).toBeCloseTo(font.widthOfTextAtSize(ch, 10), 6);
    }
    // Six digits of 556 and a period of 278 at 10 pt: no kerning, as the viewer lays out a plain Tj.
    expect(textWidth('1184.00', 'Helvetica', 10)).toBeCloseTo(36.14, 6);
  });

  it('writes a statement over several pages, the digest on every page', async () => {
    const movement = (i: number) => ({
      createdAt: `2026-10-${String((i % 28) + 1).padStart(2, '0')}T12:00:00.000Z`,
      source: { type: 'payment', id: `pay_${i}` },
      amountMinor: 10_000 + i,
      feeMinor: 100,
      availableAfter: 1_000_000 + i,
      pendingAfter: 0,
    });
    const totals = { count: 120, amount: 1_200_000, fee: 12_000, net: 1_188_000, availableChange: 1_188_000 };
    const s = {
      merchantId: 'mer_1',
      merchantName: 'Zaïre Traders',
      period: '2026-10',
      from: '2026-10-01T00:00:00.000Z',
      to: '2026-11-01T00:00:00.000Z',
      currency: 'PKR',
      mode: 'test',
      status: 'final',
      digest: 'f'.repeat(64),
      opening: { available: 0, pending: 0 },
      closing: { available: 1_188_000, pending: 0 },
      totals,
      byType: [{ type: 'payment', totals, movements: [...Array(120).keys()].map(movement) }],
    } as unknown as Statement;
    const bytes = await statementPdf(s, new Date('2026-11-01T02:00:00Z'));
    const file = checkStructure(bytes);
    const text = drawnText(file);
    const doc = await PDFDocument.load(bytes);
    expect(doc.getPageCount()).toBeGreaterThan(1);
    expect(text.filter((t) => t.includes(s.digest))).toHaveLength(doc.getPageCount());
    expect(text).toContain('Zaïre Traders (mer_1)');
    expect(text).toContain('available 11880.00   pending 0.00');
    expect(text).toContain('payment pay_119');
    expect(doc.getSubject()).toBe(`sha256=${s.digest}`);
    // Every heading and cell clear of its neighbours (at least 3 pt apart) and inside the right margin.
    expect(collisions(drawnOps(file), 595.28 - 40)).toEqual([]);

    // Empty, the month to date: both sections say so, the days covered are spelt out, nothing runs into anything.
    const zero = { count: 0, amount: 0, fee: 0, net: 0, availableChange: 0, pendingChange: 0 };
    const empty = { ...s, status: 'provisional', period: '2026-11', from: '2026-11-01T00:00:00.000Z', to: '2026-11-28T23:40:05.120Z' };
    const emptyFile = checkStructure(await statementPdf({ ...empty, byType: [], totals: zero } as Statement, new Date()));
    expect(drawnText(emptyFile)).toEqual(
      expect.arrayContaining([
        'No movements in this period.',
        'No movements from 2026-11-01T00:00:00.000Z to 2026-11-28T23:40:05.120Z: the opening balance is the closing balance.',
        'PKR, test mode: 1-28 November 2026 (UTC), to 23:40 UTC on 28 November: provisional',
      ]),
    );
    expect(collisions(drawnOps(emptyFile), 595.28 - 40)).toEqual([]);
  });
});
