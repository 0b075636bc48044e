import type { DashboardRequest, DashboardResult } from '#shared/http/dashboard.ts';
import { webhooksPage } from '#shared/services/dashboard-developers.ts';
import { frameOf } from './common.ts';
import { webhooksView } from './views.ts';
import { isRefusal } from '#shared/domain/errors.ts';

/** The webhooks page after an action: its result (a secret shown once, a test's answer) or the refusal's reason. */
export async function afterWebhookAction(
  request: DashboardRequest,
  action: () => Promise<Parameters<typeof webhooksView>[3]>,
): Promise<DashboardResult> {
  const { user, session } = request.signed!;
  let shown: Parameters<typeof webhooksView>[3];
  let status = 200;
  try {
    shown = await action();
  } catch (error) {
    if (!isRefusal(error, 'invalid')) throw error;
    shown = { error: error.message };
    status = 422;
  }
  return {
    status,
    html: webhooksView(await frameOf(request, 'developers'), await webhooksPage(user.merchantId, session.mode, {}), {}, shown),
  };
}
