import { readFileSync } from 'node:fs';
import { join, relative, resolve } from 'node:path';
import { build } from 'esbuild';

/**
 * `npm run ops` for the tests, bundled once per run by the global setup (./global-setup.ts) instead
 * of transpiled and resolved by tsx module by module in every spawned process: the tests spawn the
 * operator's tool about a hundred times, and each tsx start cost about a second of CPU (a bundle:
 * a quarter of that). The bundle is the same source, built with esbuild (already a dependency:
 * it builds the Lambdas); the operator still runs it through tsx (`npm run ops`), which
 * test/integration/ops-cli.test.ts keeps doing, so both ways stay tested.
 */
const root = resolve(import.meta.dirname, '..', '..');

/** Modules whose `import.meta.dirname` the bundle may replace: they all live in scripts/local. */
const dirnameModules = /^scripts\/local\//;

export async function bundleOps(outDir: string): Promise<string> {
  const outfile = join(outDir, 'ops.mjs');
  const result = await build({
    entryPoints: [join(root, 'scripts', 'ops.ts')],
    outfile,
    bundle: true,
    platform: 'node',
    format: 'esm',
    target: 'node20',
    packages: 'bundle',
    logLevel: 'warning',
    metafile: true,
    // A bundle has one import.meta; the modules that use its dirname sit in scripts/local (checked below).
    define: { 'import.meta.dirname': JSON.stringify(join(root, 'scripts', 'local')) },
    banner: { js: "import { createRequire as __createRequire } from 'node:module'; const require = __createRequire(import.meta.url);" },
  });
  const own = Object.keys(result.metafile.inputs).filter((input) => !input.includes('node_modules/'));
  const misplaced = own.filter(
    (input) =>
      /import\.meta\.(dirname|filename)/.test(readFileSync(resolve(root, input), 'utf8')) &&
      !dirnameModules.test(relative(root, resolve(root, input))),
  );
  if (misplaced.length) throw new Error(`the ops bundle cannot keep import.meta.dirname/filename of ${misplaced.join(', ')}`);
  return outfile;
}
