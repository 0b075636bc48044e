import { linksRoutes } from './routes.ts';
import { userRefusal } from '#shared/domain/errors.ts';
import { dashboardHandler } from '#shared/http/dashboard.ts';
import { linksPage } from '#shared/services/dashboard-links.ts';
import { frameOf } from './common.ts';
import { linksView } from './links-views.ts';

/** GET /dashboard/links (?after=<linkId>): the mode's payment links, newest first, 25 per page, and the create form. */
export const handler = dashboardHandler(linksRoutes.dashboardLinks, async (request) => {
  if (Object.keys(request.query).some((k) => k !== 'after' && k !== 'created'))
    throw userRefusal('invalid', 'That page link is not valid.');
  const after = request.query.after || undefined;
  return { status: 200, html: linksView(await frameOf(request, 'links'), await linksPage(request.signed!, after), { after }) };
});
