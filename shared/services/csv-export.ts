import { Readable } from 'node:stream';
import { stringify } from 'csv-stringify/sync';
import { logger } from '#shared/logger.ts';
import { emitMetric, metricNames, MetricUnit } from '#shared/metrics.ts';

/**
 * CSV for merchants (docs/merchant-guide.md, Exports and statements), written with csv-stringify:
 * RFC 4180 quoting, a header line, `\r\n` between records, and formula-injection-safe cells (a text
 * cell starting with `=`, `+`, `-`, `@`, tab or carriage return gets a leading `'`, so a
 * spreadsheet shows it instead of running it; numbers, negative ones included, stay numbers).
 */
const options = { escape_formulas: true, record_delimiter: 'windows' } as const;

/** The CSV of a few rows at once (a statement's canonical rows: shared/services/statements.ts). */
export const csvOf = (columns: readonly string[], rows: readonly Record<string, unknown>[]): string =>
  stringify([...rows], { ...options, header: true, columns: [...columns] });

/**
 * How far one streamed export goes (docs/scaling.md, CSV exports). Not a cap on rows: the bounds of
 * the platform, each kept with room to end the file properly. A Lambda's streamed response is at most
 * 200 MB (past 6 MB at 2 MB/s), so 190 MB; and the function's time (15 minutes through API Gateway,
 * route.ts streamingTimeoutSeconds) less `marginMs`, room for the page being read and the last line.
 * Past either the file ends with a line starting `# INCOMPLETE EXPORT` (never a silently short file).
 */
export const exportLimits = { maxBytes: 190_000_000, marginMs: 30_000 };
export type ExportLimits = typeof exportLimits;

/** The first cell of the line that ends an export which could not write every row. */
export const incompleteMarker = '# INCOMPLETE EXPORT';

/** The date a row carries (the lists' own createdAt, requestedAt or an audit entry's at): where an export stopped. */
const rowDate = (row: Record<string, unknown> | undefined) =>
  [row?.createdAt, row?.requestedAt, row?.at].find((v) => typeof v === 'string') as string | undefined;

/**
 * The last line of an export that stopped early: how many rows it holds, down to which date, and how to
 * get the rest. One cell with no comma or quote, so the line starts with the marker itself.
 */
function incompleteLine(rows: number, last: Record<string, unknown> | undefined, why: string): string {
  const reached = rowDate(last);
  const day = reached?.slice(0, 10);
  const text =
    `${incompleteMarker}: ${why} after ${rows} rows` +
    `${reached ? ` (newest first: down to ${reached})` : ''}; the rows above are correct but the list goes on. ` +
    (day ? `Export again with To ${day} for the older rows.` : 'Narrow the filters and export again.');
  return stringify([[text]], options);
}

export interface CsvSpec<T> {
  /** The list exported: the ExportDuration metric's dimension. */
  list: string;
  columns: readonly string[];
  row: (item: T) => Record<string, unknown>;
  /** The list read one page at a time through its own index, with its filters. */
  pages: AsyncIterable<readonly T[]>;
}

/**
 * Every row of a list as CSV, streamed: the header line, then each page as it is read (csv-stringify),
 * the next page read only when the reader took the last (backpressure), so memory holds one page. The
 * one export helper of every dashboard list. `deadline` (epoch ms) is when the invocation's time runs
 * out. Past the limits, or if a read fails once rows went out, the file ends with the incomplete line
 * and ExportsIncomplete counts it by Reason (failed: the ExportFailed alarm). When the last byte has been
 * taken (or the reader went away), ExportDuration records the whole download (shared/metrics.ts).
 */
export function csvStream<T>(spec: CsvSpec<T>, deadline: number, limits: ExportLimits = exportLimits): Readable {
  const started = Date.now();
  const incomplete = (reason: 'failed' | 'size' | 'time') => emitMetric(metricNames.exportsIncomplete, 1, { Reason: reason });
  async function* lines(): AsyncGenerator<string, void> {
    yield stringify([], { ...options, header: true, columns: [...spec.columns] });
    let rows = 0;
    let bytes = 0;
    let last: Record<string, unknown> | undefined;
    try {
      for await (const page of spec.pages) {
        const records = page.map(spec.row);
        const chunk = stringify(records, { ...options, columns: [...spec.columns] });
        rows += records.length;
        bytes += Buffer.byteLength(chunk);
        last = records.at(-1) ?? last;
        yield chunk;
        const stop = bytes > limits.maxBytes ? 'size' : Date.now() > deadline - limits.marginMs ? 'time' : undefined;
        if (stop) {
          incomplete(stop);
          yield incompleteLine(
            rows,
            last,
            `this export reached the ${stop === 'time' ? 'time a download may take' : 'size one download carries'}`,
          );
          return;
        }
      }
    } catch (error) {
      logger.error('export failed after it started', { rows, errorName: (error as Error).name, errorMessage: (error as Error).message });
      incomplete('failed');
      yield incompleteLine(rows, last, 'this export failed');
    } finally {
      emitMetric(metricNames.exportDuration, Date.now() - started, { List: spec.list }, MetricUnit.Milliseconds);
    }
  }
  return Readable.from(lines(), { objectMode: false });
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
