/**
 * Per-client request limits (docs/security-and-limits.md). Deployed, they are AWS WAF rate-based
 * rules on the API stage (infra/gateway-stack.ts; CDK context `rateLimitPerKey`, `rateLimitPerIp`,
 * `rateLimitWindowSeconds` override them); `npm start` applies the same numbers in the local
 * API Gateway so merchants can see and test a 429, and RATE_LIMIT_PER_KEY, RATE_LIMIT_PER_IP and
 * RATE_LIMIT_WINDOW_SECONDS override them there (benchmarks and load tests raise them; see
 * rateLimitsFromEnv). Counted per window:
 *   perKey  requests to /Gateway/* carrying the same Svc-API-Key
 *   perIp   requests from one client IP to the public pages (the hosted checkout /pay/*, payment links'
 *           pages and QR codes /l/*) and provider callbacks (/providers/*): perIpPaths; deployed, WAF
 *           counts the dashboard (/dashboard*) under this limit too (the local server does not, so
 *           tests and benchmarks can drive the dashboard; its sign-in has its own throttle)
 */
export interface RateLimits {
  perKey: number;
  perIp: number;
  windowSeconds: number;
}

export const defaultRateLimits: RateLimits = { perKey: 1200, perIp: 300, windowSeconds: 60 };

/** The environment variables of the local stack's limits (`npm start`), one per field. */
export const rateLimitEnv = {
  perKey: 'RATE_LIMIT_PER_KEY',
  perIp: 'RATE_LIMIT_PER_IP',
  windowSeconds: 'RATE_LIMIT_WINDOW_SECONDS',
} as const satisfies Record<keyof RateLimits, string>;

/**
 * The local limits: defaultRateLimits, each overridden by its variable of rateLimitEnv when set.
 * A value that is not a positive whole number stops the start with the variable's name (a typo
 * must not silently leave a benchmark throttled, or a merchant's test without its 429).
 */
export function rateLimitsFromEnv(env: NodeJS.ProcessEnv = process.env): RateLimits {
  const limits = { ...defaultRateLimits };
  for (const field of Object.keys(rateLimitEnv) as (keyof RateLimits)[]) {
    const raw = env[rateLimitEnv[field]];
    if (raw === undefined || raw === '') continue;
    const value = Number(raw);
    if (!Number.isSafeInteger(value) || value < 1) throw new Error(`${rateLimitEnv[field]}=${raw}: expected a positive whole number`);
    limits[field] = value;
  }
  return limits;
}

/**
 * The unauthenticated paths counted per client IP, by both the local server (prefixes) and WAF (the
 * URI path contains one: deployed, the stage name comes first): the hosted checkout, payment links'
 * pages (each "Continue" opens a checkout session) and provider callbacks.
 */
export const perIpPaths = ['/pay/', '/l/', '/providers/'] as const;

/** Which limit a request falls under, and the value it is counted by; undefined = not limited here. */
export function rateLimitSubject(
  path: string,
  apiKey: string | undefined,
  sourceIp: string,
): { kind: 'perKey' | 'perIp'; id: string } | undefined {
  if (path.startsWith('/Gateway/')) return apiKey ? { kind: 'perKey', id: apiKey } : undefined;
  if (perIpPaths.some((prefix) => path.startsWith(prefix))) return { kind: 'perIp', id: sourceIp };
  return undefined;
}

/** Fixed-window counters in memory (the local server only; AWS counts in WAF). */
export function windowCounter(limits: RateLimits, clock: () => number = Date.now) {
  const counts = new Map<string, { windowStart: number; count: number }>();
  return (subject: { kind: 'perKey' | 'perIp'; id: string }): { allowed: true } | { allowed: false; retryAfterSeconds: number } => {
    const ms = limits.windowSeconds * 1000;
    const now = clock();
    const windowStart = Math.floor(now / ms) * ms;
    const key = `${subject.kind}:${subject.id}`;
    const entry = counts.get(key);
    const current = entry && entry.windowStart === windowStart ? entry : { windowStart, count: 0 };
    if (current.count >= limits[subject.kind])
      return { allowed: false, retryAfterSeconds: Math.max(1, Math.ceil((windowStart + ms - now) / 1000)) };
    current.count++;
    counts.set(key, current);
    if (counts.size > 10_000) for (const [k, v] of counts) if (v.windowStart !== windowStart) counts.delete(k);
    return { allowed: true };
  };
}
