import type { ErrorCode } from '#shared/domain/error-codes.ts';
import type { DomainError, ErrorCategory } from '#shared/domain/errors.ts';
/**
 * Problem details (RFC 9457; docs/merchant-guide.md, Errors). Every error a merchant sees is one of these: `type` is
 * the RFC section of the status, `traceId` is added by the pipeline, `errors` (field path →
 * messages) only on 400s, and a stable machine-readable `code` on every one (docs/merchant-guide.md, Errors): the
 * thrower's own, or the status's default below. Nothing internal ever goes into `detail` on a 500.
 * The codes are listed in the OpenAPI document (shared/openapi/), so keep them stable.
 */
const statusInfo: Record<number, { title: string; type: string }> = {
  400: { title: 'Bad Request', type: 'https://www.rfc-editor.org/rfc/rfc9110#section-15.5.1' },
  401: { title: 'Unauthorized', type: 'https://www.rfc-editor.org/rfc/rfc9110#section-15.5.2' },
  403: { title: 'Forbidden', type: 'https://www.rfc-editor.org/rfc/rfc9110#section-15.5.4' },
  404: { title: 'Not Found', type: 'https://www.rfc-editor.org/rfc/rfc9110#section-15.5.5' },
  405: { title: 'Method Not Allowed', type: 'https://www.rfc-editor.org/rfc/rfc9110#section-15.5.6' },
  409: { title: 'Conflict', type: 'https://www.rfc-editor.org/rfc/rfc9110#section-15.5.10' },
  413: { title: 'Content Too Large', type: 'https://www.rfc-editor.org/rfc/rfc9110#section-15.5.14' },
  415: { title: 'Unsupported Media Type', type: 'https://www.rfc-editor.org/rfc/rfc9110#section-15.5.16' },
  422: { title: 'Unprocessable Content', type: 'https://www.rfc-editor.org/rfc/rfc9110#section-15.5.21' },
  429: { title: 'Too Many Requests', type: 'https://www.rfc-editor.org/rfc/rfc6585#section-4' },
  500: { title: 'Internal Server Error', type: 'https://www.rfc-editor.org/rfc/rfc9110#section-15.6.1' },
  503: { title: 'Service Unavailable', type: 'https://www.rfc-editor.org/rfc/rfc9110#section-15.6.4' },
};

/** The `code` of a problem that names none: one per status. */
export const defaultCodes: Record<number, ErrorCode> = {
  400: 'invalid_request',
  401: 'unauthorized',
  403: 'forbidden',
  404: 'not_found',
  405: 'method_not_allowed',
  409: 'conflict',
  413: 'body_too_large',
  415: 'unsupported_media_type',
  422: 'business_rule_violation',
  429: 'rate_limited',
  500: 'internal_error',
  503: 'service_unavailable',
};

export type FieldErrors = Record<string, string[]>;

export interface ProblemBody {
  type: string;
  title: string;
  status: number;
  detail: string;
  code: string;
  traceId?: string;
  errors?: FieldErrors;
  [extension: string]: unknown;
}

export class HttpProblem extends Error {
  constructor(
    readonly status: number,
    readonly detail: string,
    readonly extensions: { errors?: FieldErrors; headers?: Record<string, string>; code?: ErrorCode; [key: string]: unknown } = {},
  ) {
    super(detail);
  }

  body(traceId: string): ProblemBody {
    const info = statusInfo[this.status] ?? statusInfo[500]!;
    const { headers: _headers, ...extensions } = this.extensions;
    const code = typeof extensions.code === 'string' ? extensions.code : (defaultCodes[this.status] ?? defaultCodes[500]!);
    return { type: info.type, title: info.title, status: this.status, detail: this.detail, traceId, ...extensions, code };
  }
}

/** A path that repeats the version prefix, as a client whose base URL already ends in `/Gateway/v1` sends it. */
const doubledVersionPrefix = /\/Gateway\/v\d+\/Gateway\/v\d+(?:\/|$)/i;

export const doubledVersionPrefixDetail =
  'No such endpoint: the path repeats /Gateway/v1 (…/Gateway/v1/Gateway/v1/…). The base URL you configured already ends ' +
  'in /Gateway/v1: set it to the part before /Gateway/v1 (e.g. http://localhost:3000); the SDK and the paths of the ' +
  'reference add /Gateway/v1 themselves.';

/**
 * The `detail` of the 404 for a path no route serves, answered before any Lambda runs: by the local server per request,
 * and by API Gateway (its MISSING_AUTHENTICATION_TOKEN response, and a mock method under each `/Gateway/v{n}/Gateway`,
 * infra/route-stack.ts, since a gateway response cannot look at the path).
 */
export const unknownEndpointDetail = (path: string): string =>
  doubledVersionPrefix.test(path) ? doubledVersionPrefixDetail : 'No such endpoint.';

/** What to check when a body signature is missing or wrong (the problem's `hint`; docs/merchant-guide.md, Errors). */
export const signatureHint =
  'The body signature is MD5 over the body members except `signature` (null and "" dropped, sorted by key, ' +
  'joined as k=v&k=v) followed by &key=<secret key>, using the sk_test_ or sk_live_ secret issued with the Svc-API-Key ' +
  'you sent. Guide: /docs/signing (or let the SDK sign).';

/**
 * The API key and signature checks' problems (shared/http/middlewares.ts), apart from `problems`: an object literal is
 * bundled whole, so the hosted pages, the dashboard and the jobs would carry these (and the signing recipe) too.
 */
export const apiProblems = {
  /** docs/merchant-guide.md, Signing a request body: the body's MD5 `signature` does not match. */
  signatureMismatch: () => new HttpProblem(401, 'signature mismatch', { code: 'signature_mismatch', hint: signatureHint }),
  /** A signed route's body without a `signature` member: "required", with the recipe, not a format complaint. */
  signatureRequired: () =>
    new HttpProblem(400, 'The signature field is required: this endpoint takes a signed body.', {
      code: 'invalid_signature',
      errors: { signature: ['required'] },
      hint: signatureHint,
    }),
  /** Stable `code` so integrations can tell a suspension from a missing scope. */
  merchantSuspended: () =>
    new HttpProblem(
      403,
      'The merchant account is suspended: no payments, payouts, settlements or refunds are accepted until it is reactivated.',
      { code: 'merchant_suspended' },
    ),
};

export const problems = {
  badRequest: (detail: string, errors?: FieldErrors, code?: ErrorCode) =>
    new HttpProblem(400, detail, { ...(errors ? { errors } : {}), ...(code ? { code } : {}) }),
  /** One body for a missing, malformed, unknown, revoked or expired key (docs/merchant-guide.md, Keys and modes). */
  unauthorized: (detail = 'The Svc-API-Key header is missing, or the key is invalid, expired or revoked.', code?: ErrorCode) =>
    new HttpProblem(401, detail, code ? { code } : {}),
  forbidden: (detail: string, code?: ErrorCode) => new HttpProblem(403, detail, code ? { code } : {}),
  conflict: (detail: string, code?: ErrorCode) => new HttpProblem(409, detail, code ? { code } : {}),
  tooLarge: (limit: number) => new HttpProblem(413, `The request body exceeds ${limit} bytes.`),
  unsupportedMediaType: () => new HttpProblem(415, 'POST bodies must be sent with Content-Type: application/json.'),
  unprocessable: (detail: string, extensions: { code?: ErrorCode; [key: string]: unknown } = {}) =>
    new HttpProblem(422, detail, extensions),
  tooManyRequests: (detail: string, retryAfterSeconds: number) =>
    new HttpProblem(429, detail, { headers: { 'Retry-After': String(Math.max(1, Math.ceil(retryAfterSeconds))) } }),
  internal: () => new HttpProblem(500, 'An internal error occurred. Quote the traceId to support.'),
};

const statusOf: Record<ErrorCategory, number> = {
  invalid: 400,
  unauthenticated: 401,
  forbidden: 403,
  not_found: 404,
  conflict: 409,
  gone: 410,
  business_rule: 422,
  rate_limited: 429,
  unavailable: 503,
};

/** THE mapping of domain errors to problem details (docs/merchant-guide.md, Errors). */
export function problemFor(error: DomainError): HttpProblem {
  const headers =
    error.retryAfterSeconds !== undefined ? { 'Retry-After': String(Math.max(1, Math.ceil(error.retryAfterSeconds))) } : undefined;
  return new HttpProblem(statusOf[error.category], error.detail, {
    ...(error.errors ? { errors: error.errors } : {}),
    ...(error.code ? { code: error.code } : {}),
    ...(headers ? { headers } : {}),
  });
}
