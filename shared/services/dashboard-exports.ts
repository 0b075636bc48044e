import type { Mode } from '#shared/domain/credentials.ts';
import { userRefusal } from '#shared/domain/errors.ts';
import type { IntentStatus } from '#shared/domain/intent.ts';
import { refundStatusNames } from '#shared/domain/refund.ts';
import { settlementStatusNames, settlementView, type SettlementStatus } from '#shared/domain/settlement.ts';
import { settlementsFrom } from '#shared/store/settlements.ts';
import { transact } from '#shared/store/client.ts';
import { auditWrite, listAudit, type AuditEntry } from '#shared/store/dashboard.ts';
import type { Readable } from 'node:stream';
import { csvStream, cursorPages, exportLimits } from './csv-export.ts';
import { auditEntry, type Signed } from './dashboard-auth.ts';
import { balancePage, type BalanceFilters } from './dashboard-balance.ts';
import { paymentsPage, type PaymentFilters, type TransactionView } from './dashboard.ts';
import { refundsOfMerchant } from './refund-requests.ts';

/**
 * CSV exports of the dashboard's lists (docs/dashboard.md, Exports): every row matching the list's
 * filters, read page by page through the list's own index and streamed as it comes by the one export
 * helper (csv-export.ts csvStream: csv-stringify, formula-safe cells, no cap on rows; a file that must
 * stop early, at the platform's 190 MB or 15 minutes, ends with a line saying so). Each export is
 * audited, with the filters it used, before its first byte.
 */
const pageSize = 100;

type Page<T> = { items: readonly T[]; cursor?: string | number | undefined };
interface ListExport<T> {
  columns: readonly string[];
  row: (item: T) => Record<string, unknown>;
  page: (merchantId: string, mode: Mode, cursor: string | number | undefined) => Promise<Page<T>>;
  /** Refuses filters that cannot be valid before the first byte (a refusal mid-file would be a broken file). */
  check?: (merchantId: string, mode: Mode) => Promise<void>;
}

const paymentColumns = [
  'paymentIntentId',
  'intentType',
  'status',
  'amount',
  'currency',
  'fee',
  'refundedAmount',
  'orderRef',
  'transactionReference',
  'customerName',
  'customerEmail',
  'customerPhone',
  'createdAt',
  'updatedAt',
  'reason',
] as const;

function paymentRow(t: TransactionView): Record<string, unknown> {
  const c = (t.customerRef ?? {}) as Record<string, unknown>;
  return {
    paymentIntentId: t.paymentIntentId,
    intentType: t.intentType,
    status: t.status,
    amount: t.amount,
    currency: t.currency,
    fee: t.fee,
    refundedAmount: t.refundedAmount,
    orderRef: t.orderRef.orderRef,
    transactionReference: t.transactionReference,
    customerName: c.name ?? c.customerName,
    customerEmail: c.email ?? c.customerEmail,
    customerPhone: c.phone ?? c.customerPhone ?? c.mobile,
    createdAt: t.createdAt,
    updatedAt: t.updatedAt,
    reason: t.reason,
  };
}

/** Payments (and, with intentType withdrawal, payouts): the transactions list with the page's filters, by cursor. */
const transactions = (f: Omit<PaymentFilters, 'startingAfter'>): ListExport<TransactionView> => ({
  columns: paymentColumns,
  row: paymentRow,
  page: async (merchantId, mode, cursor) => {
    const p = await paymentsPage(merchantId, mode, { ...f, ...(cursor ? { startingAfter: String(cursor) } : {}) }, pageSize);
    return { items: p.items, cursor: p.hasMore ? p.items.at(-1)?.paymentIntentId : undefined };
  },
});

type RefundRow = Exclude<Awaited<ReturnType<typeof refundsOfMerchant>>, 'invalid_cursor'>['items'][number];
const refunds: ListExport<RefundRow> = {
  columns: ['id', 'paymentIntentId', 'amount', 'currency', 'fee', 'status', 'reason', 'failureReason', 'requestedAt', 'updatedAt'],
  row: (r) => ({ ...r, status: refundStatusNames[r.status] ?? r.status }),
  page: async (merchantId, mode, cursor) => {
    const p = await refundsOfMerchant(merchantId, mode, { limit: pageSize, ...(cursor ? { startingAfter: String(cursor) } : {}) });
    if (p === 'invalid_cursor') return { items: [] };
    return { items: p.items, cursor: p.hasMore ? p.items.at(-1)?.id : undefined };
  },
};

/**
 * The settlements of a merchant and mode, newest first, by cursor (store S3a): the next read with at least one
 * match, or the end (no cursor). Each index entry is read once over a whole walk (the dashboard's export); the
 * cursor is the store's LastEvaluatedKey as JSON, never shown to anyone.
 */
async function settlementsByCursor(merchantId: string, mode: Mode, status: SettlementStatus | undefined, limit: number, cursor?: string) {
  let start = cursor === undefined ? undefined : (JSON.parse(cursor) as Record<string, unknown>);
  for (;;) {
    const read = await settlementsFrom(merchantId, mode, status === undefined ? {} : { status }, limit, start);
    if (read.items.length || !read.next)
      return { items: read.items.map(settlementView), ...(read.next ? { cursor: JSON.stringify(read.next) } : {}) };
    start = read.next;
  }
}

type SettlementRow = Awaited<ReturnType<typeof settlementsByCursor>>['items'][number];
const settlements = (status: SettlementStatus | undefined): ListExport<SettlementRow> => ({
  columns: [
    'id',
    'status',
    'amount',
    'currency',
    'fee',
    'netAmount',
    'payoutCurrency',
    'fxRate',
    'payoutAmount',
    'isAuto',
    'bankName',
    'iban',
    'usdtAddress',
    'requestedAt',
    'failureReason',
  ],
  row: (s) => ({ ...s, status: settlementStatusNames[s.status] ?? s.status }),
  // By the store's cursor (ExclusiveStartKey): each settlement read once, however long the list.
  page: (merchantId, mode, cursor) =>
    settlementsByCursor(merchantId, mode, status, pageSize, cursor === undefined ? undefined : String(cursor)),
});

type BalanceRow = Awaited<ReturnType<typeof balancePage>>['items'][number];
/**
 * The Balance page's list (balance transactions) with its filters and the running balance (availableBalanceAfter:
 * empty where the page has none), by cursor. Its filters are checked by reading one row first (an unknown
 * settlement or payout is refused as on the page).
 */
const balance = (f: Omit<BalanceFilters, 'after'>): ListExport<BalanceRow> => ({
  columns: [
    'id',
    'type',
    'sourceType',
    'sourceId',
    'amount',
    'fee',
    'net',
    'availableChange',
    'pendingChange',
    'currency',
    'availableBalanceAfter',
    'createdAt',
  ],
  row: ({ source, ...b }) => ({ ...b, sourceType: source.type, sourceId: source.id }),
  page: async (merchantId, mode, cursor) => {
    const p = await balancePage(merchantId, mode, { ...f, ...(cursor ? { after: String(cursor) } : {}) }, pageSize);
    return { items: p.items, cursor: p.hasMore ? p.items.at(-1)?.id : undefined };
  },
  check: async (merchantId, mode) => {
    await balancePage(merchantId, mode, f, 1);
  },
});

/** The team's audit log (merchant-wide, both modes), newest first. */
const audit: ListExport<AuditEntry> = {
  columns: ['at', 'actorEmail', 'action', 'target', 'mode', 'outcome', 'detail', 'ip', 'auditId'],
  row: (a) => ({ ...a }),
  page: async (merchantId, _mode, cursor) => {
    const p = await listAudit(merchantId, pageSize, cursor === undefined ? undefined : String(cursor));
    return { items: p.items, cursor: p.next ?? undefined };
  },
};

/** The lists of GET /dashboard/exports/{list}; the Balance page's has its own row (balances:read): /dashboard/balance/export. */
export const exportableLists = ['payments', 'payouts', 'refunds', 'settlements', 'audit'] as const;
export type ExportableList = (typeof exportableLists)[number] | 'balance';

/** The lists' filters, as the dashboard's list pages take them (already checked by the handler). */
export interface ExportFilters {
  payments?: Omit<PaymentFilters, 'startingAfter'>;
  payoutStatus?: IntentStatus;
  settlementStatus?: SettlementStatus;
  balance?: Omit<BalanceFilters, 'after'>;
}

/** A list's export with its row type erased (each list's rows only ever meet its own mapper). */
const erase = <T>(l: ListExport<T>) => l as unknown as ListExport<unknown>;

function listOf(list: ExportableList, f: ExportFilters): ListExport<unknown> {
  switch (list) {
    case 'payments':
      return erase(transactions(f.payments ?? {}));
    case 'payouts':
      return erase(transactions({ intentType: 'withdrawal', ...(f.payoutStatus ? { status: f.payoutStatus } : {}) }));
    case 'refunds':
      return erase(refunds);
    case 'settlements':
      return erase(settlements(f.settlementStatus));
    case 'audit':
      return erase(audit);
    case 'balance':
      return erase(balance(f.balance ?? {}));
  }
}

/**
 * Every row of one of the dashboard's lists as a CSV stream, after its audit entry (the list and the
 * filters it used). `describe` is the filters as the page's query string; `deadline` (epoch ms) when the
 * invocation's time runs out. Nothing is read before the reader asks for it.
 */
export async function exportList(
  signed: Signed,
  list: ExportableList,
  filters: ExportFilters,
  describe: string,
  deadline: number,
  limits = exportLimits,
  now = new Date(),
): Promise<{ stream: Readable; filename: string }> {
  const { merchantId } = signed.user;
  const mode = signed.session.mode;
  if (list === 'audit' && signed.user.role !== 'admin') throw userRefusal('forbidden', 'Only administrators export the audit log.');
  const spec = listOf(list, filters);
  await spec.check?.(merchantId, mode);
  await transact([auditWrite(auditEntry(merchantId, signed.actor, `${list}.export`, { mode, detail: describe || 'all' }, now))]);
  const pages = cursorPages((cursor?: string | number) => spec.page(merchantId, mode, cursor));
  const stream = csvStream({ list, columns: spec.columns, row: spec.row, pages }, deadline, limits);
  return { stream, filename: `${list}-${mode}-${now.toISOString().slice(0, 10)}.csv` };
}
