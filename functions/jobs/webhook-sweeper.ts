import { sweepWebhooks } from '#shared/webhooks/sweep.ts';
import { jobHandler } from '#shared/aws/handler-base.ts';

/**
 * Job webhookSweeper (functions/jobs.ts): the webhook safety sweep, every minute
 * (shared/webhooks/sweep.ts). Sends again what the pipeline lost and the parked retries that are due.
 */
export const handler = jobHandler('webhookSweeper', async (): Promise<void> => {
  await sweepWebhooks(new Date());
});
