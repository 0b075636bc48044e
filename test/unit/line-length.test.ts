import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { lineLengthProblems, longLines, maxLineLength } from '../../scripts/line-length.ts';

describe('line length check (npm run lint)', () => {
  it('counts characters, not bytes or UTF-16 units, and allows exactly the limit', () => {
    expect(maxLineLength).toBe(140);
    expect(longLines(`${'’'.repeat(140)}\n${'𝄞'.repeat(140)}\r\n${'x'.repeat(140)}`)).toEqual([]);
    expect(longLines(`ok\n${'x'.repeat(141)}\nok\n${'→'.repeat(150)}`)).toEqual([
      { line: 2, length: 141 },
      { line: 4, length: 150 },
    ]);
  });

  const root = mkdtempSync(join(tmpdir(), 'line-length-'));
  afterAll(() => rmSync(root, { recursive: true, force: true }));

  it('fails on a long line in TypeScript or JavaScript, and skips Markdown, ignored files and the generated SDK types', () => {
    execFileSync('git', ['init', '-q'], { cwd: root });
    const long = `export const s = '${'x'.repeat(140)}';\n`;
    mkdirSync(join(root, 'sdk/node/src'), { recursive: true });
    mkdirSync(join(root, 'out'));
    writeFileSync(join(root, '.gitignore'), 'out/\n');
    writeFileSync(join(root, 'short.ts'), 'export const s = 1;\n');
    writeFileSync(join(root, 'long.ts'), `// fine\n${long}`);
    writeFileSync(join(root, 'long.mjs'), long);
    writeFileSync(join(root, 'README.md'), `${'word '.repeat(60)}\n`);
    writeFileSync(join(root, 'out/ignored.ts'), long);
    writeFileSync(join(root, 'sdk/node/src/types.gen.ts'), long);
    expect(lineLengthProblems(root).sort()).toEqual([
      'long.mjs:1: 160 characters (at most 140)',
      'long.ts:2: 160 characters (at most 140)',
    ]);
  });
});
