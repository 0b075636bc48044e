import { DomainError, NotFoundError } from '#shared/domain/errors.ts';
import { logger } from '#shared/logger.ts';
import { TransactionFailed } from '#shared/store/client.ts';
import { HttpProblem, problemFor, problems } from './problem.ts';

/**
 * THE presenter: what an error that reaches a handler's pipeline becomes, by the kind of route.
 * Services throw one type, DomainError, whose category decides the status everywhere (problemFor,
 * ./problem.ts); the kind of route decides only the form of the answer:
 *   api        problem details (RFC 9457) — the pipeline's own HttpProblems pass as they are, a lost
 *              transaction race is 409 `concurrent_update`
 *   page       the hosted checkout: a PageError page (status, heading, one sentence); its handlers turn
 *              refusals into pages themselves (functions/pay/common.ts), so anything else is a 500 page
 *   dashboard  a PageError page too, for any refusal under 500 (the dashboard's forms show a refusal
 *              beside the form instead: formMessage)
 * Anything else is a bug: logged (names and stack only, never a request body) and answered 500 with
 * nothing internal in it. Jobs have no answer to give: an error fails the invocation and the
 * trigger retries it (functions/jobs.ts).
 */
export type RouteKind = 'api' | 'page' | 'dashboard';

/** An error shown as a page: status, heading and one sentence for the person reading it. */
export class PageError extends Error {
  constructor(
    readonly status: number,
    readonly title: string,
    message: string,
  ) {
    super(message);
  }
}

/** The HTTP status of a domain error (its category's). */
export const statusOf = (error: DomainError): number => problemFor(error).status;

function unhandled(kind: RouteKind, error: unknown, traceId: string | undefined): void {
  if (kind === 'api') {
    logger.error('unhandled error', { traceId, error });
    return;
  }
  // Never the request body or event: a hosted page's may carry card data.
  const e = error as Error | undefined;
  logger.error(`unhandled ${kind} error`, { traceId, errorName: e?.name, errorMessage: e?.message, stack: e?.stack });
}

/** An API route's answer to `error`: problem details. */
export function presentProblem(error: unknown, traceId: string): HttpProblem {
  if (error instanceof HttpProblem) return error;
  if (error instanceof DomainError) return problemFor(error);
  if (error instanceof TransactionFailed && error.conflicted) {
    return problems.conflict('A concurrent request changed the same object; retry with the same Idempotency-Key.', 'concurrent_update');
  }
  unhandled('api', error, traceId);
  return problems.internal();
}

/** A hosted or dashboard page's answer to `error`: the page to show. */
export function presentPage(kind: 'page' | 'dashboard', error: unknown, traceId: string | undefined): PageError {
  if (error instanceof PageError) return error;
  if (kind === 'dashboard') {
    if (error instanceof NotFoundError) return new PageError(404, 'Not found', 'There is no such object in this mode.');
    if (error instanceof DomainError && statusOf(error) < 500) {
      return new PageError(statusOf(error), error.category === 'not_found' ? 'Not found' : 'Request refused', error.detail);
    }
    if (error instanceof HttpProblem && error.status < 500) return new PageError(error.status, 'Request refused', error.detail);
  }
  unhandled(kind, error, traceId);
  return new PageError(500, 'Something went wrong', 'We could not process this request. Please try again in a moment.');
}

/**
 * The sentence a dashboard form shows beside itself for a refusal of what was entered (a wrong
 * amount, a rule of the business); any other error is thrown on, to the page presenter.
 */
export function formMessage(error: unknown): string {
  if (error instanceof DomainError && !['not_found', 'forbidden', 'unavailable'].includes(error.category)) return error.detail;
  throw error;
}
