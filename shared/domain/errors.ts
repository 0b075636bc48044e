/**
 * Domain outcomes a request can run into, free of HTTP: the pipeline maps them to problem details
 * (BusinessRuleError → 422, NotFoundError → 404).
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
