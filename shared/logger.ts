import { Logger } from '@aws-lambda-powertools/logger';

/**
 * The one structured JSON logger (Powertools). Log only identifiers, statuses and timings: never
 * API keys, secret keys, webhook secrets, request bodies or card data.
 */
export const logger = new Logger({ serviceName: process.env.POWERTOOLS_SERVICE_NAME ?? 'payment-gateway' });
