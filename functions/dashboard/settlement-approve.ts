import { settlementsRoutes } from './routes.ts';
import { dashboardHandler } from '#shared/http/dashboard.ts';
import { path as dashPath } from '#shared/http/dashboard-views.ts';
import { decideSettlement, settlementDecisionPreview } from '#shared/services/dashboard-settlements.ts';
import { frameOf } from './common.ts';
import { settlementDecisionView } from './views.ts';

/**
 * POST /dashboard/settlements/{id}/approve: an approver, never the settlement's requester (maker-checker); the merchant's
 * approval setting applies. Without confirm=1 the page that shows what is approved; with it, the decision.
 */
export const handler = dashboardHandler(settlementsRoutes.dashboardApproveSettlement, async (request) => {
  const id = request.path.id!;
  if (request.form.get('confirm') !== '1') {
    const preview = await settlementDecisionPreview(request.signed!, id, 'approve', '');
    return { status: 200, html: settlementDecisionView(await frameOf(request, 'settlements'), preview, 'approve') };
  }
  const { waiting } = await decideSettlement(request.signed!, id, 'approve', request.form.get('reason') ?? '');
  return { redirect: `${dashPath(`/settlements/${encodeURIComponent(id)}`)}?decided=${waiting ? 'waiting' : 'approve'}` };
});
