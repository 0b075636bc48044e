/** A date without a time means the start of that day (UTC) as a lower bound and its end as an upper one. */
export const dateBound = (s: string | undefined, end: boolean) => {
  if (s === undefined) return undefined;
  if (s.length !== 10) return new Date(s).toISOString();
  return end ? `${s}T23:59:59.999Z` : `${s}T00:00:00.000Z`;
};
