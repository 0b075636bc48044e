import type { Frame } from '#shared/http/dashboard-views.ts';
import type { DashboardRequest } from '#shared/http/dashboard.ts';
import { dateBound } from '#shared/http/date-bound.ts';
import { frameMerchant, type PaymentFilters } from '#shared/services/dashboard.ts';
import { isIntentStatus, isIntentType, type IntentStatus, type IntentType } from '#shared/domain/intent.ts';
import { userRefusal } from '#shared/domain/errors.ts';

/** What the signed-in dashboard handlers share: the page frame and the payments filters. */
export async function frameOf(request: DashboardRequest, current: Frame['current']): Promise<Frame> {
  const signed = request.signed!;
  const merchant = await frameMerchant(signed.user.merchantId);
  return {
    merchantName: merchant.name,
    ...(merchant.suspended ? { suspended: true } : {}),
    userId: signed.user.userId,
    email: signed.user.email,
    role: signed.user.role,
    mode: signed.session.mode,
    csrf: request.csrf,
    current,
  };
}

const day = /^\d{4}-\d{2}-\d{2}$/;
const uuid = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** ?q=&status=&type=&from=&to=&after= → the filters (400 page for anything malformed). */
export function paymentFilters(query: Record<string, string>): { filters: PaymentFilters; echo: Record<string, string> } {
  const known = new Set(['q', 'status', 'type', 'from', 'to', 'after']);
  const unknown = Object.keys(query).filter((k) => !known.has(k));
  if (unknown.length) throw userRefusal('invalid', `Unknown filter: ${unknown.join(', ')}.`);
  const { q = '', status = '', type = '', from = '', to = '', after = '' } = query;
  if (status && !isIntentStatus(status)) throw userRefusal('invalid', 'Unknown status filter.');
  if (type && !isIntentType(type)) throw userRefusal('invalid', 'Unknown type filter.');
  if ((from && (!day.test(from) || Number.isNaN(Date.parse(from)))) || (to && (!day.test(to) || Number.isNaN(Date.parse(to)))))
    throw userRefusal('invalid', 'Dates are YYYY-MM-DD.');
  if (from && to && from > to) throw userRefusal('invalid', '"From" must not be after "To".');
  if (after && !uuid.test(after)) throw userRefusal('invalid', 'That page link is not valid.');
  if (q.length > 255) throw userRefusal('invalid', 'The search text is too long.');
  const filters: PaymentFilters = {
    ...(q.trim() ? { search: q.trim() } : {}),
    ...(status ? { status: status as IntentStatus } : {}),
    ...(type ? { intentType: type as IntentType } : {}),
    ...(from ? { from: dateBound(from, false)! } : {}),
    ...(to ? { to: dateBound(to, true)! } : {}),
    ...(after ? { startingAfter: after.toLowerCase() } : {}),
  };
  return { filters, echo: { q: q.trim(), status, type, from, to, after } };
}
