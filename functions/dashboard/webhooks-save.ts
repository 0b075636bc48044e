import { developersRoutes } from './routes.ts';
import { dashboardHandler } from '#shared/http/dashboard.ts';
import { saveWebhookEndpoint } from '#shared/services/dashboard-developers.ts';
import { afterWebhookAction } from './webhooks-common.ts';

/** POST /dashboard/developers/webhooks: URL and event types; a new endpoint's secret is shown once. */
export const handler = dashboardHandler(developersRoutes.dashboardSaveWebhook, (request) =>
  afterWebhookAction(request, async () => {
    const saved = await saveWebhookEndpoint(request.signed!, { url: request.form.get('url') ?? '', events: request.form.getAll('events') });
    return saved.webhookSecret
      ? { secret: saved.webhookSecret, message: 'Endpoint saved.' }
      : { message: 'Endpoint saved. Deliveries are signed with your current signing secret; rotate it to get a new one.' };
  }),
);
