/**
 * The one error type of the domain and the services, free of HTTP, for the API and the dashboard alike.
 * Its category says what kind of refusal it is; one presenter (shared/http/presenter.ts) turns it into
 * the answer the kind of route gives (problem details, a hosted or dashboard page):
 * invalid → 400, unauthenticated → 401 (a third party's signature that does not verify),
 * forbidden → 403, not_found → 404, conflict → 409, gone → 410 (a used or expired link),
 * business_rule → 422 with its stable `code`, rate_limited → 429 with Retry-After,
 * unavailable → 503. Anything else that escapes a service is a bug and answers 500.
 */
import type { ErrorCode } from './error-codes.ts';

export type ErrorCategory =
  | 'invalid'
  | 'unauthenticated'
  | 'forbidden'
  | 'not_found'
  | 'conflict'
  | 'gone'
  | 'business_rule'
  | 'rate_limited'
  | 'unavailable';

export interface DomainErrorOptions {
  /** Stable machine-readable code (problem body `code`; one of ./error-codes.ts); merchants may branch on it. */
  code?: ErrorCode;
  /** Field → messages, for `invalid` (problem body `errors`). */
  errors?: Record<string, string[]>;
  /** For `rate_limited` and `unavailable`: when to try again. */
  retryAfterSeconds?: number;
  /** The form field at fault, for a page that shows the refusal beside it (the dashboard). */
  field?: string;
}

export class DomainError extends Error {
  readonly code: ErrorCode | undefined;
  readonly errors: Record<string, string[]> | undefined;
  readonly retryAfterSeconds: number | undefined;
  readonly field: string | undefined;
  constructor(
    readonly category: ErrorCategory,
    readonly detail: string,
    options: DomainErrorOptions = {},
  ) {
    super(detail);
    this.name = new.target.name;
    this.code = options.code;
    this.errors = options.errors;
    this.retryAfterSeconds = options.retryAfterSeconds;
    this.field = options.field;
  }
}

/** A refusal shown to a dashboard user: `message` is for the person, `field` the form field at fault. */
export const userRefusal = (category: ErrorCategory, message: string, field?: string) =>
  new DomainError(category, message, field ? { field } : {});

/** A DomainError of one of `categories` (of any category when none is named). */
export const isRefusal = (error: unknown, ...categories: ErrorCategory[]): error is DomainError =>
  error instanceof DomainError && (categories.length === 0 || categories.includes(error.category));

/** A request the business rules refuse (422) with a stable `code`. */
export class BusinessRuleError extends DomainError {
  constructor(detail: string, code?: ErrorCode) {
    super('business_rule', detail, code ? { code } : {});
  }
}

/** The object does not exist for this merchant and mode (404; another merchant's objects too). */
export class NotFoundError extends DomainError {
  constructor(detail = 'Not found.') {
    super('not_found', detail);
  }
}

/** A per-merchant quota is used up for its window; the caller may retry after `retryAfterSeconds`. */
export class RateLimited extends DomainError {
  constructor(detail: string, retryAfterSeconds: number) {
    super('rate_limited', detail, { retryAfterSeconds, code: 'rate_limited' });
  }
}

/** A concurrent change won; retrying the same request (same Idempotency-Key) is safe. */
export class ConflictError extends DomainError {
  constructor(detail: string, code: ErrorCode = 'concurrent_update') {
    super('conflict', detail, { code });
  }
}

/** A refused operator command (ops CLI): its message is shown to the operator as is. */
export class OperatorError extends DomainError {
  constructor(detail: string) {
    super('invalid', detail);
  }
}
