import { text } from 'node:stream/consumers';
import { describe, expect, it } from 'vitest';
import { csvStream, exportLimits, incompleteMarker } from '#shared/services/csv-export.ts';

/**
 * The one export helper (shared/services/csv-export.ts csvStream): the header, then each page as it
 * is read; a read that fails once rows went out ends the file with the incomplete line instead of a
 * silently short file (the route's status is already sent, so the body is the only place to say it).
 */
describe('csvStream', () => {
  const columns = ['id', 'createdAt'] as const;
  const row = (n: number) => ({ id: `p${n}`, createdAt: `2026-10-${String(20 - n).padStart(2, '0')}T10:00:00.000Z` });

  it('writes the header and every page; a complete file ends with its last row', async () => {
    async function* pages() {
      yield [1, 2];
      yield [3];
    }
    const csv = await text(csvStream({ columns, row, pages: pages() }, Date.now() + 60_000));
    expect(csv).toBe(`id,createdAt\r\np1,${row(1).createdAt}\r\np2,${row(2).createdAt}\r\np3,${row(3).createdAt}\r\n`);
  });

  it('a read failing after the first page: the rows so far, then the incomplete line (never a silently short file)', async () => {
    async function* pages() {
      yield [1, 2];
      throw new Error('ProvisionedThroughputExceededException');
    }
    const csv = await text(csvStream({ columns, row, pages: pages() }, Date.now() + 60_000, exportLimits));
    const lines = csv.split('\r\n').filter(Boolean);
    expect(lines).toHaveLength(4);
    // The line starts with the marker itself (one cell, nothing to quote), so a reader needs no CSV parser to see it.
    expect(lines.at(-1)).toBe(
      `${incompleteMarker}: this export failed after 2 rows (newest first: down to ${row(2).createdAt}); the rows above are ` +
        'correct but the list goes on. Export again with To 2026-10-18 for the older rows.',
    );
  });
});
