import { spawnSync } from 'node:child_process';
import { resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { openApiPath, repoRoot } from '../../scripts/docs.ts';

/**
 * docs/openapi.json passes both linters with zero errors: Redocly's `recommended` rules
 * (redocly.yaml) and Spectral's `spectral:oas` (.spectral.yaml). Both run offline from
 * node_modules; warnings are allowed, errors fail with the linter's report.
 */
const bin = (name: string) => resolve(repoRoot, 'node_modules/.bin', name);
const env = { ...process.env, REDOCLY_TELEMETRY: 'off', REDOCLY_SUPPRESS_UPDATE_NOTICE: 'true', NO_COLOR: '1', FORCE_COLOR: '0' };

function run(command: string, args: string[]) {
  const r = spawnSync(command, args, { cwd: repoRoot, env, encoding: 'utf8', timeout: 120_000 });
  return { status: r.status, output: `${r.stdout}\n${r.stderr}` };
}

describe('OpenAPI lint', () => {
  it('Redocly (recommended): zero errors', () => {
    const r = run(bin('redocly'), ['lint', openApiPath, '--config', resolve(repoRoot, 'redocly.yaml'), '--format', 'stylish']);
    expect(r.output).not.toMatch(/\d+:\d+\s+error\s/);
    expect(r.status, r.output).toBe(0);
  }, 150_000);

  it('Spectral (spectral:oas): zero errors', () => {
    const r = run(bin('spectral'), [
      'lint',
      openApiPath,
      '--ruleset',
      resolve(repoRoot, '.spectral.yaml'),
      '--fail-severity',
      'error',
      '--format',
      'text',
    ]);
    expect(r.output).not.toMatch(/\d+:\d+\s+error\s/);
    expect(r.status, r.output).toBe(0);
  }, 150_000);
});
