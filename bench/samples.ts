import type { RouteId } from '#functions/routes.ts';

/**
 * Representative VALID requests per route, for the round-trip and latency measurements of
 * `npm run bench`. A route without an entry gets a generic request (version `1`, no body, or a
 * signed `{}` on signature routes); if that does not answer 2xx, or the path has parameters other
 * than `{version}`, the route is reported as "no sample". Add an entry when you add a route.
 *
 * A sample is an object, or a function called before EVERY request (warm-up, counted request and
 * each latency iteration) for requests that must differ each time (fresh order ids, ...). Only the
 * HTTP request itself is measured: DynamoDB calls made while building a sample are not counted.
 */
export interface SampleMerchant {
  merchantId: string;
  currency: string;
  test: { keyId: string; apiKey: string; secretKey: string };
  live: { keyId: string; apiKey: string; secretKey: string };
}

export interface SampleContext {
  merchant: SampleMerchant;
  /** 0 = warm-up, 1 = the counted request, then the (untimed, then timed) latency requests; unique per request. */
  iteration: number;
}

export interface RequestSample {
  /** Key mode to call with (default `test`). */
  mode?: 'test' | 'live';
  /** Path parameters other than `version` (which is always `1`). */
  pathParameters?: Record<string, string>;
  query?: Record<string, string>;
  /** JSON body WITHOUT `signature`: the bench signs it with the key's secret on signature routes. */
  body?: Record<string, unknown>;
  headers?: Record<string, string>;
  /** Expected status (default: any 2xx). */
  expectStatus?: number;
  /** Shown in the report, e.g. what makes this request representative. */
  note?: string;
}

export type Sample = RequestSample | ((ctx: SampleContext) => RequestSample | Promise<RequestSample>);

export const samples: Partial<Record<RouteId, Sample>> = {
  // The common call: no body, no Idempotency-Key, the merchant's default currency.
  queryBalance: { note: 'no Idempotency-Key, default currency' },
  settlementSchedule: {},
};
