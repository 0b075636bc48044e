import type { DashboardRequest } from '#shared/http/dashboard.ts';
import { isRefusal } from '#shared/domain/errors.ts';
import { statusOf } from '#shared/http/presenter.ts';
import { apiKeysOf, mintedMoneyOutKeys } from '#shared/services/dashboard-keys.ts';
import { frameOf } from './common.ts';
import { developersView } from './views.ts';

/**
 * The Developers page (GET, and after a key action): the mode's keys, the admins' notice of recently
 * minted money-out keys, and what the action gave (a new key shown once, or a refusal naming its field).
 */
export async function developersPage(
  request: DashboardRequest,
  status: number,
  o: { issued?: { keyId: string; apiKey: string; secretKey: string; mode?: string }; error?: string; field?: string } = {},
) {
  const { user, session } = request.signed!;
  const [frame, keys, minted] = await Promise.all([
    frameOf(request, 'developers'),
    apiKeysOf(user.merchantId, session.mode),
    user.role === 'admin' ? mintedMoneyOutKeys(user.merchantId) : [],
  ]);
  return { status, html: developersView(frame, keys, { ...o, minted }) };
}

/** A key action's refusal (a wrong code, a scope the role may not use) re-renders the Developers page with it. */
export async function developersRefusal(request: DashboardRequest, error: unknown) {
  if (!isRefusal(error) || error.category === 'not_found' || statusOf(error) >= 500) throw error;
  return developersPage(request, statusOf(error), { error: error.message, ...(error.field ? { field: error.field } : {}) });
}
