import { randomBytes } from 'node:crypto';
import { inject } from 'vitest';

/** Every test process talks to the run's DynamoDB Local, with a throwaway master key. */
process.env.TABLE_NAME = inject('tableName');
process.env.DYNAMODB_ENDPOINT = inject('dynamoEndpoint');
process.env.AWS_REGION = 'local';
process.env.SECRETS_MASTER_KEY ??= randomBytes(32).toString('base64');
process.env.POWERTOOLS_LOG_LEVEL ??= 'WARN';
process.env.PUBLIC_BASE_URL ??= 'http://localhost:3000';
