import { existsSync, readFileSync } from 'node:fs';
import { relative, resolve } from 'node:path';
import { BaseSequencer, type TestSpecification } from 'vitest/node';

/**
 * Longest test files first (longest processing time first): vitest's own order on a clean clone is
 * by file size, which put the fault-point files (a 4-line file each, 2-3 minutes of work) last, so
 * they ran on alone for the last 3-4 minutes of `npm test`. The durations come from a full run
 * (test/durations.json, refreshed by `npm run test:durations`); a file it does not know yet goes
 * first, as vitest's own sequencer does with unknown files.
 */
const root = resolve(import.meta.dirname, '..', '..');
const durationsFile = resolve(root, 'test', 'durations.json');

export default class LongestFirstSequencer extends BaseSequencer {
  override async sort(files: TestSpecification[]): Promise<TestSpecification[]> {
    const ordered = await super.sort(files);
    const durations: Record<string, number> = existsSync(durationsFile) ? JSON.parse(readFileSync(durationsFile, 'utf8')) : {};
    const estimate = (spec: TestSpecification) => durations[relative(root, spec.moduleId)] ?? Number.MAX_VALUE;
    return ordered
      .map((spec, i) => ({ spec, i, e: estimate(spec) }))
      .sort((a, b) => b.e - a.e || a.i - b.i)
      .map((x) => x.spec);
  }
}
