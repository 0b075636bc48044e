import { settlementsRoutes } from './routes.ts';
import { dashboardHandler } from '#shared/http/dashboard.ts';
import { path as dashPath } from '#shared/http/dashboard-views.ts';
import { decideSettlement, settlementDecisionPreview } from '#shared/services/dashboard-settlements.ts';
import { frameOf } from './common.ts';
import { settlementDecisionView } from './views.ts';

/**
 * POST /dashboard/settlements/{id}/reject: an approver, never the settlement's requester (maker-checker); a reason is
 * required; the funds are released. Without confirm=1 the page that shows what is rejected and why; with it, the decision.
 */
export const handler = dashboardHandler(settlementsRoutes.dashboardRejectSettlement, async (request) => {
  const id = request.path.id!;
  const reason = request.form.get('reason') ?? '';
  if (request.form.get('confirm') !== '1') {
    const preview = await settlementDecisionPreview(request.signed!, id, 'reject', reason);
    return { status: 200, html: settlementDecisionView(await frameOf(request, 'settlements'), preview, 'reject') };
  }
  await decideSettlement(request.signed!, id, 'reject', reason);
  return { redirect: `${dashPath(`/settlements/${encodeURIComponent(id)}`)}?decided=reject` };
});
