import { readFileSync, writeFileSync } from 'node:fs';
import { relative, resolve } from 'node:path';

/**
 * `npm run test:durations`: writes test/durations.json (seconds per test file) from the last
 * `npm test`'s report (test-results/vitest.json). The test sequencer (test/support/sequencer.ts)
 * starts the longest files first with it, so no long file starts last and runs on alone.
 */
const root = resolve(import.meta.dirname, '..');
const report = JSON.parse(readFileSync(resolve(root, 'test-results', 'vitest.json'), 'utf8')) as {
  testResults: { name: string; startTime: number; endTime: number }[];
};
const durations = Object.fromEntries(
  report.testResults
    .map((file) => [relative(root, file.name), Math.round((file.endTime - file.startTime) / 100) / 10] as const)
    .sort(([a], [b]) => (a < b ? -1 : 1)),
);
writeFileSync(resolve(root, 'test', 'durations.json'), `${JSON.stringify(durations, null, 2)}\n`);
console.log(`test/durations.json: ${Object.keys(durations).length} files`);
