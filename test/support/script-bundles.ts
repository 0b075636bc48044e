import { existsSync, readFileSync, renameSync, rmSync } from 'node:fs';
import { dirname, join, resolve, sep } from 'node:path';
import { pathToFileURL } from 'node:url';
import { build, type Plugin } from 'esbuild';

/**
 * The scripts the tests spawn (the operator's tool, the fault-point flow process, the relay
 * fixtures, `npm start`'s script), bundled once per run into the run's scripts directory (made by
 * ./global-setup.ts) instead of transpiled and resolved by tsx module by module in every spawned
 * process: each tsx start cost 0.7-1 CPU-s, a bundle's about 0.15. The bundle is the same source,
 * built with esbuild (already a dependency: it builds the Lambdas); the operator still runs it
 * through tsx (`npm run ops`, `npm start`), which test/integration/ops-cli.test.ts and the `npm start`
 * test in test/e2e/local-stack.test.ts keep doing, so both ways stay tested.
 *
 * Each module of this repository keeps its own `import.meta.url`, `dirname` and `filename` (written
 * into it as the source file's), and `process.argv[1]` names the source entry: what a module reads
 * next to itself, and a script's "am I the main module" check, behave as under tsx. A script that
 * serves Lambda handlers (`handlers`: the local server, the job runners) gets them as chunks of their
 * own, which scripts/local/modules.ts `loadHandler` imports instead of the .ts files, sharing the
 * script's modules. Source maps are written beside it: `node --enable-source-maps` names the source
 * files and lines in stack traces (fault points are named by them, shared/faults.ts).
 */
const root = resolve(import.meta.dirname, '..', '..');

/** Each own module's `import.meta.url`, `.dirname` and `.filename` replaced by its source file's. */
const ownImportMeta: Plugin = {
  name: 'own-import-meta',
  setup(b) {
    b.onLoad({ filter: /\.[cm]?ts$/ }, (args) => {
      if (args.path.includes(`${sep}node_modules${sep}`)) return undefined;
      const source = readFileSync(args.path, 'utf8');
      if (!source.includes('import.meta')) return undefined;
      const contents = source
        .replaceAll('import.meta.url', JSON.stringify(pathToFileURL(args.path).href))
        .replaceAll('import.meta.dirname', JSON.stringify(dirname(args.path)))
        .replaceAll('import.meta.filename', JSON.stringify(args.path));
      return { contents, loader: 'ts' };
    });
  },
};

/** The handler modules of every route and job, relative to the repository's root. */
async function handlerFiles(): Promise<string[]> {
  const [{ routeList }, { jobList }] = await Promise.all([import('#functions/routes.ts'), import('#functions/jobs.ts')]);
  return [...new Set([...routeList, ...jobList].map((r) => r.handler))];
}

/** What a bundle's `loadHandler` finds: every route's and job's handler, or the modules listed (paths from the repository's root). */
export type BundledHandlers = 'routes and jobs' | readonly string[];

/**
 * `entry` (a path from the repository's root) bundled into `outDir`; returns the path to run with
 * `node`. Made once: a later call (any worker) finds it.
 */
export async function bundleScript(entry: string, outDir: string, options: { handlers?: BundledHandlers } = {}): Promise<string> {
  const name = `${entry.replace(/[^\w]+/g, '-')}.mjs`;
  const outfile = join(outDir, name);
  if (existsSync(outfile)) return outfile;
  // Built under the same file name in a directory of its own, so the bundle's link to its source map holds after the move.
  const buildDir = join(outDir, `building-${process.pid}-${name}`);
  const building = join(buildDir, name);
  const source = resolve(root, entry);
  const handlers = options.handlers === 'routes and jobs' ? await handlerFiles() : (options.handlers ?? []);
  const registry = handlers.map((file) => `[${JSON.stringify(file)}, () => import(${JSON.stringify(resolve(root, file))})]`).join(',\n');
  await build({
    // The registry first, then the script: its modules (scripts/local/modules.ts) are evaluated after it is set.
    stdin: {
      contents: `globalThis.__bundledHandlers = new Map([${registry}]);\nawait import(${JSON.stringify(source)});\n`,
      resolveDir: root,
      sourcefile: 'bundle-entry.mjs',
      loader: 'js',
    },
    outfile: building,
    bundle: true, // one file: each import() above becomes a lazy part of it, sharing its modules
    platform: 'node',
    format: 'esm',
    target: 'node20',
    packages: 'bundle',
    sourcemap: 'linked',
    sourcesContent: false, // only the mappings: smaller to read at each start
    logLevel: 'warning',
    plugins: [ownImportMeta],
    banner: {
      js: [
        "import { createRequire as __createRequire } from 'node:module';",
        'const require = __createRequire(import.meta.url);',
        `process.argv[1] = ${JSON.stringify(source)};`,
      ].join(' '),
    },
  });
  try {
    renameSync(`${building}.map`, `${outfile}.map`);
    renameSync(building, outfile); // atomic: a worker bundling the same script at the same time either sees it whole or makes its own
  } catch (error) {
    if (!existsSync(outfile)) throw error;
  } finally {
    rmSync(buildDir, { recursive: true, force: true });
  }
  return outfile;
}

/** `npm run ops`'s script, bundled by the global setup for the whole run. */
export const bundleOps = (outDir: string): Promise<string> => bundleScript('scripts/ops.ts', outDir);
