import { createHash, randomUUID } from 'node:crypto';
import type { Balance, CheckoutRequest, DepositRequest, RefundRequest, SettlementRequest, Transaction, WithdrawRequest } from './types.ts';

/** The body-signature recipe of docs/merchant-guide.md "Signing": flatten, drop empties, sort, `&key=<secret>`, MD5 hex. */
export function canonicalString(body: Record<string, unknown>): string {
  const pairs: [string, string][] = [];
  const walk = (value: unknown, path: string): void => {
    if (value === null || value === undefined || value === '') return;
    if (Array.isArray(value)) value.forEach((item, index) => walk(item, `${path}.${index}`));
    else if (typeof value === 'object') for (const [key, child] of Object.entries(value)) walk(child, path ? `${path}.${key}` : key);
    else pairs.push([path, String(value)]);
  };
  for (const [key, value] of Object.entries(body)) if (key !== 'signature') walk(value, key);
  pairs.sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
  return pairs.map(([k, v]) => `${k}=${v}`).join('&');
}

export function signBody(body: Record<string, unknown>, secretKey: string): string {
  return createHash('md5').update(`${canonicalString(body)}&key=${secretKey}`, 'utf8').digest('hex');
}

/** A problem-details answer (RFC 9457) as an error: `status`, a stable `code`, the `traceId` to quote to support. */
export class GatewayError extends Error {
  override name = 'GatewayError';
  readonly status: number;
  readonly code: string | undefined;
  readonly traceId: string | undefined;
  readonly errors: Record<string, string[]> | undefined;
  readonly problem: Record<string, unknown>;
  constructor(status: number, problem: Record<string, unknown>) {
    super(String(problem.detail ?? problem.title ?? `HTTP ${status}`));
    this.status = status;
    this.problem = problem;
    this.code = typeof problem.code === 'string' ? problem.code : undefined;
    this.traceId = typeof problem.traceId === 'string' ? problem.traceId : undefined;
    this.errors = problem.errors as Record<string, string[]> | undefined;
  }
}

export interface ClientOptions {
  apiKey: string;
  /** The secret key paired with the API key; needed for signed POSTs. */
  secretKey?: string;
  /** Default http://localhost:3000 (the local stack). */
  baseUrl?: string;
  /** Retries after the first attempt (default 3). */
  maxRetries?: number;
  /** First backoff in ms (default 200); doubles each retry, with full jitter, capped at 5 s. */
  retryBaseMs?: number;
  fetch?: typeof fetch;
}

export interface RequestOptions {
  query?: Record<string, string | number | undefined>;
  body?: Record<string, unknown>;
  /** Sign the body with the secret key (default: true for POSTs with a body). */
  sign?: boolean;
  /** Default: a fresh UUID per call on every POST, kept across its retries. */
  idempotencyKey?: string;
}

const retryable = (status: number): boolean => status === 409 || status === 429 || status >= 500;
const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

function retryAfterMs(value: string | null): number | undefined {
  if (!value) return undefined;
  const seconds = Number(value);
  if (Number.isFinite(seconds)) return Math.max(0, seconds * 1000);
  const date = Date.parse(value);
  return Number.isNaN(date) ? undefined : Math.max(0, date - Date.now());
}

export class Gateway {
  readonly baseUrl: string;
  readonly #options: ClientOptions;
  constructor(options: ClientOptions) {
    if (!options?.apiKey) throw new TypeError('apiKey is required');
    this.#options = options;
    this.baseUrl = (options.baseUrl ?? 'http://localhost:3000').replace(/\/+$/, '');
  }

  /** Any endpoint: path relative to the base URL, e.g. `/Gateway/v1/Refunds`. */
  async request<T = unknown>(method: 'GET' | 'POST', path: string, options: RequestOptions = {}): Promise<T> {
    const url = new URL(this.baseUrl + path);
    for (const [k, v] of Object.entries(options.query ?? {})) if (v !== undefined) url.searchParams.set(k, String(v));
    const headers: Record<string, string> = { 'Svc-API-Key': this.#options.apiKey, Accept: 'application/json' };
    let payload: string | undefined;
    if (options.body) {
      const body = { ...options.body };
      if (options.sign ?? method === 'POST') {
        if (!this.#options.secretKey) throw new TypeError('secretKey is required to sign request bodies');
        body.signature = signBody(body, this.#options.secretKey);
      }
      payload = JSON.stringify(body);
      headers['Content-Type'] = 'application/json';
    }
    if (method === 'POST') headers['Idempotency-Key'] = options.idempotencyKey ?? randomUUID();
    const doFetch = this.#options.fetch ?? fetch;
    const maxRetries = this.#options.maxRetries ?? 3;
    const base = this.#options.retryBaseMs ?? 200;
    for (let attempt = 0; ; attempt++) {
      const backoff = Math.random() * Math.min(5000, base * 2 ** attempt);
      let response: Response;
      try {
        response = await doFetch(url, { method, headers, body: payload });
      } catch (error) {
        if (attempt >= maxRetries) throw error;
        await sleep(backoff);
        continue;
      }
      const text = await response.text();
      const parsed = text ? safeJson(text) : undefined;
      if (response.ok) return parsed as T;
      if (retryable(response.status) && attempt < maxRetries) {
        await sleep(response.status === 429 ? (retryAfterMs(response.headers.get('Retry-After')) ?? backoff) : backoff);
        continue;
      }
      throw new GatewayError(response.status, (parsed && typeof parsed === 'object' ? parsed : { detail: text }) as Record<string, unknown>);
    }
  }

  readonly account = { balance: (currency?: string) => this.request<Balance>('POST', '/Gateway/v1/Account/query-balance', { query: { currency } }) };
  readonly checkouts = { create: (body: CheckoutRequest, o?: RequestOptions) => this.request<Record<string, unknown>>('POST', '/Gateway/v1/Payment/initiate-checkout', { ...o, body: body as unknown as Record<string, unknown> }) };
  readonly deposits = { create: (body: DepositRequest, o?: RequestOptions) => this.request<Record<string, unknown>>('POST', '/Gateway/v1/Payment/deposit', { ...o, body: body as unknown as Record<string, unknown> }) };
  readonly withdrawals = { create: (body: WithdrawRequest, o?: RequestOptions) => this.request<Record<string, unknown>>('POST', '/Gateway/v1/Payment/withdraw', { ...o, body: body as unknown as Record<string, unknown> }) };
  readonly refunds = {
    create: (body: RefundRequest, o?: RequestOptions) => this.request<Record<string, unknown>>('POST', '/Gateway/v1/Refunds', { ...o, body: body as unknown as Record<string, unknown> }),
    retrieve: (id: string) => this.request<Record<string, unknown>>('GET', `/Gateway/v1/Refunds/${encodeURIComponent(id)}`),
    list: (query?: Record<string, string | number | undefined>) => this.request<Record<string, unknown>>('GET', '/Gateway/v1/Refunds', { query }),
  };
  readonly settlements = {
    create: (body: SettlementRequest, o?: RequestOptions) => this.request<Record<string, unknown>>('POST', '/Gateway/v1/Settlements', { ...o, body: body as unknown as Record<string, unknown> }),
    retrieve: (id: string) => this.request<Record<string, unknown>>('GET', `/Gateway/v1/Settlements/${encodeURIComponent(id)}`),
    list: (query?: Record<string, string | number | undefined>) => this.request<Record<string, unknown>>('GET', '/Gateway/v1/Settlements', { query }),
    schedule: () => this.request<Record<string, unknown>>('GET', '/Gateway/v1/Settlements/schedule'),
  };
  readonly transactions = {
    retrieve: (reference: string) => this.request<Transaction>('GET', `/Gateway/v1/Transaction/${encodeURIComponent(reference)}`),
    byOrderRef: (orderRef: string) => this.request<Transaction>('GET', `/Gateway/v1/Transaction/by-ref/${encodeURIComponent(orderRef)}`),
    events: (reference: string) => this.request<Record<string, unknown>>('GET', `/Gateway/v1/Transaction/${encodeURIComponent(reference)}/events`),
  };
  readonly events = {
    /** The events feed, newest first: filters `type`, `since`, `until`, `deliveryState`, `limit`, cursor `startingAfter`. */
    list: (query?: Record<string, string | number | undefined>) => this.request<Record<string, unknown>>('GET', '/Gateway/v1/Events', { query }),
    attempts: (eventId: string) => this.request<Record<string, unknown>>('GET', `/Gateway/v1/Events/${encodeURIComponent(eventId)}/attempts`),
    resend: (eventId: string) => this.request<Record<string, unknown>>('POST', `/Gateway/v1/Events/${encodeURIComponent(eventId)}/resend`),
  };
}

function safeJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return { detail: text };
  }
}
