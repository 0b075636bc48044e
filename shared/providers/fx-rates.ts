import type { Mode } from '#shared/domain/credentials.ts';
import { isRate, sandboxRateSource, type RateSource } from '#shared/domain/fx.ts';

/**
 * Where settlement FX rates come from. Test mode: the fixed sandbox table (shared/domain/fx.ts).
 * Live mode: an HTTP adapter when `FX_RATE_SOURCE_URL` is set for the deployment (or another
 * adapter installed with configureRateSource); with none, live conversions are refused with a 422.
 */
const configured: Partial<Record<Mode, RateSource>> = { test: sandboxRateSource };

/**
 * The HTTP adapter: GET `<url>?from=PKR&to=USDT` answering `{ "rate": "0.00359712" }`, the rate as
 * a decimal STRING (a JSON number would already have been rounded by a float parser).
 */
export function httpRateSource(url: string, fetchImpl: typeof fetch = fetch): RateSource {
  return {
    async quote(from, to, now) {
      const target = new URL(url);
      target.searchParams.set('from', from);
      target.searchParams.set('to', to);
      const response = await fetchImpl(target, { signal: AbortSignal.timeout(3_000) });
      if (response.status === 404) return undefined;
      if (!response.ok) throw new Error(`rate source answered ${response.status}`);
      const body = (await response.json()) as { rate?: unknown };
      if (typeof body.rate !== 'string' || !isRate(body.rate)) throw new Error('rate source answered without a decimal string rate');
      return { from, to, rate: body.rate, at: now.toISOString() };
    },
  };
}

export function rateSourceFor(mode: Mode): RateSource | undefined {
  if (configured[mode]) return configured[mode];
  if (mode === 'live' && process.env.FX_RATE_SOURCE_URL) return (configured.live = httpRateSource(process.env.FX_RATE_SOURCE_URL));
  return undefined;
}

export function configureRateSource(mode: Mode, source: RateSource | undefined): void {
  if (source) configured[mode] = source;
  else delete configured[mode];
}
