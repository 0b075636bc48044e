import { linksRoutes } from './routes.ts';
import { dashboardHandler } from '#shared/http/dashboard.ts';
import { linkDetail } from '#shared/services/dashboard-links.ts';
import { frameOf } from './common.ts';
import { linkView } from './links-views.ts';

/**
 * GET /dashboard/links/{id} (?after=<paymentIntentId>): one payment link with its QR code, totals,
 * remaining uses and its payments, 25 per page, newest first.
 */
export const handler = dashboardHandler(linksRoutes.dashboardLink, async (request) => {
  const after = request.query.after || undefined;
  return {
    status: 200,
    html: linkView(await frameOf(request, 'links'), await linkDetail(request.signed!, request.path.id!, after), {
      created: request.query.created === '1',
      changed: request.query.changed,
      after,
    }),
  };
});
