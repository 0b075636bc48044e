import * as z from 'zod/mini';

// In its own module, so the dashboard's filters bundle no zod.
export { dateBound } from './date-bound.ts';

/** Query-string building blocks shared by the list endpoints (settlements, transactions). */
export const wholeNumber = /* @__NO_SIDE_EFFECTS__ */ (min: number, max: number) =>
  z.pipe(
    z.string().check(
      z.refine((s) => /^\d{1,9}$/.test(s) && Number(s) >= min && Number(s) <= max, `must be a whole number from ${min} to ${max}`),
      z.meta({ description: `A whole number from ${min} to ${max}.`, pattern: '^\\d{1,9}$' }),
    ),
    z.transform(Number),
  );
const isoDate = /^\d{4}-\d{2}-\d{2}(?:T\d{2}:\d{2}(?::\d{2}(?:\.\d{1,9})?)?(?:Z|[+-]\d{2}:\d{2}))?$/;
export const isoDateTime = /* @__PURE__ */ (() =>
  z.string().check(
    z.refine(
      (s) => isoDate.test(s) && !Number.isNaN(Date.parse(s)),
      'must be an ISO 8601 date or date-time (e.g. 2025-01-31 or 2025-01-31T12:00:00Z)',
    ),
    z.meta({
      description:
        'An ISO 8601 date or date-time (2025-01-31 or 2025-01-31T12:00:00Z); a date alone is ' +
        'the start of that day (UTC) as a lower bound, its end as an upper one.',
    }),
  ))();
