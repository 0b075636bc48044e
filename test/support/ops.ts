import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, inject } from 'vitest';
import { type BundledHandlers, bundleScript } from './script-bundles.ts';

/**
 * `npm run ops` as an operator runs it: a separate process against the run's DynamoDB Local and
 * the given table. Returns stdout, stderr and the parsed `--json` output. The process runs the
 * run's bundle of scripts/ops.ts (./script-bundles.ts); `OPS_VIA_TSX=1` runs the source through tsx
 * as `npm run ops` does.
 */
const run = promisify(execFile);
const root = resolve(import.meta.dirname, '..', '..');
/** node's arguments that start the operator's tool. */
export const opsCommand = (viaTsx = Boolean(process.env.OPS_VIA_TSX)): string[] =>
  viaTsx ? ['--import', 'tsx', 'scripts/ops.ts'] : [inject('opsBundle')];

/**
 * The bundle of `entry` (a script's path from the repository's root, ./script-bundles.ts): made on
 * the first call in the run, then shared by every worker. `node <bundle>` runs what
 * `node --import tsx <entry>` would, for about a sixth of the CPU.
 */
export const scriptBundle = (entry: string, options: { handlers?: BundledHandlers } = {}): Promise<string> =>
  bundleScript(entry, inject('scriptsDir'), options);

export function useOps(
  tableName: () => string = () => inject('tableName'),
  extraEnv: () => NodeJS.ProcessEnv = () => ({}),
  options: { viaTsx?: boolean } = {},
) {
  const dataDir = mkdtempSync(join(tmpdir(), 'ops-'));
  afterAll(() => rmSync(dataDir, { recursive: true, force: true }));
  return async function ops(...args: string[]) {
    const port = new URL(inject('dynamoEndpoint')).port;
    const result = await run(process.execPath, [...opsCommand(options.viaTsx), ...args], {
      cwd: root,
      env: {
        ...process.env,
        DYNAMODB_PORT: port,
        TABLE_NAME: tableName(),
        SECRETS_MASTER_KEY: process.env.SECRETS_MASTER_KEY,
        DATA_DIR: dataDir,
        DYNAMODB_ENDPOINT: '',
        ...extraEnv(),
      },
    }).catch((e: { stdout: string; stderr: string; code: number }) => ({ ...e, failed: true as const }));
    let json: any;
    try {
      json = JSON.parse(result.stdout);
    } catch {
      json = undefined;
    }
    return { ...result, json };
  };
}

/**
 * `npm run ops -- … --json` against a webhook test stack's own table and local queues (the
 * webhooks, redrive and replay commands). Throws when the command fails; returns its parsed output.
 */
export function useQueueOps(stack: { tableName: string; queues: { endpoint: string } }) {
  const dataDir = mkdtempSync(join(tmpdir(), 'ops-webhooks-'));
  afterAll(() => rmSync(dataDir, { recursive: true, force: true }));
  return async function ops(...args: string[]) {
    const result = await run(process.execPath, [...opsCommand(), ...args, '--json'], {
      cwd: root,
      env: {
        ...process.env,
        DYNAMODB_PORT: new URL(inject('dynamoEndpoint')).port,
        DYNAMODB_ENDPOINT: '',
        SQS_PORT: new URL(stack.queues.endpoint).port,
        TABLE_NAME: stack.tableName,
        DATA_DIR: dataDir,
        AWS_ENDPOINT_URL_SQS: '',
        QUEUE_URL: '',
        DEAD_LETTER_QUEUE_URL: '',
      },
    });
    return JSON.parse(result.stdout);
  };
}
