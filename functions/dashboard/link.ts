import { linksRoutes } from './routes.ts';
import { dashboardHandler } from '#shared/http/dashboard.ts';
import { linkDetail } from '#shared/services/dashboard-links.ts';
import { frameOf } from './common.ts';
import { linkView } from './links-views.ts';

/** GET /dashboard/links/{id}: one payment link with its QR code, payments, totals and remaining uses. */
export const handler = dashboardHandler(linksRoutes.dashboardLink, async (request) => ({
  status: 200,
  html: linkView(await frameOf(request, 'links'), await linkDetail(request.signed!, request.path.id!), {
    created: request.query.created === '1',
    changed: request.query.changed,
  }),
}));
