import type { Mode } from '#shared/domain/credentials.ts';
import type { IntentStatus, IntentType } from '#shared/domain/intent.ts';
import { fromMinor, type Currency } from '#shared/domain/money.ts';
import { walletBalance } from '#shared/services/balance.ts';
import { refundsOfTransaction } from '#shared/services/refund-requests.ts';
import {
  customerTransactions,
  listTransactions,
  lookupTransaction,
  transactionsByReferencePrefix,
  type transactionView,
  type TransactionListQuery,
} from '#shared/services/transactions.ts';
import { contactOfSearch } from '#shared/store/customer-index.ts';
import { dailyVolumes } from '#shared/store/daily-volume.ts';
import { auditWrite, listAudit, listUsers } from '#shared/store/dashboard.ts';
import { getMerchant } from '#shared/store/merchants.ts';
import { transact } from '#shared/store/client.ts';
import { listWalletCurrencies } from '#shared/store/wallets.ts';
import { eventAttempts, transactionEvents } from '#shared/webhooks/events.ts';
import { auditEntry, type Signed } from './dashboard-auth.ts';
import { approvalPolicy, describePolicy } from './approvals.ts';
import { merchantMaySubmit, payoutApprovalPolicies, type PayoutApprovalPolicy } from '#shared/domain/merchant.ts';
import { changeMerchant } from '#shared/store/merchants.ts';
import { BusinessRuleError, userRefusal } from '#shared/domain/errors.ts';

/**
 * What the dashboard pages show and do, through the same services as the API (transactions,
 * refunds, balances, webhook events): the dashboard never reads the table around them. Every
 * read is scoped to the signed-in user's merchant and the session's mode, so another merchant's
 * (or the other mode's) object is simply not found.
 */
export type TransactionView = ReturnType<typeof transactionView>;

/** What every signed-in page shows of its merchant: the name, and whether it is suspended (one read). */
export async function frameMerchant(merchantId: string): Promise<{ name: string; suspended: boolean }> {
  const merchant = await getMerchant(merchantId);
  return { name: merchant?.name ?? merchantId, suspended: Boolean(merchant) && !merchantMaySubmit(merchant) };
}

/** How many days the Home chart shows (today included). */
export const volumeDays = 30;

/** The `volumeDays` UTC days ending with `now`'s, oldest first (`yyyy-mm-dd`). */
export function lastDays(now: Date, count = volumeDays): string[] {
  const today = Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), now.getUTCDate());
  return Array.from({ length: count }, (_, i) => new Date(today - (count - 1 - i) * 86_400_000).toISOString().slice(0, 10));
}

/**
 * Home: balances by currency; completed payment volume per UTC day over the last 30 days, by
 * currency, and today's, from the daily aggregates (shared/store/daily-volume.ts: exact, one Query
 * per shard, never a read of the transactions); the latest failures.
 */
export async function homeSummary(merchantId: string, mode: Mode, now = new Date()) {
  const merchant = await getMerchant(merchantId);
  // Each balance read as a snapshot of its shards (walletBalance), never summed from a listing.
  const currencies = new Set<Currency>(await listWalletCurrencies(merchantId, mode));
  if (merchant) currencies.add(merchant.defaultCurrency);
  const days = lastDays(now);
  const [balances, volumes, failures] = await Promise.all([
    Promise.all([...currencies].sort().map((c) => walletBalance(merchantId, mode, c, now))),
    dailyVolumes(merchantId, mode, days[0]!, days.at(-1)!),
    listTransactions(merchantId, mode, { status: 'Failed', limit: 5 }),
  ]);
  const chartCurrencies = [...new Set<Currency>([...(merchant ? [merchant.defaultCurrency] : []), ...volumes.map((v) => v.currency)])];
  const volume = chartCurrencies.map((currency) => {
    const byDay = new Map(volumes.filter((v) => v.currency === currency).map((v) => [v.day, v]));
    const perDay = days.map((day) => ({ day, count: byDay.get(day)?.count ?? 0, amountMinor: byDay.get(day)?.amountMinor ?? 0 }));
    const totalMinor = perDay.reduce((sum, d) => sum + d.amountMinor, 0);
    return {
      currency,
      days: perDay.map((d) => ({ day: d.day, count: d.count, amount: fromMinor(d.amountMinor, currency) })),
      count: perDay.reduce((sum, d) => sum + d.count, 0),
      total: fromMinor(totalMinor, currency),
      /** The largest day, for the chart's scale. */
      peak: fromMinor(Math.max(0, ...perDay.map((d) => d.amountMinor)), currency),
    };
  });
  const today = days.at(-1)!;
  return {
    balances,
    today: {
      count: volumes.filter((v) => v.day === today).reduce((sum, v) => sum + v.count, 0),
      volume: volumes.filter((v) => v.day === today).map((v) => ({ currency: v.currency, amount: fromMinor(v.amountMinor, v.currency) })),
    },
    volume,
    failures: failures === 'invalid_cursor' ? [] : failures.items,
  };
}

export interface PaymentFilters {
  status?: IntentStatus;
  intentType?: IntentType;
  from?: string;
  to?: string;
  /** orderRef, paymentIntentId, transactionReference, or the customer's e-mail address or phone number. */
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

/**
 * One page of payments. A search is the exact reference (any of the three), the payments whose
 * orderRef, transaction reference or payment id begins with the text (reference index, at most one
 * page: `moreReferences` says to type more), and, when the text looks like an e-mail address or a
 * phone number, the customer's payments (customer index, paged like the list); the filters apply
 * to all of them.
 */
export async function paymentsPage(
  merchantId: string,
  mode: Mode,
  f: PaymentFilters,
  limit = 25,
): Promise<{ items: TransactionView[]; hasMore: boolean; moreReferences?: boolean }> {
  if (f.search) {
    const keep = (t: TransactionView) =>
      (!f.status || t.status === f.status) &&
      (!f.intentType || t.intentType === f.intentType) &&
      (!f.from || t.createdAt >= f.from) &&
      (!f.to || t.createdAt <= f.to);
    // The reference hits, on the first page only (the customer's payments are paged behind them).
    const [direct, prefixed] = f.startingAfter
      ? [undefined, { items: [], more: false }]
      : await Promise.all([
          lookupTransaction(merchantId, mode, f.search),
          transactionsByReferencePrefix(merchantId, mode, f.search, limit),
        ]);
    const hit = [...(direct ? [direct] : []), ...prefixed.items.filter((t) => t.paymentIntentId !== direct?.paymentIntentId)].filter(keep);
    const contact = contactOfSearch(f.search);
    const moreReferences = prefixed.more ? { moreReferences: true } : {};
    if (!contact) return { items: hit, hasMore: false, ...moreReferences };
    const page = await customerTransactions(merchantId, mode, contact, listQuery(f, limit));
    if (page === 'invalid_cursor') throw userRefusal('invalid', 'That page link is not valid any more. Start from the first page.');
    return {
      items: [...hit, ...page.items.filter((t) => !hit.some((h) => h.paymentIntentId === t.paymentIntentId))],
      hasMore: page.hasMore,
      ...moreReferences,
    };
  }
  const page = await listTransactions(merchantId, mode, listQuery(f, limit));
  if (page === 'invalid_cursor') throw userRefusal('invalid', 'That page link is not valid any more. Start from the first page.');
  return page;
}

/** Payment detail: the transaction, its refunds and its webhook events (with delivery state and every attempt). */
export async function paymentDetail(merchantId: string, mode: Mode, id: string) {
  const payment = await lookupTransaction(merchantId, mode, id);
  if (!payment) throw userRefusal('not_found', 'There is no such payment in this mode.');
  const refundable = payment.intentType !== 'withdrawal';
  const [refunds, events] = await Promise.all([
    refundable ? refundsOfTransaction(merchantId, mode, payment.paymentIntentId, 1, 100) : undefined,
    transactionEvents(merchantId, mode, payment.paymentIntentId),
  ]);
  const items = events?.items ?? [];
  const attempts = await Promise.all(items.map((e) => eventAttempts(merchantId, mode, e.eventId)));
  return { payment, refunds, events: items.map((e, i) => ({ ...e, attempts: attempts[i]?.items ?? [] })) };
}

/** The signed-in user's merchant and the session's mode; 404 when the merchant is gone. */
export async function sessionMerchant(signed: Signed, moving?: 'payouts' | 'settlements' | 'refunds') {
  const merchant = await getMerchant(signed.user.merchantId);
  if (!merchant) throw userRefusal('not_found', 'Unknown merchant.');
  // A suspended merchant's money stays put: the dashboard accepts no new payout, settlement or refund, as the API's 403 does.
  if (moving && !merchantMaySubmit(merchant))
    throw new BusinessRuleError(
      `The merchant account is suspended: no ${moving} are accepted until it is reactivated.`,
      'merchant_suspended',
    );
  return { merchant, merchantId: merchant.merchantId, mode: signed.session.mode };
}

/** Team page: the users and the newest audit entries. */
export async function teamPage(merchantId: string, before?: string) {
  const [users, audit] = await Promise.all([listUsers(merchantId), listAudit(merchantId, 50, before)]);
  return {
    users: users.map((u) => ({
      userId: u.userId,
      email: u.email,
      role: u.role,
      status: u.status,
      twoFactor: Boolean(u.totpSealed),
      createdAt: u.createdAt,
    })),
    audit,
  };
}

/** Settings page: who approves manual payouts and settlements. */
export async function settingsOf(merchantId: string) {
  const policy = await approvalPolicy(merchantId);
  return { policy, policyText: describePolicy(policy) };
}

/** Save who approves manual payouts and settlements (admins; audited). */
export async function savePayoutApprovals(signed: Signed, value: string, now = new Date()) {
  if (!(payoutApprovalPolicies as readonly string[]).includes(value))
    throw userRefusal('invalid', 'Choose who approves manual payouts and settlements.', 'payoutApprovals');
  const { merchantId } = signed.user;
  const policy = value as PayoutApprovalPolicy;
  const before = await changeMerchant(
    merchantId,
    (m) => ({ patch: { payoutApprovals: policy }, result: m.payoutApprovals ?? 'either' }),
    now,
  );
  await transact([
    auditWrite(
      auditEntry(merchantId, signed.actor, 'settings.payout-approvals', { target: merchantId, detail: `${before} → ${policy}` }, now),
    ),
  ]);
  return policy;
}
