import { createHash, randomUUID } from 'node:crypto';
import { signBody } from './signing.ts';
import { type Operations, operations, type Problem, type ValidationProblem } from './types.gen.ts';

/** A problem-details answer (RFC 9457) as an error: `status`, a stable `code`, the `traceId` to quote to support. */
export class GatewayError extends Error {
  override name = 'GatewayError';
  readonly status: number;
  /**
   * The problem's stable `code` (docs/merchant-guide.md "Errors"). An answer that is not problem details
   * (a proxy's HTML page, say) gets `http_<status>`.
   */
  readonly code: string;
  /** Quote it to support; empty when the answer did not carry one. */
  readonly traceId: string;
  /** Per-field messages of a 400 (`invalid_request`, `unknown_parameter`, …). */
  readonly errors: ValidationProblem['errors'] | undefined;
  /** What to check next, when the gateway gives it (`signature_mismatch`: the signing recipe); also in `message`. */
  readonly hint: string | undefined;
  readonly problem: Problem;
  constructor(status: number, problem: Partial<Problem> & Record<string, unknown>) {
    const detail = String(problem.detail ?? problem.title ?? `HTTP ${status}`);
    const hint = typeof problem.hint === 'string' && problem.hint ? problem.hint : undefined;
    super(hint ? `${detail} (${hint})` : detail);
    this.status = status;
    this.code = typeof problem.code === 'string' ? problem.code : `http_${status}`;
    this.traceId = typeof problem.traceId === 'string' ? problem.traceId : '';
    this.errors = problem.errors && typeof problem.errors === 'object' ? problem.errors : undefined;
    this.hint = hint;
    this.problem = {
      type: String(problem.type ?? 'about:blank'),
      title: String(problem.title ?? `HTTP ${status}`),
      status,
      detail,
      code: this.code,
      traceId: this.traceId,
      ...(this.errors ? { errors: this.errors } : {}),
      ...(hint ? { hint } : {}),
    };
  }
}

/**
 * No answer at all: the gateway could not be reached (refused connection, unknown host, TLS failure, reset) on any
 * attempt. `url` is what the client tried; `cause` is the last network error (its `code`, e.g. ECONNREFUSED, in `reason`).
 */
export class GatewayConnectionError extends Error {
  override name = 'GatewayConnectionError';
  readonly code = 'connection_failed';
  /** The request URL the client could not reach. */
  readonly url: string;
  /** The network error's code (ECONNREFUSED, ENOTFOUND, …) or message. */
  readonly reason: string;
  /** How many times the request was tried. */
  readonly attempts: number;
  constructor(url: URL, cause: unknown, attempts: number) {
    const inner = (cause as { cause?: unknown })?.cause ?? cause;
    const code = (inner as { code?: unknown })?.code;
    const message = inner instanceof Error ? inner.message : String(inner);
    const reason = typeof code === 'string' && !message.includes(code) ? `${code}: ${message}` : message;
    super(
      `Could not reach the gateway at ${url.origin} (${url.href}): ${reason}` +
        `${attempts > 1 ? ` (${attempts} attempts)` : ''}. Check baseUrl and that the gateway is running.`,
      { cause },
    );
    this.url = url.href;
    this.reason = reason;
    this.attempts = attempts;
  }
}

/** Every path the client sends starts with this; a baseUrl that already ends in it would double it. */
const versionPrefix = /\/Gateway\/v\d+\/*$/i;

/**
 * The base URL as the client uses it: the gateway's root (scheme, host, and the stage prefix of a deployment, e.g.
 * `/prod`), without a trailing slash. One that ends in `/Gateway/v1` is refused with the value to use instead: every
 * request would otherwise go to `/Gateway/v1/Gateway/v1/…` and answer 404.
 */
export function gatewayBaseUrl(baseUrl = 'http://localhost:3000'): string {
  let url: URL;
  try {
    url = new URL(baseUrl);
  } catch {
    throw new TypeError(`baseUrl ${JSON.stringify(baseUrl)} is not an absolute URL: give the gateway's, e.g. http://localhost:3000`);
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') throw new TypeError(`baseUrl ${baseUrl} must be an http or https URL`);
  if (versionPrefix.test(url.pathname)) {
    const root = `${url.origin}${url.pathname.replace(versionPrefix, '')}`;
    throw new TypeError(
      `baseUrl ${baseUrl} ends in ${versionPrefix.exec(url.pathname)![0].replace(/\/+$/, '')}, which the client adds to every path ` +
        `itself (requests would go to …/Gateway/v1/Gateway/v1/…): use baseUrl ${root}`,
    );
  }
  return baseUrl.replace(/\/+$/, '');
}

/**
 * The gateway answered with a redirect (3xx). The client never follows one, to the same origin or
 * another: it would re-send `Svc-API-Key`, the signed body and the `Idempotency-Key` to wherever
 * the `Location` points. A redirect means `baseUrl` (or a proxy in front of it) is wrong: fix that.
 */
export class GatewayRedirectError extends GatewayError {
  override name = 'GatewayRedirectError';
  /** The redirect target as given in `Location` (resolved against the request URL); empty when absent or unreadable. */
  readonly location: string;
  /** The origin (scheme, host, port) the redirect points to; empty when unknown. */
  readonly targetOrigin: string;
  /** The target is another origin than `baseUrl`'s. */
  readonly crossOrigin: boolean;
  constructor(status: number, requestUrl: URL, location: string | null) {
    let target: URL | undefined;
    try {
      target = location ? new URL(location, requestUrl) : undefined;
    } catch {
      target = undefined;
    }
    const crossOrigin = target !== undefined && target.origin !== requestUrl.origin;
    const where = target
      ? crossOrigin
        ? `another origin, ${target.origin}`
        : `${target.pathname} on the same origin`
      : 'an unknown target';
    super(status, {
      title: 'Redirect refused',
      code: 'redirect_refused',
      detail:
        `The gateway answered ${status} with a redirect to ${where}. The client does not follow redirects and sent ` +
        `nothing there (no API key, no body): check baseUrl (${requestUrl.origin}).`,
    });
    this.location = target?.href ?? '';
    this.targetOrigin = target?.origin ?? '';
    this.crossOrigin = crossOrigin;
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
  query?: object;
  body?: object;
  /** Sign the body with the secret key (default: true for POSTs with a body). */
  sign?: boolean;
  /** Default: a fresh UUID per call on every POST, kept across its retries. */
  idempotencyKey?: string;
  /** A file download (statements): the Accept header to send; the answer is then `{ bytes, headers }`, not JSON. */
  accept?: string;
}

/** A file the gateway sent (a statement): its bytes and the response headers (`Statement-Digest`). */
export interface Download {
  bytes: Uint8Array;
  headers: Headers;
}

/**
 * Checks a statement CSV received earlier (docs/merchant-guide.md, Statements): the SHA-256 of
 * everything before its last line (`# sha256=<hex> …`) must be that hex. Returns the digest, or
 * throws when the rows were altered or the trailer is missing.
 */
export function verifyStatementCsv(csv: string): string {
  const at = csv.lastIndexOf('\r\n# sha256=');
  const claimed = at < 0 ? undefined : /^# sha256=([0-9a-f]{64})\b/.exec(csv.slice(at + 2))?.[1];
  if (!claimed) throw new Error('not a statement CSV: no `# sha256=` trailer line');
  const actual = createHash('sha256')
    .update(csv.slice(0, at + 2), 'utf8')
    .digest('hex');
  if (actual !== claimed) throw new Error(`statement altered: its rows hash to ${actual}, the trailer says ${claimed}`);
  return actual;
}

/** Options of one POST: the `Idempotency-Key` to send (default: a fresh UUID, kept across retries). */
export interface PostOptions {
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

const digestOf = (headers: Headers) => (headers.get('Statement-Digest') ?? '').replace(/^sha256=/, '');
/** final, or provisional for the current month to date (merchant guide, Statements). */
const statusOf = (headers: Headers) =>
  (headers.get('Statement-Status') === 'provisional' ? 'provisional' : 'final') as 'final' | 'provisional';

export class Gateway {
  readonly baseUrl: string;
  readonly #options: ClientOptions;
  constructor(options: ClientOptions) {
    if (!options?.apiKey) throw new TypeError('apiKey is required');
    this.#options = options;
    this.baseUrl = gatewayBaseUrl(options.baseUrl);
  }

  /** Any endpoint: path relative to the base URL, e.g. `/Gateway/v1/Refunds`. */
  async request<T = unknown>(method: 'GET' | 'POST', path: string, options: RequestOptions = {}): Promise<T> {
    const url = new URL(this.baseUrl + path);
    for (const [k, v] of Object.entries(options.query ?? {})) if (v !== undefined && v !== null) url.searchParams.set(k, String(v));
    const headers: Record<string, string> = { 'Svc-API-Key': this.#options.apiKey, Accept: options.accept ?? 'application/json' };
    let payload: string | undefined;
    if (options.body) {
      const body: Record<string, unknown> = { ...options.body };
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
        // Never follow a redirect: it would carry the API key and the signed body to the Location.
        response = await doFetch(url, { method, headers, body: payload, redirect: 'manual' });
      } catch (error) {
        if (attempt >= maxRetries) throw new GatewayConnectionError(url, error, attempt + 1);
        await sleep(backoff);
        continue;
      }
      if ((response.status >= 300 && response.status < 400) || response.type === 'opaqueredirect') {
        await response.body?.cancel();
        throw new GatewayRedirectError(response.status, url, response.headers.get('Location'));
      }
      if (response.ok && options.accept) return { bytes: new Uint8Array(await response.arrayBuffer()), headers: response.headers } as T;
      const text = await response.text();
      const parsed = text ? safeJson(text) : undefined;
      if (response.ok) return parsed as T;
      if (retryable(response.status) && attempt < maxRetries) {
        await sleep(response.status === 429 ? (retryAfterMs(response.headers.get('Retry-After')) ?? backoff) : backoff);
        continue;
      }
      throw new GatewayError(
        response.status,
        (parsed && typeof parsed === 'object' ? parsed : { detail: text }) as Record<string, unknown>,
      );
    }
  }

  /** One operation of the OpenAPI document by its operationId, typed from it (src/types.gen.ts). */
  call<K extends keyof Operations>(
    id: K,
    args: { path?: Operations[K]['pathParams']; query?: Operations[K]['query']; params?: Operations[K]['params'] } & PostOptions = {},
  ): Promise<Operations[K]['response']> {
    const { method, path } = operations[id];
    const pathParams = (args.path ?? {}) as Record<string, string>;
    const url = path.replace(/\{(\w+)\}/g, (_, name: string) => encodeURIComponent(pathParams[name] ?? ''));
    return this.request<Operations[K]['response']>(method, url, {
      query: args.query,
      body: args.params,
      idempotencyKey: args.idempotencyKey,
    });
  }

  /** POST …/PaymentLinks/{id}/deactivate or /reactivate: an empty body, signed. */
  private linkAction<K extends 'deactivatePaymentLink' | 'reactivatePaymentLink'>(id: K, linkId: string, o?: PostOptions) {
    const path = operations[id].path.replace('{id}', encodeURIComponent(linkId));
    return this.request<Operations[K]['response']>('POST', path, { body: {}, idempotencyKey: o?.idempotencyKey });
  }

  /**
   * Every item of a cursor-paged list, page after page (each page one request with `startingAfter` = the last item's
   * `key`), for `for await` loops: stops after the page whose `hasMore` is false.
   */
  private async *autoPage<K extends keyof Operations, Item>(
    id: K,
    query: Operations[K]['query'] | undefined,
    key: (item: Item) => string,
  ): AsyncGenerator<Item> {
    let startingAfter: string | undefined;
    for (;;) {
      const page = (await this.call(id, { query: { ...query, ...(startingAfter ? { startingAfter } : {}) } })) as unknown as {
        items: Item[];
        hasMore: boolean;
      };
      yield* page.items;
      const last = page.items.at(-1);
      if (!page.hasMore || !last) return;
      startingAfter = key(last);
    }
  }

  readonly account = {
    /** Wallet balance for the key's mode (POST /Gateway/v1/Account/query-balance). */
    balance: (currency?: string, o?: PostOptions) => this.call('queryBalance', { ...o, query: { currency } }),
  };
  readonly checkouts = {
    /** A hosted checkout session: send the customer to `checkoutUrl`. */
    create: (params: Operations['initiateCheckout']['params'], o?: PostOptions) => this.call('initiateCheckout', { ...o, params }),
  };
  readonly deposits = {
    /** A mobile-wallet charge. */
    create: (params: Operations['deposit']['params'], o?: PostOptions) => this.call('deposit', { ...o, params }),
  };
  readonly withdrawals = {
    create: (params: Operations['withdraw']['params'], o?: PostOptions) => this.call('withdraw', { ...o, params }),
  };
  readonly paymentLinks = {
    /** A payment link to share (short URL and QR code): a fixed amount, or one the customer enters within minAmount..maxAmount. */
    create: (params: Operations['createPaymentLink']['params'], o?: PostOptions) => this.call('createPaymentLink', { ...o, params }),
    /** One link with its payment count, total paid and remaining uses. */
    retrieve: (id: string) => this.call('getPaymentLink', { path: { id } }),
    /** The links of the key's mode, newest first; page with `startingAfter`. */
    list: (query?: Operations['listPaymentLinks']['query']) => this.call('listPaymentLinks', { query }),
    /** Its page takes no payment until reactivated (a signed POST whose body is the signature alone). */
    deactivate: (id: string, o?: PostOptions) => this.linkAction('deactivatePaymentLink', id, o),
    reactivate: (id: string, o?: PostOptions) => this.linkAction('reactivatePaymentLink', id, o),
    /** Every link across pages: `for await (const link of gw.paymentLinks.all())`. */
    all: (query?: Operations['listPaymentLinks']['query']) =>
      this.autoPage<'listPaymentLinks', Operations['listPaymentLinks']['response']['items'][number]>(
        'listPaymentLinks',
        query,
        (l) => l.id,
      ),
  };
  readonly refunds = {
    create: (params: Operations['createRefund']['params'], o?: PostOptions) => this.call('createRefund', { ...o, params }),
    retrieve: (id: string) => this.call('getRefund', { path: { id } }),
    list: (query: Operations['listRefunds']['query']) => this.call('listRefunds', { query }),
  };
  readonly settlements = {
    create: (params: Operations['createSettlement']['params'], o?: PostOptions) => this.call('createSettlement', { ...o, params }),
    retrieve: (id: string) => this.call('getSettlement', { path: { id } }),
    list: (query?: Operations['listSettlements']['query']) => this.call('listSettlements', { query }),
    schedule: () => this.call('settlementSchedule'),
  };
  readonly transactions = {
    /** The merchant's checkouts, deposits and withdrawals, newest first; page with `startingAfter`. */
    list: (query?: Operations['listTransactions']['query']) => this.call('listTransactions', { query }),
    /** By paymentIntentId, orderRef or transactionReference. */
    retrieve: (reference: string) => this.call('transactionByRefAlias', { path: { reference } }),
    byOrderRef: (orderRef: string) => this.call('transactionByRef', { path: { reference: orderRef } }),
    events: (reference: string) => this.call('transactionEvents', { path: { reference } }),
    /** Every matching transaction, newest first, across pages: `for await (const t of gw.transactions.all({ status: 'Completed' }))`. */
    all: (query?: Operations['listTransactions']['query']) =>
      this.autoPage<'listTransactions', Operations['listTransactions']['response']['items'][number]>(
        'listTransactions',
        query,
        (t) => t.paymentIntentId,
      ),
  };
  readonly balanceTransactions = {
    /**
     * The movements of the wallet (one per journal), newest first: filters `type`, `sourceId`, `from`, `to`, `limit`,
     * cursor `startingAfter` (an item's `id`).
     */
    list: (query?: Operations['listBalanceTransactions']['query']) => this.call('listBalanceTransactions', { query }),
    /** Every matching movement across pages: `for await (const b of gw.balanceTransactions.all({ type: 'payout' }))`. */
    all: (query?: Operations['listBalanceTransactions']['query']) =>
      this.autoPage<'listBalanceTransactions', Operations['listBalanceTransactions']['response']['items'][number]>(
        'listBalanceTransactions',
        query,
        (b) => b.id,
      ),
  };
  readonly statements = {
    /**
     * A month's statement (`period` YYYY-MM, UTC) as CSV, with its digest (`Statement-Digest`) and status
     * (`Statement-Status`: final, or provisional for the month to date); check one kept from earlier with verifyStatementCsv.
     */
    csv: async (period: string, query?: Operations['statementCsv']['query']) => {
      const file = await this.request<Download>('GET', `/Gateway/v1/Statements/${encodeURIComponent(period)}`, {
        query,
        accept: 'text/csv',
      });
      return { csv: new TextDecoder().decode(file.bytes), digest: digestOf(file.headers), status: statusOf(file.headers) };
    },
    /** The same statement as PDF bytes, with its digest. */
    pdf: async (period: string, query?: Operations['statementPdf']['query']) => {
      const file = await this.request<Download>('GET', `/Gateway/v1/Statements/${encodeURIComponent(period)}/pdf`, {
        query,
        accept: 'application/pdf',
      });
      return { pdf: file.bytes, digest: digestOf(file.headers), status: statusOf(file.headers) };
    },
  };
  readonly events = {
    /** The events feed, newest first: filters `type`, `since`, `until`, `deliveryState`, `limit`, cursor `startingAfter`. */
    list: (query?: Operations['listEvents']['query']) => this.call('listEvents', { query }),
    attempts: (eventId: string) => this.call('eventAttempts', { path: { eventId } }),
    resend: (eventId: string, o?: PostOptions) => this.call('resendEvent', { ...o, path: { eventId } }),
  };
}

function safeJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return { detail: text };
  }
}
