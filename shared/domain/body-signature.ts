import { createHash, timingSafeEqual } from 'node:crypto';
import { JsonTooDeep, maxJsonDepth } from './json-depth.ts';

/**
 * The MD5 body signature of docs/merchant-guide.md, Signing a request body: flatten to dotted keys, drop null and empty strings,
 * render with String(), sort by UTF-16 code units, join `k=v&…`, append `&key=<secret>`, MD5 hex.
 */
export const signatureShape = /^[0-9a-f]{32}$/;

export function canonicalString(body: Record<string, unknown>): string {
  const pairs: [string, string][] = [];
  // Bounded: request bodies are refused deeper than maxJsonDepth before they get here.
  const walk = (value: unknown, path: string, depth: number): void => {
    if (value === null || value === undefined || value === '') return;
    if (depth > maxJsonDepth) throw new JsonTooDeep();
    if (Array.isArray(value)) {
      for (const [index, item] of value.entries()) walk(item, `${path}.${index}`, depth + 1);
    } else if (typeof value === 'object') {
      for (const [key, child] of Object.entries(value)) walk(child, path ? `${path}.${key}` : key, depth + 1);
    } else {
      pairs.push([path, String(value)]);
    }
  };
  for (const [key, value] of Object.entries(body)) {
    if (key !== 'signature') walk(value, key, 2);
  }
  pairs.sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
  return pairs.map(([k, v]) => `${k}=${v}`).join('&');
}

export function signBody(body: Record<string, unknown>, secretKey: string): string {
  return createHash('md5')
    .update(`${canonicalString(body)}&key=${secretKey}`, 'utf8')
    .digest('hex');
}

/** Constant-time comparison with the signature made with the key's paired secret. */
export function verifyBodySignature(body: Record<string, unknown>, given: string, secretKey: string): boolean {
  const expected = Buffer.from(signBody(body, secretKey), 'utf8');
  const givenBytes = Buffer.from(given, 'utf8');
  return expected.length === givenBytes.length && timingSafeEqual(expected, givenBytes);
}
