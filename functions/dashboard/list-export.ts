import { exportsRoutes } from './routes.ts';
import { userRefusal } from '#shared/domain/errors.ts';
import { isIntentStatus } from '#shared/domain/intent.ts';
import { SettlementStatus } from '#shared/domain/settlement.ts';
import { dashboardStreamHandler } from '#shared/http/dashboard-stream.ts';
import { exportableLists, exportList, type ExportableList, type ExportFilters } from '#shared/services/dashboard-exports.ts';
import { paymentFilters } from './common.ts';

/**
 * GET /dashboard/exports/{list}: every row of the list matching its filters, as CSV streamed as it is read (the list pages'
 * "Export CSV" links carry their filters): payments (?q=&status=&type=&from=&to=), payouts
 * (?status=), settlements (?status=), refunds, audit (administrators).
 */
export const handler = dashboardStreamHandler(exportsRoutes.dashboardListExport, async (request) => {
  const list = request.path.list ?? '';
  if (!(exportableLists as readonly string[]).includes(list)) throw userRefusal('not_found', 'There is no such list to export.');
  const { after: _after, ...query } = request.query;
  const filters: ExportFilters = {};
  const only = (...allowed: string[]) => {
    if (Object.keys(query).some((k) => !allowed.includes(k))) throw userRefusal('invalid', 'Unknown filter.');
  };
  if (list === 'payments') {
    const { startingAfter: _ignored, ...payments } = paymentFilters(query).filters;
    filters.payments = payments;
  } else if (list === 'payouts') {
    only('status');
    const status = query.status ?? '';
    if (status && !isIntentStatus(status)) throw userRefusal('invalid', 'Unknown status filter.');
    if (status && isIntentStatus(status)) filters.payoutStatus = status;
  } else if (list === 'settlements') {
    only('status');
    if (query.status && !Object.hasOwn(SettlementStatus, query.status)) throw userRefusal('invalid', 'Unknown status filter.');
    if (query.status) filters.settlementStatus = SettlementStatus[query.status as keyof typeof SettlementStatus];
  } else only();
  const describe = new URLSearchParams(query).toString();
  return { status: 200, ...(await exportList(request.signed!, list as ExportableList, filters, describe, request.deadline)) };
});
