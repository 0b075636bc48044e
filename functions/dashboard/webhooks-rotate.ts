import { developersRoutes } from './routes.ts';
import { dashboardHandler } from '#shared/http/dashboard.ts';
import { rotateEndpointSecret } from '#shared/services/dashboard-developers.ts';
import { afterWebhookAction } from './webhooks-common.ts';
import { userRefusal } from '#shared/domain/errors.ts';

/** POST /dashboard/developers/webhooks/rotate: a new signing secret, in this response only. */
export const handler = dashboardHandler(developersRoutes.dashboardRotateWebhookSecret, (request) =>
  afterWebhookAction(request, async () => {
    const hours = request.form.get('overlapHours') ?? '';
    if (!/^\d{1,3}$/.test(hours)) throw userRefusal('invalid', 'Choose how long the old secret keeps signing.');
    const rotated = await rotateEndpointSecret(request.signed!, Number(hours));
    return { secret: rotated.webhookSecret };
  }),
);
