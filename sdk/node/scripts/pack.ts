// npm run sdk:pack: build, then `npm pack` into sdk/node/ (prints the tarball path).
import { execFileSync } from 'node:child_process';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
await import('./build.ts');
const out = execFileSync('npm', ['pack', '--silent', '--pack-destination', root], { cwd: root, encoding: 'utf8' })
  .trim()
  .split('\n')
  .pop()!;
console.log(join(root, out));
