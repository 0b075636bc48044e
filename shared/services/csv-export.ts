import { stringify } from 'csv-stringify';
import { stringify as stringifyAll } from 'csv-stringify/sync';
import { DomainError } from '#shared/domain/errors.ts';

/**
 * CSV for merchants (docs/merchant-guide.md, Exports and statements), written with csv-stringify:
 * RFC 4180 quoting, a header line, `\r\n` between records, and formula-injection-safe cells (a text
 * cell starting with `=`, `+`, `-`, `@`, tab or carriage return gets a leading `'`, so a
 * spreadsheet shows it instead of running it; numbers, negative ones included, stay numbers).
 */
const options = { header: true, escape_formulas: true, record_delimiter: 'windows' } as const;

/** The CSV of a few rows at once (a statement's canonical rows: shared/services/statements.ts). */
export const csvOf = (columns: readonly string[], rows: readonly Record<string, unknown>[]): string =>
  stringifyAll([...rows], { ...options, columns: [...columns] });

/**
 * What one export may produce: a buffered Lambda proxy response through API Gateway REST is at most 6 MB in 29 s, and
 * a Lambda's response is that body JSON-escaped (a quote or line break takes two bytes), so 4 MB and 20 s, after which
 * the export stops reading and is refused whole (never a truncated file). Why not streamed: docs/scaling.md, Exports.
 */
export const exportLimits = { maxBytes: 4_000_000, maxMs: 20_000 };

export class ExportTooLarge extends DomainError {
  /** `rows`: how many were read when the cap was hit; `reachedAt`: the date of the last of them (lists run newest first). */
  constructor(rows: number, reachedAt?: string) {
    const day = reachedAt?.slice(0, 10);
    super(
      'business_rule',
      `This export has more rows than one download carries (4 MB or 20 s): the cap was hit after ${rows.toLocaleString('en-US')} ` +
        `rows${day ? `, newest first down to ${reachedAt}` : ''}, so nothing was sent (never a partial file). Narrow the filters: ` +
        (day
          ? `export From ${day} for the newest rows, then To ${day} (and earlier ranges) for the rest, `
          : 'a shorter date range, or a status, ') +
        'or page through the API list.',
      { code: 'export_too_large' },
    );
  }
}

/** The date a row carries (the lists' own createdAt, requestedAt or an audit entry's at): where an export's cap was hit. */
const rowDate = (row: Record<string, unknown>) =>
  [row.createdAt, row.requestedAt, row.at].find((v) => typeof v === 'string') as string | undefined;

/**
 * Every row of a list as one CSV, streamed: `pages` is read one page at a time (the list's own
 * index, with its filters) and each row is written to csv-stringify as it comes, so memory holds
 * one page plus the output. Past `limits` the pages stop being read and ExportTooLarge is thrown.
 * The one export helper of every dashboard list.
 */
export async function exportCsv<T>(
  spec: { columns: readonly string[]; row: (item: T) => Record<string, unknown>; pages: AsyncIterable<readonly T[]> },
  limits = exportLimits,
): Promise<string> {
  const started = Date.now();
  const chunks: string[] = [];
  let bytes = 0;
  let rows = 0;
  const csv = stringify({ ...options, columns: [...spec.columns] });
  csv.on('data', (chunk: Buffer | string) => {
    chunks.push(chunk.toString());
    bytes += Buffer.byteLength(chunk);
  });
  const ended = new Promise<void>((resolve, reject) => {
    csv.on('end', resolve);
    csv.on('error', reject);
  });
  const flushed = () => new Promise<void>((resolve) => setImmediate(resolve));
  let last: Record<string, unknown> = {};
  for await (const page of spec.pages) {
    for (const item of page) {
      last = spec.row(item);
      csv.write(last);
      rows += 1;
    }
    await flushed();
    if (bytes > limits.maxBytes || Date.now() - started > limits.maxMs) {
      csv.destroy();
      throw new ExportTooLarge(rows, rowDate(last));
    }
  }
  csv.end();
  await ended;
  if (bytes > limits.maxBytes) throw new ExportTooLarge(rows, rowDate(last));
  return chunks.join('');
}

/** A list read page by page through a cursor: `next(cursor)` gives a page and the cursor of the next (none: the end). */
export async function* cursorPages<T, C>(next: (cursor: C | undefined) => Promise<{ items: readonly T[]; cursor?: C | undefined }>) {
  let cursor: C | undefined;
  for (;;) {
    const page = await next(cursor);
    if (page.items.length) yield page.items;
    if (page.cursor === undefined || !page.items.length) return;
    cursor = page.cursor;
  }
}
