import { sweepWebhooks } from '#shared/webhooks/sweep.ts';

/**
 * Job webhookSweeper (functions/jobs.ts): the webhook safety sweep, every minute
 * (shared/webhooks/sweep.ts). Sends again what the pipeline lost and the parked retries that are due.
 */
export const handler = async (): Promise<void> => {
  await sweepWebhooks(new Date());
};
