import { build } from 'esbuild';
import { esbuildOptionsFor } from '#infra/bundling.ts';
import { needsOf } from './test/support/code-needs.ts';
const out = await build({ ...esbuildOptionsFor('x'), entryPoints: ['functions/providers/wallet-callback.ts'], minify: false, write: false, outdir: '/tmp/esb3', logLevel: 'error' });
const n = needsOf(out.outputFiles[0]!.text);
console.log([...n.secrets].map(([k, v]) => [k, [...v]]));
