import { developersRoutes } from './routes.ts';
import { dashboardHandler } from '#shared/http/dashboard.ts';
import { setEndpointEnabled } from '#shared/services/dashboard-developers.ts';
import { afterWebhookAction } from './webhooks-common.ts';
import { userRefusal } from '#shared/domain/errors.ts';

/** POST /dashboard/developers/webhooks/state: enabled=1 enables the endpoint, enabled=0 disables it. */
export const handler = dashboardHandler(developersRoutes.dashboardWebhookState, (request) =>
  afterWebhookAction(request, async () => {
    const enabled = request.form.get('enabled');
    if (enabled !== '0' && enabled !== '1') throw userRefusal('invalid', 'Choose enable or disable.');
    await setEndpointEnabled(request.signed!, enabled === '1');
    return {
      message:
        enabled === '1'
          ? 'Endpoint enabled. Events recorded as endpoint_disabled meanwhile can be resent from the log.'
          : 'Endpoint disabled: deliveries stop until you enable it.',
    };
  }),
);
