import { randomUUID } from 'node:crypto';
import { routes, type Route, type RouteId } from '#functions/routes.ts';
import { signBody } from '#shared/domain/body-signature.ts';
import type { RequestSample, Sample, SampleContext } from './samples.ts';

/** Turns a route and its sample into one concrete HTTP request. */
export interface BenchRequest {
  method: string;
  path: string;
  headers: Record<string, string>;
  body?: string;
  expectStatus?: number;
  expectText?: string;
}

export type RequestPlan =
  | { kind: 'sample'; note?: string; build: (ctx: SampleContext) => Promise<BenchRequest> }
  | { kind: 'none'; reason: string };

function toRequest(route: Route, sample: RequestSample, ctx: SampleContext): BenchRequest {
  const keys = (sample.merchant ?? ctx.merchant)[sample.mode ?? 'test'];
  const params: Record<string, string> = { version: '1', ...sample.pathParameters };
  const path = route.path.replace(/\{(\w+)\}/g, (_, name: string) => {
    const value = params[name];
    if (value === undefined) throw new Error(`${route.id}: the sample has no value for path parameter {${name}}`);
    return encodeURIComponent(value);
  });
  const query = sample.query && Object.keys(sample.query).length ? `?${new URLSearchParams(sample.query)}` : '';
  const headers: Record<string, string> = { ...sample.headers };
  if (route.auth === 'apiKey') headers['Svc-API-Key'] ??= keys.apiKey;
  // A merchant's POST carries an Idempotency-Key (a fresh one per request), unless the sample says otherwise.
  if (route.auth === 'apiKey' && route.method === 'POST' && sample.idempotencyKey !== false) headers['Idempotency-Key'] ??= randomUUID();
  let body: string | undefined;
  const json = sample.body ?? (route.signature ? {} : undefined);
  if (sample.raw !== undefined) body = sample.raw;
  else if (sample.form) {
    const fields = Object.entries(sample.form).flatMap(([k, v]) => (Array.isArray(v) ? v : [v]).map((x): [string, string] => [k, x]));
    body = new URLSearchParams(fields).toString();
    headers['Content-Type'] ??= 'application/x-www-form-urlencoded';
    headers['Sec-Fetch-Site'] ??= 'same-origin';
  } else if (json !== undefined) {
    body = JSON.stringify(route.signature ? { ...json, signature: signBody(json, keys.secretKey) } : json);
    headers['Content-Type'] ??= 'application/json';
  }
  return {
    method: route.method,
    path: `${path}${query}`,
    headers,
    ...(body !== undefined ? { body } : {}),
    ...(sample.expectStatus ? { expectStatus: sample.expectStatus } : {}),
    ...(sample.expectText ? { expectText: sample.expectText } : {}),
  };
}

/**
 * One request to a route of the local API as a sample builds it (signed, keyed, with its form token),
 * sent and required to answer as the sample expects: what the seeding helpers (bench/seeds.ts) use to
 * create the objects a sample needs through the API itself. Its JSON answer, or the text.
 */
export async function seedCall(ctx: SampleContext, id: RouteId, sample: RequestSample): Promise<any> {
  const response = await send(ctx.baseUrl, toRequest(routes[id], sample, ctx));
  if (!response.ok) throw new Error(`seeding ${id} got ${response.status}: ${excerpt(response.text)}`);
  try {
    return JSON.parse(response.text);
  } catch {
    return response.text;
  }
}

/** A route without a sample is not measured (no guessed request: a route is measured as a merchant or customer calls it). */
export function planRequest(route: Route, sample: Sample | undefined): RequestPlan {
  if (!sample) return { kind: 'none', reason: `no sample in bench/samples.ts for ${route.method} ${route.path}` };
  const note = typeof sample === 'function' ? undefined : sample.note;
  return {
    kind: 'sample',
    ...(note ? { note } : {}),
    build: async (ctx) => toRequest(route, typeof sample === 'function' ? await sample(ctx) : sample, ctx),
  };
}

export interface BenchResponse {
  status: number;
  ok: boolean;
  text: string;
  location: string | null;
}

/** What an answer says, for an error line: a page's alert (role="alert") or its title, else the start of the body. */
export function excerpt(text: string): string {
  const alert = /role="alert">([\s\S]*?)<\/(?:div|p)>/.exec(text)?.[1] ?? /<title>([^<]*)<\/title>/.exec(text)?.[1];
  return (alert ? `page: ${alert.replace(/<[^>]+>/g, ' ')}` : text).replace(/\s+/g, ' ').trim().slice(0, 300);
}

export async function send(baseUrl: string, request: BenchRequest): Promise<BenchResponse> {
  const response = await fetch(`${baseUrl}${request.path}`, {
    method: request.method,
    headers: request.headers,
    redirect: 'manual', // a page's 303 is its answer; following it would measure another route
    ...(request.body !== undefined ? { body: request.body } : {}),
  });
  const text = await response.text();
  const ok =
    (request.expectStatus !== undefined ? response.status === request.expectStatus : response.status >= 200 && response.status < 300) &&
    (request.expectText === undefined || text.includes(request.expectText));
  return { status: response.status, ok, text, location: response.headers.get('location') };
}
