import { randomBytes } from 'node:crypto';
import { inject } from 'vitest';
import { ensureTable, localTables } from '../../scripts/local/dynamo.ts';
import { workerTableName } from './global-setup.ts';
// The entity declarations, loaded so the store's put() and update() check each write against them (no Lambda bundles them).
import '#shared/store/entities.ts';

/**
 * Every integration and e2e test process talks to the run's DynamoDB Local, with a throwaway master
 * key, in its worker's own table: files run in parallel (one per worker), and a file that scans the
 * table (ledger verify, sweeps, replays) sees only what ran before it in the same worker, as when
 * every file ran one after another. `inject('tableName')` answers this worker's table too.
 * The tables a test makes have no stream unless it asks (a webhook stack's does, ./webhooks.ts):
 * nothing else reads one (scripts/local/dynamo.ts, `localTables`).
 */
localTables.streams = false;
const table = workerTableName(process.env.VITEST_POOL_ID ?? '1');
const state = (globalThis as { __vitest_worker__?: { providedContext: Record<string, unknown> } }).__vitest_worker__;
if (state) state.providedContext = { ...state.providedContext, tableName: table };
process.env.TABLE_NAME = table;
process.env.DYNAMODB_ENDPOINT = inject('dynamoEndpoint');
// Made by the global setup for workers 1..workerTables; a worker beyond them (more workers than it knew) makes its own.
// Checked here, not asked of DynamoDB Local: that attempt cost five requests in each of about 90 files.
if (Number(process.env.VITEST_POOL_ID ?? '1') > inject('workerTables')) await ensureTable(process.env.DYNAMODB_ENDPOINT, table);
process.env.AWS_REGION = 'local';
process.env.SECRETS_MASTER_KEY ??= randomBytes(32).toString('base64');
process.env.POWERTOOLS_LOG_LEVEL ??= 'WARN';
process.env.PUBLIC_BASE_URL ??= 'http://localhost:3000';
