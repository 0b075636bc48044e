export { Gateway, GatewayError, signBody, canonicalString, type ClientOptions, type RequestOptions } from './client.ts';
export * as webhooks from './webhooks.ts';
export type * from './types.ts';
