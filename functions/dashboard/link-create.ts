import { linksRoutes } from './routes.ts';
import { dashboardHandler } from '#shared/http/dashboard.ts';
import { path as dashPath } from '#shared/http/dashboard-views.ts';
import { formMessage } from '#shared/http/presenter.ts';
import { createLinkFromDashboard, linksPage } from '#shared/services/dashboard-links.ts';
import { frameOf } from './common.ts';
import { linksView } from './links-views.ts';

/** POST /dashboard/links: creates a payment link (the API's service); a refusal re-renders the form with its reason. */
export const handler = dashboardHandler(linksRoutes.dashboardCreateLink, async (request) => {
  const f = request.form;
  const field = (name: string) => f.get(name) ?? '';
  try {
    const link = await createLinkFromDashboard(request.signed!, {
      pricing: field('pricing'),
      amount: field('amount'),
      minAmount: field('minAmount'),
      maxAmount: field('maxAmount'),
      description: field('description'),
      maxQuantity: field('maxQuantity'),
      maxPayments: field('maxPayments'),
      expiresAt: field('expiresAt'),
      returnUrl: field('returnUrl'),
      collect: f.getAll('collect'),
    });
    return { redirect: `${dashPath(`/links/${encodeURIComponent(link.id)}`)}?created=1` };
  } catch (error) {
    const message = formMessage(error);
    return { status: 422, html: linksView(await frameOf(request, 'links'), await linksPage(request.signed!), { error: message }) };
  }
});
