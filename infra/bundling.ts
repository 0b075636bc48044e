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
/**
 * Lighter stand-ins for parts of the AWS SDK (issue 26). In Lambda, credentials always come from
 * the environment: bundle the env provider only. The endpoint-discovery cache every DynamoDB client
 * builds (and never uses: discovery stays off) on a Map instead of mnemonist's LRU cache.
 */
const alias = {
  '@aws-sdk/credential-provider-node': fileURLToPath(new URL('../shared/aws/lambda-credentials.ts', import.meta.url)),
  '@aws-sdk/endpoint-cache': fileURLToPath(new URL('../shared/aws/endpoint-cache.ts', import.meta.url)),
};

/**
 * Bundled, but never loaded by our clients: the SDK imports its event-stream support lazily (an
 * `await import()` in @smithy/core's HttpProtocol) for operations that stream events, and DynamoDB
 * and SQS have none. Left external, that import stays an unused dynamic import instead of 22 kB in
 * every bundle; a client that did stream events would fail loudly (module not found), not silently.
 */
const external = ['@smithy/core/event-streams'];

export const bundling = {
  format: OutputFormat.ESM,
  target,
  minify,
  sourceMap,
  mainFields,
  banner,
  tsconfig,
  // The AWS SDK v3 is bundled on purpose (pinned version, tree-shaken, no dependency on the
  // runtime's copy, faster to load: docs/scaling.md, Lambda bundles); only `external` is left out.
  externalModules: external,
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
    external,
    alias,
    tsconfig,
  };
}
