// Builds the SDK: ESM and CommonJS with esbuild (no bundling of dependencies: there are none), declarations with tsc.
import { execFileSync } from 'node:child_process';
import { chmodSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
rmSync(join(root, 'dist'), { recursive: true, force: true });
const entryPoints = [join(root, 'src/index.ts'), join(root, 'src/webhooks.ts')];
for (const [format, ext] of [
  ['esm', '.js'],
  ['cjs', '.cjs'],
] as const) {
  await build({
    entryPoints,
    outdir: join(root, 'dist'),
    bundle: true,
    platform: 'node',
    target: 'node20',
    format,
    outExtension: { '.js': ext },
    logLevel: 'warning',
  });
}
// The bin `svc-gateway-listen` (package.json "bin"): ESM only (top-level await; the package is "type": "module"), hashbang kept.
await build({
  entryPoints: [join(root, 'src/listen-cli.ts')],
  outdir: join(root, 'dist'),
  bundle: true,
  platform: 'node',
  target: 'node20',
  format: 'esm',
  logLevel: 'warning',
});
chmodSync(join(root, 'dist/listen-cli.js'), 0o755);
const tsc = join(root, '../../node_modules/typescript/bin/tsc');
execFileSync(process.execPath, [tsc, '--singleThreaded', '-p', join(root, 'tsconfig.json')], {
  stdio: 'inherit',
});
// Declarations keep the sources' `.ts` specifiers; published ones point at the `.js` files.
for (const file of readdirSync(join(root, 'dist')).filter((f) => f.endsWith('.d.ts'))) {
  const path = join(root, 'dist', file);
  writeFileSync(path, readFileSync(path, 'utf8').replace(/(from '\.\/[\w.-]+?)\.ts'/g, "$1.js'"));
}
