import { fromEnv } from '@aws-sdk/credential-provider-env';

/**
 * Bundled in place of @aws-sdk/credential-provider-node (see infra/bundling.ts `alias`). A Lambda
 * function always receives its role's credentials in environment variables, so the SDK's full
 * provider chain (SSO, STS, ini files, IMDS: ~90 kB minified) is dead weight in the bundle.
 */
export const defaultProvider = fromEnv;
