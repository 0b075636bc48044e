import type { Context } from 'aws-lambda';
import { emitMetric, metricNames, MetricUnit } from '#shared/metrics.ts';
import { dueLagSeconds, processDue } from '#shared/services/due.ts';
import { processDueSettlementsAndRefunds } from '#shared/services/money-sweep.ts';
import { jobHandler } from '#shared/aws/handler-base.ts';
import '#shared/providers/live/boot-wallets.ts';
import '#shared/providers/live/boot-cards.ts';
import '#shared/providers/live/boot-refunds.ts';
import '#shared/providers/live/boot-payouts.ts';
import '#shared/providers/live/boot-settlements.ts';

/**
 * The due sweeper (functions/jobs.ts): poll the due index every 2 s until the timeout is near.
 * Each pass handles due payment intents (expiry, sandbox outcomes, reconciliation) and due
 * settlements, refunds and automatic-settlement runs. At the start of each run it emits
 * DueSweeperLagSeconds: how long the oldest due item has been waiting (0 when none).
 */
const pollMs = 2_000;

export const handler = jobHandler('dueSweeper', async (_event: unknown, context: Context): Promise<void> => {
  const started = new Date();
  emitMetric(metricNames.dueSweeperLag, await dueLagSeconds(started), {}, MetricUnit.Seconds);
  do {
    const now = new Date();
    await Promise.all([processDue(now), processDueSettlementsAndRefunds(now)]);
    await new Promise((resolve) => setTimeout(resolve, pollMs));
  } while (context.getRemainingTimeInMillis() > pollMs + 5_000);
});
