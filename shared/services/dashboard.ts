import type { Mode } from '#shared/domain/credentials.ts';
import type { IntentStatus, IntentType } from '#shared/domain/intent.ts';
import { toMinor, fromMinor, type Currency } from '#shared/domain/money.ts';
import { walletBalance } from '#shared/services/balance.ts';
import { createRefund, refundsOfTransaction } from '#shared/services/refunds.ts';
import { listTransactions, lookupTransaction, transactionView, type TransactionListQuery } from '#shared/services/transactions.ts';
import { auditWrite, listAudit, listUsers } from '#shared/store/dashboard.ts';
import { getMerchant } from '#shared/store/merchants.ts';
import { listWallets } from '#shared/store/wallets.ts';
import { transactionEvents } from '#shared/webhooks/events.ts';
import { auditEntry, DashboardRefusal, type Signed } from './dashboard-auth.ts';

/**
 * What the dashboard pages show and do, through the same services as the API (transactions,
 * refunds, balances, webhook events): the dashboard never reads the table around them. Every
 * read is scoped to the signed-in user's merchant and the session's mode, so another merchant's
 * (or the other mode's) object is simply not found.
 */
export type TransactionView = ReturnType<typeof transactionView>;

export async function merchantName(merchantId: string): Promise<string> {
  return (await getMerchant(merchantId))?.name ?? merchantId;
}

/** Home: balances by currency, today's completed volume and count, the latest failures. */
export async function homeSummary(merchantId: string, mode: Mode, now = new Date()) {
  const merchant = await getMerchant(merchantId);
  const wallets = await listWallets(merchantId, mode);
  const currencies = new Set<Currency>(wallets.map((w) => w.currency));
  if (merchant) currencies.add(merchant.defaultCurrency);
  const balances = await Promise.all([...currencies].sort().map((c) => walletBalance(merchantId, mode, c, now)));
  const from = `${now.toISOString().slice(0, 10)}T00:00:00.000Z`;
  const volume = new Map<string, number>();
  let count = 0;
  let capped = false;
  let startingAfter: string | undefined;
  // Today's completed payments, page by page through the list service (at most 2,000 read).
  for (let pages = 0; pages < 20; pages++) {
    const page = await listTransactions(merchantId, mode, { status: 'Completed', from, limit: 100, ...(startingAfter ? { startingAfter } : {}) });
    if (page === 'invalid_cursor') break;
    for (const t of page.items) {
      if (t.intentType === 'withdrawal') continue;
      count++;
      volume.set(t.currency, (volume.get(t.currency) ?? 0) + toMinor(t.amount, t.currency as Currency));
    }
    if (!page.hasMore) break;
    startingAfter = page.items.at(-1)!.paymentIntentId;
    capped = pages === 19;
  }
  const failures = await listTransactions(merchantId, mode, { status: 'Failed', limit: 5 });
  return {
    balances,
    today: { count, capped, volume: [...volume].map(([currency, minor]) => ({ currency, amount: fromMinor(minor, currency as Currency) })) },
    failures: failures === 'invalid_cursor' ? [] : failures.items,
  };
}

export interface PaymentFilters {
  status?: IntentStatus;
  intentType?: IntentType;
  from?: string;
  to?: string;
  /** orderRef, paymentIntentId or transactionReference. */
  search?: string;
  startingAfter?: string;
}

const listQuery = (f: PaymentFilters, limit: number): TransactionListQuery => ({
  ...(f.status ? { status: f.status } : {}),
  ...(f.intentType ? { intentType: f.intentType } : {}),
  ...(f.from ? { from: f.from } : {}),
  ...(f.to ? { to: f.to } : {}),
  ...(f.startingAfter ? { startingAfter: f.startingAfter } : {}),
  limit,
});

/** One page of payments; a search is one lookup by any of the three references (filters still apply). */
export async function paymentsPage(merchantId: string, mode: Mode, f: PaymentFilters, limit = 25): Promise<{ items: TransactionView[]; hasMore: boolean }> {
  if (f.search) {
    const t = await lookupTransaction(merchantId, mode, f.search);
    const keep = t && (!f.status || t.status === f.status) && (!f.intentType || t.intentType === f.intentType) && (!f.from || t.createdAt >= f.from) && (!f.to || t.createdAt <= f.to);
    return { items: keep && !f.startingAfter ? [t] : [], hasMore: false };
  }
  const page = await listTransactions(merchantId, mode, listQuery(f, limit));
  if (page === 'invalid_cursor') throw new DashboardRefusal(400, 'That page link is not valid any more. Start from the first page.');
  return page;
}

export const csvColumns = ['paymentIntentId', 'intentType', 'status', 'amount', 'currency', 'fee', 'refundedAmount', 'orderRef', 'transactionReference', 'customerName', 'customerEmail', 'customerPhone', 'createdAt', 'updatedAt', 'reason'] as const;

/** RFC 4180 quoting, and a leading quote for cells a spreadsheet would run as a formula. */
export function csvCell(value: unknown): string {
  let text = value === null || value === undefined ? '' : String(value);
  if (/^[=+\-@\t\r]/.test(text)) text = `'${text}`;
  return /[",\r\n']/.test(text) ? `"${text.replaceAll('"', '""')}"` : text;
}

function csvRow(t: TransactionView): string {
  const c = (t.customerRef ?? {}) as Record<string, unknown>;
  const values: Record<(typeof csvColumns)[number], unknown> = {
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
  return csvColumns.map((k) => csvCell(values[k])).join(',');
}

/**
 * Every payment matching the filters as CSV lines (header first), produced page by page through
 * the list service, so memory holds one page of transactions at a time.
 */
export async function* paymentsCsv(merchantId: string, mode: Mode, f: Omit<PaymentFilters, 'startingAfter'>): AsyncGenerator<string> {
  yield `${csvColumns.join(',')}\r\n`;
  let startingAfter: string | undefined;
  for (;;) {
    const page = await paymentsPage(merchantId, mode, { ...f, ...(startingAfter ? { startingAfter } : {}) }, 100);
    if (page.items.length) yield page.items.map((t) => `${csvRow(t)}\r\n`).join('');
    if (!page.hasMore || !page.items.length) return;
    startingAfter = page.items.at(-1)!.paymentIntentId;
  }
}

/** Payment detail: the transaction, its refunds and its webhook events (with delivery state). */
export async function paymentDetail(merchantId: string, mode: Mode, id: string) {
  const payment = await lookupTransaction(merchantId, mode, id);
  if (!payment) throw new DashboardRefusal(404, 'There is no such payment in this mode.');
  const refundable = payment.intentType !== 'withdrawal';
  const [refunds, events] = await Promise.all([
    refundable ? refundsOfTransaction(merchantId, mode, payment.paymentIntentId, 1, 100) : undefined,
    transactionEvents(merchantId, mode, payment.paymentIntentId),
  ]);
  return { payment, refunds, events: events?.items ?? [] };
}

/** The Refund action: the refunds service, with the audit entry in the refund's own transaction. */
export async function refundFromDashboard(signed: Signed, paymentIntentId: string, input: { amount: string; reason: string }, traceId: string, now = new Date()) {
  const { merchantId } = signed.user;
  const mode = signed.session.mode;
  const merchant = await getMerchant(merchantId);
  if (!merchant) throw new DashboardRefusal(404, 'Unknown merchant.');
  if (merchant.status !== 'active') throw new DashboardRefusal(403, 'The merchant account is suspended: no refunds are accepted until it is reactivated.');
  const amountText = input.amount.trim();
  if (amountText !== '' && !/^\d+(\.\d+)?$/.test(amountText)) throw new DashboardRefusal(400, 'Enter the amount as a number, e.g. 250 or 99.50, or leave it empty to refund everything left.', 'amount');
  if (input.reason.length > 500) throw new DashboardRefusal(400, 'The reason can have at most 500 characters.', 'reason');
  return createRefund(
    { merchantId, mode, fee: merchant.fees.refund, traceId },
    { trxnRef: paymentIntentId, amount: amountText === '' ? null : Number(amountText), reason: input.reason.trim() || null },
    // The audit entry is committed in the refund's ONE transaction (the slot the API uses for its Idempotency-Key record).
    (view) => auditWrite(auditEntry(merchantId, signed.actor, 'refund.create', { target: `${paymentIntentId} refund ${view.id} ${view.amount} ${view.currency}`, mode }, now)),
    now,
  );
}

/** Team page: the users and the newest audit entries. */
export async function teamPage(merchantId: string, before?: string) {
  const [users, audit] = await Promise.all([listUsers(merchantId), listAudit(merchantId, 50, before)]);
  return { users: users.map((u) => ({ userId: u.userId, email: u.email, role: u.role, status: u.status, twoFactor: Boolean(u.totpSealed), createdAt: u.createdAt })), audit };
}
