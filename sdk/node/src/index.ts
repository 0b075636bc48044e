export {
  Gateway,
  GatewayConnectionError,
  GatewayError,
  GatewayRedirectError,
  verifyStatementCsv,
  type ClientOptions,
  type Download,
  type PostOptions,
  type RequestOptions,
} from './client.ts';
export { canonicalString, signBody } from './signing.ts';
export * as webhooks from './webhooks.ts';
export type * from './types.gen.ts';
export { operations } from './types.gen.ts';
