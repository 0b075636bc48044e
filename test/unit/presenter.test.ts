import { describe, expect, it, vi } from 'vitest';
import { BusinessRuleError, DomainError, NotFoundError, userRefusal } from '#shared/domain/errors.ts';
import { problems } from '#shared/http/problem.ts';
import { formMessage, PageError, presentPage, presentProblem, statusOf } from '#shared/http/presenter.ts';
import { logger } from '#shared/logger.ts';

/** One presenter (shared/http/presenter.ts): one DomainError, its status by category, its form by the kind of route. */
describe('presenter', () => {
  it('gives every category its status, the same for the API and the dashboard', () => {
    const statuses = { invalid: 400, unauthenticated: 401, forbidden: 403, not_found: 404, conflict: 409, gone: 410 } as const;
    for (const [category, status] of Object.entries(statuses)) {
      const error = userRefusal(category as keyof typeof statuses, 'No.');
      expect(statusOf(error)).toBe(status);
      expect(presentProblem(error, 't').status).toBe(status);
      expect(presentPage('dashboard', error, 't').status).toBe(status);
    }
    expect(presentProblem(new BusinessRuleError('Too much.', 'insufficient_balance'), 't').body('t')).toMatchObject({
      status: 422,
      code: 'insufficient_balance',
      detail: 'Too much.',
    });
  });

  it('dashboard pages: a refusal keeps its sentence; NotFoundError reads as no such object; a bug is a 500 page', () => {
    expect(presentPage('dashboard', userRefusal('not_found', 'There is no such payout.'), 't')).toMatchObject({
      status: 404,
      title: 'Not found',
      message: 'There is no such payout.',
    });
    expect(presentPage('dashboard', new NotFoundError(), 't')).toMatchObject({
      status: 404,
      message: 'There is no such object in this mode.',
    });
    expect(presentPage('dashboard', userRefusal('forbidden', 'Not yours.'), 't')).toMatchObject({ status: 403, title: 'Request refused' });
    expect(presentPage('dashboard', problems.conflict('Busy.'), 't')).toMatchObject({ status: 409, message: 'Busy.' });
    const error = vi.spyOn(logger, 'error').mockImplementation(() => undefined);
    expect(presentPage('dashboard', new Error('boom'), 't')).toMatchObject({ status: 500, title: 'Something went wrong' });
    expect(error).toHaveBeenCalledOnce();
    error.mockRestore();
  });

  it('hosted pages show only their own PageErrors; anything else is a 500 page that says nothing internal', () => {
    const page = new PageError(404, 'Payment not found', 'This payment link is not valid.');
    expect(presentPage('page', page, 't')).toBe(page);
    const error = vi.spyOn(logger, 'error').mockImplementation(() => undefined);
    const shown = presentPage('page', new DomainError('invalid', 'internal detail'), 't');
    expect(shown).toMatchObject({ status: 500 });
    expect(shown.message).not.toContain('internal detail');
    expect(presentProblem(new Error('secret'), 't').body('t')).toMatchObject({ status: 500, code: 'internal_error' });
    error.mockRestore();
  });

  it('a dashboard form shows a refusal of what was entered beside it, and throws anything else on to the page presenter', () => {
    expect(formMessage(userRefusal('invalid', 'Enter the amount as a number.', 'amount'))).toBe('Enter the amount as a number.');
    expect(formMessage(new BusinessRuleError('Insufficient funds.'))).toBe('Insufficient funds.');
    for (const thrown of [
      userRefusal('forbidden', 'Suspended.'),
      new NotFoundError(),
      new DomainError('unavailable', 'Later.'),
      new Error('x'),
    ]) {
      expect(() => formMessage(thrown)).toThrow(thrown);
    }
  });
});
