export {
  Gateway,
  GatewayError,
  GatewayRedirectError,
  signBody,
  canonicalString,
  type ClientOptions,
  type PostOptions,
  type RequestOptions,
} from './client.ts';
export * as webhooks from './webhooks.ts';
export type * from './types.gen.ts';
export { operations } from './types.gen.ts';
