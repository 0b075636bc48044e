import { fileURLToPath } from 'node:url';
import { OutputFormat, type BundlingOptions } from 'aws-cdk-lib/aws-lambda-nodejs';
import type { BuildOptions } from 'esbuild';

/**
 * How every Lambda is bundled. `bundling` feeds NodejsFunction (local esbuild, no Docker);
 * `esbuildOptionsFor` gives esbuild itself the same settings, so bench scripts measure what ships.
 */

/** The repository root: handler paths in functions/routes.ts are relative to it. */
export const repoRoot = fileURLToPath(new URL('..', import.meta.url));

const target = 'node24';
const minify = true;
/** Off: smaller bundles and faster cold starts. If turned on, GatewayFunction adds --enable-source-maps. */
const sourceMap = false;
/** Prefer the ESM builds of dependencies; they tree-shake better. */
const mainFields = ['module', 'main'];
/** CommonJS dependencies inside an ESM bundle still call require(); give them one. */
const banner = "import { createRequire } from 'module'; const require = createRequire(import.meta.url);";
const tsconfig = fileURLToPath(new URL('../tsconfig.json', import.meta.url));
/** In Lambda, credentials always come from the environment: bundle the env provider only. */
const alias = { '@aws-sdk/credential-provider-node': fileURLToPath(new URL('../shared/aws/lambda-credentials.ts', import.meta.url)) };

export const bundling = {
  format: OutputFormat.ESM,
  target,
  minify,
  sourceMap,
  mainFields,
  banner,
  tsconfig,
  // Nothing is external: the AWS SDK v3 is bundled on purpose (pinned version, tree-shaken, no
  // dependency on the runtime's copy).
  externalModules: [],
  esbuildArgs: Object.fromEntries(Object.entries(alias).map(([from, to]) => [`--alias:${from}`, to])),
  forceDockerBundling: false,
} satisfies BundlingOptions;

/** esbuild options equivalent to `bundling`, for building `entry` with esbuild directly. */
export function esbuildOptionsFor(entry: string): BuildOptions {
  return {
    entryPoints: [entry],
    bundle: true,
    platform: 'node',
    format: 'esm',
    target,
    minify,
    sourcemap: sourceMap,
    mainFields,
    banner: { js: banner },
    external: [],
    alias,
    tsconfig,
  };
}
