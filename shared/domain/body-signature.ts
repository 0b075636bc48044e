import { timingSafeEqual } from 'node:crypto';
import { canonicalString as sdkCanonicalString, signBody as sdkSignBody } from '../../sdk/node/src/signing.ts';
import { JsonTooDeep, maxJsonDepth } from './json-depth.ts';

/**
 * The MD5 body signature of docs/merchant-guide.md, Signing a request body. The recipe is written once, in the SDK
 * (sdk/node/src/signing.ts, a leaf every layer may use), so what merchants sign and what the gateway checks are one code.
 */
export const signatureShape = /^[0-9a-f]{32}$/;

const limit = { maxDepth: maxJsonDepth, tooDeep: () => new JsonTooDeep() };

/** The SDK's canonical string, bounded: request bodies are refused deeper than maxJsonDepth before they get here. */
export const canonicalString = (body: Record<string, unknown>): string => sdkCanonicalString(body, limit);

export const signBody = (body: Record<string, unknown>, secretKey: string): string => sdkSignBody(body, secretKey, limit);

/** Constant-time comparison with the signature made with the key's paired secret. */
export function verifyBodySignature(body: Record<string, unknown>, given: string, secretKey: string): boolean {
  const expected = Buffer.from(signBody(body, secretKey), 'utf8');
  const givenBytes = Buffer.from(given, 'utf8');
  return expected.length === givenBytes.length && timingSafeEqual(expected, givenBytes);
}
