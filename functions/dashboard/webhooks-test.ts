import { developersRoutes } from './routes.ts';
import { dashboardHandler } from '#shared/http/dashboard.ts';
import { sendEndpointTestEvent } from '#shared/services/dashboard-webhook-test.ts';
import { afterWebhookAction } from './webhooks-common.ts';

/** POST /dashboard/developers/webhooks/test: one signed WebhookTest delivery now; its answer is shown. */
export const handler = dashboardHandler(developersRoutes.dashboardWebhookTest, (request) =>
  afterWebhookAction(request, async () => {
    const test = await sendEndpointTestEvent(request.signed!);
    return { test: { ok: test.ok, statusCode: test.statusCode, durationMs: test.durationMs, error: test.error, eventId: test.eventId } };
  }),
);
