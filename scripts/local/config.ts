import { randomBytes } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { rateLimitsFromEnv, type RateLimits } from '#shared/http/rate-limits.ts';

/**
 * The AWS SDK warns from every process under Node < 22 that its releases after January 2027 need
 * Node 22. The local tools (npm start, ops, listen, bench) say it once, in the `npm start` banner
 * (`nodeNotice`), instead of on every command; deployed functions run Node 24.
 */
process.env.AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED ??= 'true';
const nodeMajor = Number(process.versions.node.split('.')[0]);
export const nodeNotice =
  nodeMajor < 22
    ? `Node ${process.versions.node} works; use Node 22 or later before January 2027 (AWS SDK releases after then need it).`
    : null;

/**
 * Where the local stack lives. Everything derives from PORT and DATA_DIR, so `npm start` and
 * `npm run ops` find each other with no flags: DynamoDB Local on PORT+5000, SQS on PORT+6324, the demo
 * merchant's webhook receiver on PORT+1.
 */
export interface LocalConfig {
  port: number;
  /**
   * Where the demo merchant's webhooks go: the receiver a developer runs (README, "Your first paid sandbox
   * checkout") on 127.0.0.1. WEBHOOK_PORT, else PORT+1; `npm start` keeps the stored demo endpoint on it.
   */
  webhookPort: number;
  /** The API server's interface: 127.0.0.1 unless HOST says otherwise (DynamoDB Local and SQS are always 127.0.0.1). */
  host: string;
  dynamoPort: number;
  sqsPort: number;
  dataDir: string;
  tableName: string;
  baseUrl: string;
  inMemory: boolean;
  /** The per-key / per-IP limits of the local API Gateway (RATE_LIMIT_* variables, docs/security-and-limits.md). */
  rateLimits: RateLimits;
}

export const repoRoot = resolve(import.meta.dirname, '..', '..');

export function localConfig(env: NodeJS.ProcessEnv = process.env): LocalConfig {
  const port = Number(env.PORT || 3000);
  return {
    port,
    webhookPort: Number(env.WEBHOOK_PORT || port + 1),
    host: env.HOST || '127.0.0.1',
    dynamoPort: Number(env.DYNAMODB_PORT || port + 5000),
    sqsPort: Number(env.SQS_PORT || port + 6324),
    dataDir: resolve(repoRoot, env.DATA_DIR || '.data'),
    tableName: env.TABLE_NAME || 'payment-gateway',
    baseUrl: env.PUBLIC_BASE_URL || `http://localhost:${port}`,
    inMemory: env.IN_MEMORY === '1' || env.IN_MEMORY === 'true',
    rateLimits: rateLimitsFromEnv(env),
  };
}

/**
 * The local master key that seals secret keys, made once and kept in the data directory
 * (git-ignored) so restarts and the ops CLI can open what earlier runs sealed.
 */
export function localMasterKey(dataDir: string): string {
  mkdirSync(dataDir, { recursive: true });
  const file = resolve(dataDir, 'master.key');
  if (!existsSync(file)) writeFileSync(file, randomBytes(32).toString('base64'), { mode: 0o600 });
  return readFileSync(file, 'utf8').trim();
}

/** Points this process's store (and handlers it loads) at the local stack. */
export function useLocalStack(config: LocalConfig): void {
  process.env.TABLE_NAME = config.tableName;
  process.env.DYNAMODB_ENDPOINT = `http://127.0.0.1:${config.dynamoPort}`;
  process.env.AWS_REGION ||= 'local';
  process.env.SECRETS_MASTER_KEY ||= localMasterKey(config.dataDir);
  process.env.PUBLIC_BASE_URL ||= config.baseUrl;
}
