import { text } from 'node:stream/consumers';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { metricNames } from '#shared/metrics.ts';
import { csvStream, exportLimits, incompleteMarker } from '#shared/services/csv-export.ts';
import { captureJsonLines } from '../support/output.ts';

/**
 * The one export helper (shared/services/csv-export.ts csvStream): the header, then each page as it
 * is read; a read that fails once rows went out ends the file with the incomplete line instead of a
 * silently short file (the route's status is already sent, so the body is the only place to say it).
 */
describe('csvStream', () => {
  afterEach(() => {
    vi.restoreAllMocks();
    process.env.POWERTOOLS_METRICS_DISABLED = 'true';
  });
  /** The EMF data points written from now on: [metric name, value, dimensions]. */
  const emf = () => {
    process.env.POWERTOOLS_METRICS_DISABLED = 'false';
    const lines = captureJsonLines<Record<string, any>>();
    return () =>
      lines
        .filter((l) => l._aws)
        .flatMap((l) =>
          l._aws.CloudWatchMetrics.flatMap((m: { Metrics: { Name: string }[]; Dimensions: string[][] }) =>
            m.Metrics.map((x) => [
              x.Name,
              l[x.Name],
              Object.fromEntries(m.Dimensions[0]!.filter((d) => d !== 'service').map((d) => [d, l[d]])),
            ]),
          ),
        );
  };
  const columns = ['id', 'createdAt'] as const;
  const row = (n: number) => ({ id: `p${n}`, createdAt: `2026-10-${String(20 - n).padStart(2, '0')}T10:00:00.000Z` });

  it('writes the header and every page; a complete file ends with its last row', async () => {
    async function* pages() {
      yield [1, 2];
      yield [3];
    }
    const points = emf();
    const stream = csvStream({ list: 'payments', columns, row, pages: pages() }, Date.now() + 60_000);
    const first = await stream[Symbol.asyncIterator]().next(); // the header line: the download has started, not ended
    expect(first.done).toBe(false);
    expect(points()).toEqual([]);
    const csv = String(first.value) + (await text(stream));
    // The whole download's duration, once, when its last byte was taken; nothing counted as incomplete.
    expect(points()).toEqual([[metricNames.exportDuration, expect.any(Number), { List: 'payments' }]]);
    expect(csv).toBe(`id,createdAt\r\np1,${row(1).createdAt}\r\np2,${row(2).createdAt}\r\np3,${row(3).createdAt}\r\n`);
  });

  it('a read failing after the first page: the rows so far, then the incomplete line (never a silently short file)', async () => {
    async function* pages() {
      yield [1, 2];
      throw new Error('ProvisionedThroughputExceededException');
    }
    const points = emf();
    const csv = await text(csvStream({ list: 'refunds', columns, row, pages: pages() }, Date.now() + 60_000, exportLimits));
    // Counted for the ExportFailed alarm (infra/observability.ts), not only logged; and its duration.
    expect(points()).toEqual([
      [metricNames.exportsIncomplete, 1, { Reason: 'failed' }],
      [metricNames.exportDuration, expect.any(Number), { List: 'refunds' }],
    ]);
    const lines = csv.split('\r\n').filter(Boolean);
    expect(lines).toHaveLength(4);
    // The line starts with the marker itself (one cell, nothing to quote), so a reader needs no CSV parser to see it.
    expect(lines.at(-1)).toBe(
      `${incompleteMarker}: this export failed after 2 rows (newest first: down to ${row(2).createdAt}); the rows above are ` +
        'correct but the list goes on. Export again with To 2026-10-18 for the older rows.',
    );
  });

  it('a file stopped at the platform’s bounds counts as incomplete by its reason (not an alarm)', async () => {
    async function* pages() {
      yield [1, 2];
      yield [3];
    }
    const points = emf();
    await text(csvStream({ list: 'audit', columns, row, pages: pages() }, Date.now() + 60_000, { maxBytes: 10, marginMs: 0 }));
    expect(points().map(([name, , d]) => [name, d])).toEqual([
      [metricNames.exportsIncomplete, { Reason: 'size' }],
      [metricNames.exportDuration, { List: 'audit' }],
    ]);
  });
});
