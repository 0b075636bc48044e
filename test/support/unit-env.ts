import { randomBytes } from 'node:crypto';

/**
 * The `unit` project (vitest.config.ts) has no database: the store is pointed at a closed port on
 * 127.0.0.1, so a unit test that reaches DynamoDB fails at once (move it to test/integration).
 */
process.env.TABLE_NAME = 'unit-tests-have-no-table';
process.env.DYNAMODB_ENDPOINT = 'http://127.0.0.1:9';
process.env.AWS_REGION = 'local';
process.env.SECRETS_MASTER_KEY ??= randomBytes(32).toString('base64');
process.env.POWERTOOLS_LOG_LEVEL ??= 'WARN';
process.env.PUBLIC_BASE_URL ??= 'http://localhost:3000';
