/**
 * Lambda event filtering (the event source mapping's FilterCriteria patterns) for the patterns the
 * templates use: nested objects, and arrays of values (a match on any), `{ prefix }`, `{ exists }`
 * and `{ "anything-but" }`. A pattern matches when every key it names matches the record.
 */
export function matchesPattern(pattern: unknown, value: unknown): boolean {
  if (Array.isArray(pattern)) return pattern.some((p) => matchesRule(p, value));
  if (!pattern || typeof pattern !== 'object') return pattern === value;
  if (!value || typeof value !== 'object')
    return Object.values(pattern).every((p) => Array.isArray(p) && p.some((x) => x?.exists === false));
  return Object.entries(pattern).every(([key, p]) => matchesPattern(p, (value as Record<string, unknown>)[key]));
}

function matchesRule(rule: unknown, value: unknown): boolean {
  if (rule === null || typeof rule !== 'object') return rule === value;
  const r = rule as { prefix?: string; exists?: boolean; 'anything-but'?: unknown };
  if (r.exists !== undefined) return r.exists === (value !== undefined);
  if (r.prefix !== undefined) return typeof value === 'string' && value.startsWith(r.prefix);
  if (r['anything-but'] !== undefined) return value !== undefined && ![r['anything-but']].flat().includes(value);
  return false;
}
