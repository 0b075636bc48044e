import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { repoRoot } from '../local/config.ts';
import { rehearsalLiveProvidersArn } from './template.ts';

/**
 * `cdk synth`, cached by a content hash of what the templates and bundles are made from: the
 * sources (functions/, shared/, infra/), package-lock.json, cdk.json, tsconfig.json and the context
 * values below. A warm cache skips the synth (minutes on this machine) entirely. The rehearsal
 * synthesizes as a deployment with live providers (`-c liveProvidersSecretArn`), so the roles that
 * read the live credentials are rehearsed too; it serves that secret with the emulators' credentials.
 */
const inputs = ['functions', 'shared', 'infra', 'package-lock.json', 'cdk.json', 'tsconfig.json'];
const context = [`liveProvidersSecretArn=${rehearsalLiveProvidersArn}`];

export function sourceHash(root = repoRoot): string {
  const files = execFileSync('git', ['ls-files', '-co', '--exclude-standard', '--', ...inputs], { cwd: root, encoding: 'utf8' })
    .split('\n')
    .filter(Boolean)
    .sort();
  const hash = createHash('sha256');
  for (const value of context) hash.update(value).update('\0');
  for (const file of files) {
    const path = join(root, file);
    if (!existsSync(path)) continue; // deleted but still listed
    hash.update(file).update('\0').update(readFileSync(path)).update('\0');
  }
  return hash.digest('hex');
}

const out = join(repoRoot, 'cdk.out');
const marker = join(out, 'rehearsal-source-hash');

/** Whether cdk.out holds the synth of the current sources. */
export function synthCached(hash = sourceHash()): boolean {
  return existsSync(marker) && readFileSync(marker, 'utf8') === hash && existsSync(join(out, 'PaymentGateway.template.json'));
}

/** Synthesizes into cdk.out unless it already holds the synth of these sources; returns cdk.out's path. */
export function synthesize(options: { force?: boolean; log?: (line: string) => void } = {}): string {
  const hash = sourceHash();
  if (synthCached(hash) && !options.force) {
    options.log?.('synth: cached (sources unchanged)');
    return out;
  }
  options.log?.('synth: cdk synth (sources changed)...');
  execFileSync('npx', ['cdk', 'synth', '--quiet', ...context.flatMap((c) => ['-c', c])], {
    cwd: repoRoot,
    stdio: ['ignore', 'ignore', 'inherit'],
  });
  writeFileSync(marker, hash);
  return out;
}
