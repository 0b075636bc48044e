import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

/**
 * `npm run lint` (after `biome check`): fails when a line of TypeScript/JavaScript source is longer than 140 characters.
 * Hand-written because Biome 2 has no line-length lint: its formatter wraps code at 140 columns but leaves long strings and
 * comments as they are. Checks the files git tracks or would track (so .gitignore'd output is skipped), minus the generated
 * SDK types and store key builders.
 */
export const maxLineLength = 140;
const sourceFile = /\.(?:[cm]?[jt]s|[jt]sx)$/;
const excluded = new Set(['sdk/node/src/types.gen.ts', 'shared/store/keys.gen.ts']);

/** 1-based numbers and lengths (in characters, not UTF-16 units or bytes) of the lines over the limit. */
export function longLines(text: string, limit = maxLineLength): { line: number; length: number }[] {
  return text.split(/\r?\n/).flatMap((line, i) => {
    const length = [...line].length;
    return length > limit ? [{ line: i + 1, length }] : [];
  });
}

export function checkedFiles(root: string): string[] {
  const listed = execFileSync('git', ['ls-files', '--cached', '--others', '--exclude-standard', '-z'], { cwd: root, encoding: 'utf8' });
  return listed.split('\0').filter((file) => sourceFile.test(file) && !excluded.has(file));
}

/** The problems as `file:line: message` lines; empty when every line fits. */
export function lineLengthProblems(root: string, files = checkedFiles(root)): string[] {
  return files.flatMap((file) => {
    let text: string;
    try {
      text = readFileSync(resolve(root, file), 'utf8');
    } catch {
      return []; // listed by git but deleted in the work tree
    }
    return longLines(text).map(({ line, length }) => `${file}:${line}: ${length} characters (at most ${maxLineLength})`);
  });
}

if (process.argv[1] && import.meta.url === pathToFileURL(resolve(process.argv[1])).href) {
  const problems = lineLengthProblems(fileURLToPath(new URL('..', import.meta.url)));
  for (const problem of problems) console.error(problem);
  if (problems.length) {
    console.error(`${problems.length} line(s) over ${maxLineLength} characters: split the string or comment.`);
    process.exit(1);
  }
}
