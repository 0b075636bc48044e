import { createHash } from 'node:crypto';

/**
 * The body-signature recipe of docs/merchant-guide.md "Signing a request body": flatten to dotted keys, drop null and
 * empty strings, render with String(), sort by UTF-16 code units, join `k=v&…`, append `&key=<secret>`, MD5 hex.
 * The one copy of it: the gateway verifies with this module too (shared/domain/body-signature.ts), so a
 * merchant's SDK and the gateway cannot disagree. `limit` bounds the walk (the gateway passes its JSON depth limit).
 */
export function canonicalString(body: Record<string, unknown>, limit?: { maxDepth: number; tooDeep: () => Error }): string {
  const pairs: [string, string][] = [];
  const walk = (value: unknown, path: string, depth: number): void => {
    if (value === null || value === undefined || value === '') return;
    if (limit && depth > limit.maxDepth) throw limit.tooDeep();
    if (Array.isArray(value)) {
      for (const [index, item] of value.entries()) walk(item, `${path}.${index}`, depth + 1);
    } else if (typeof value === 'object') {
      for (const [key, child] of Object.entries(value)) walk(child, path ? `${path}.${key}` : key, depth + 1);
    } else {
      pairs.push([path, String(value)]);
    }
  };
  // Depth 2: a top-level value sits inside the body object, one level below the JSON text's root.
  for (const [key, value] of Object.entries(body)) if (key !== 'signature') walk(value, key, 2);
  pairs.sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
  return pairs.map(([k, v]) => `${k}=${v}`).join('&');
}

/** The `signature` field for `body` (any `signature` already in it is left out of the signed string). */
export function signBody(body: Record<string, unknown>, secretKey: string, limit?: Parameters<typeof canonicalString>[1]): string {
  return createHash('md5')
    .update(`${canonicalString(body, limit)}&key=${secretKey}`, 'utf8')
    .digest('hex');
}
