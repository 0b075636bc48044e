/**
 * Domain outcomes a request can run into, free of HTTP: the pipeline maps them to problem details
 * (BusinessRuleError → 422, NotFoundError → 404, RateLimited → 429 with Retry-After).
 */
export class BusinessRuleError extends Error {
  constructor(
    readonly detail: string,
    /** Stable machine-readable code, added to the problem body as `code`. */
    readonly code?: string,
  ) {
    super(detail);
  }
}

export class NotFoundError extends Error {}

/** A refused operator command (ops CLI): its message is shown to the operator as is. */
export class OperatorError extends Error {}

/** A per-merchant quota is used up for its window; the caller may retry after `retryAfterSeconds`. */
export class RateLimited extends Error {
  constructor(
    readonly detail: string,
    readonly retryAfterSeconds: number,
  ) {
    super(detail);
  }
}
