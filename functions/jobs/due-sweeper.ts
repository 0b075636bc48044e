import type { Context } from 'aws-lambda';
import { processDue } from '#shared/services/due.ts';

/** The due sweeper (functions/jobs.ts): poll the due index every 2 s until the timeout is near. */
const pollMs = 2_000;

export const handler = async (_event: unknown, context: Context): Promise<void> => {
  do {
    await processDue(new Date());
    await new Promise((resolve) => setTimeout(resolve, pollMs));
  } while (context.getRemainingTimeInMillis() > pollMs + 5_000);
};
