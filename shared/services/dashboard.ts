import type { Mode } from '#shared/domain/credentials.ts';
import type { IntentStatus, IntentType } from '#shared/domain/intent.ts';
import { fromMinor, minorUnits, type Currency } from '#shared/domain/money.ts';
import { walletBalance } from '#shared/services/balance.ts';
import { createRefund, refundsOfMerchant, refundsOfTransaction } from '#shared/services/refund-requests.ts';
import {
  customerTransactions,
  listTransactions,
  lookupTransaction,
  transactionsByReferencePrefix,
  transactionView,
  type TransactionListQuery,
} from '#shared/services/transactions.ts';
import { contactOfSearch } from '#shared/store/customer-index.ts';
import { pendingRefundDecisions } from './dashboard-refunds.ts';
import { dailyVolumes } from '#shared/store/daily-volume.ts';
import { auditWrite, getPayoutMaker, listAudit, listUsers } from '#shared/store/dashboard.ts';
import { resolveBankCode } from '#shared/domain/bank-codes.ts';
import { generatedOrderRef } from '#shared/domain/references.ts';
import { requestWithdrawal } from '#shared/services/withdrawal-requests.ts';
import { approveWithdrawal, findWithdrawal, rejectWithdrawal } from '#shared/services/withdrawal-operator.ts';
import { getApiKeyById, getMerchant, listApiKeys } from '#shared/store/merchants.ts';
import type { Approvals } from '#shared/store/dashboard.ts';
import { revokeKey } from '#shared/services/merchants.ts';
import { transact } from '#shared/store/client.ts';
import { listWalletCurrencies, type PlaceHold } from '#shared/store/wallets.ts';
import { eventAttempts, transactionEvents } from '#shared/webhooks/events.ts';
import { auditEntry, auditRefusal, throughKey, type Signed } from './dashboard-auth.ts';
import { commitRequest, withWrites } from '#shared/store/request.ts';
import { approvalPolicy, approvalsOf, approveUnderPolicy, ApproverNotAllowed, describePolicy, mayApprove, mayReject } from './approvals.ts';
import { payoutApprovalPolicies, type PayoutApprovalPolicy } from '#shared/domain/merchant.ts';
import { changeMerchant } from '#shared/store/merchants.ts';
import { userRefusal } from '#shared/domain/errors.ts';

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
async function sessionMerchant(signed: Signed) {
  const merchant = await getMerchant(signed.user.merchantId);
  if (!merchant) throw userRefusal('not_found', 'Unknown merchant.');
  return { merchant, merchantId: merchant.merchantId, mode: signed.session.mode };
}

/** The Refund action: the refunds service, with the audit entry in the refund's own transaction. */
export async function refundFromDashboard(
  signed: Signed,
  paymentIntentId: string,
  input: { amount: string; reason: string },
  traceId: string,
  now = new Date(),
) {
  const { merchant, merchantId, mode } = await sessionMerchant(signed);
  if (merchant.status !== 'active')
    throw userRefusal('forbidden', 'The merchant account is suspended: no refunds are accepted until it is reactivated.');
  const amountText = input.amount.trim();
  if (amountText !== '' && !/^\d+(\.\d+)?$/.test(amountText))
    throw userRefusal('invalid', 'Enter the amount as a number, e.g. 250 or 99.50, or leave it empty to refund everything left.', 'amount');
  if (input.reason.length > 500) throw userRefusal('invalid', 'The reason can have at most 500 characters.', 'reason');
  const refund = { trxnRef: paymentIntentId, amount: amountText === '' ? null : Number(amountText), reason: input.reason.trim() || null };
  // The audit entry is committed in the refund's ONE transaction.
  return commitRequest(
    withWrites(
      () =>
        createRefund(
          { merchantId, mode, fee: merchant.fees.refund, traceId, maker: { userId: signed.user.userId, email: signed.user.email } },
          refund,
          now,
        ),
      ({ response: view }) => [
        auditWrite(
          auditEntry(
            merchantId,
            signed.actor,
            'refund.create',
            { target: `${paymentIntentId} refund ${view.id} ${view.amount} ${view.currency}`, mode },
            now,
          ),
        ),
      ],
    ),
  );
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

/** Developers page: the merchant's API keys of the session's mode, newest first (the keys themselves are never readable again). */
export async function apiKeysOf(merchantId: string, mode: Mode, now = new Date()) {
  const keys = await listApiKeys(merchantId, mode);
  return keys
    .map((k) => ({
      keyId: k.keyId,
      mode: k.mode,
      scopes: k.scopes,
      createdAt: k.createdAt,
      expiresAt: k.expiresAt,
      lastUsedAt: k.lastUsedAt ?? null,
      status:
        k.status === 'revoked'
          ? 'revoked'
          : k.expiresAt && Date.parse(k.expiresAt) <= now.getTime()
            ? 'expired'
            : k.expiresAt
              ? 'expiring'
              : 'active',
    }))
    .sort((a, b) => (a.createdAt < b.createdAt ? 1 : -1));
}

/** Revoke one key of this merchant and mode (another merchant's or mode's key is not found). */
export async function revokeApiKey(signed: Signed, keyId: string, now = new Date()) {
  const { merchantId } = signed.user;
  const mode = signed.session.mode;
  const key = /^key_[A-Za-z0-9_-]{1,64}$/.test(keyId) ? await getApiKeyById(keyId) : undefined;
  if (!key || key.merchantId !== merchantId || key.mode !== mode) throw userRefusal('not_found', 'There is no such API key in this mode.');
  const revoked = await revokeKey(keyId);
  await transact([auditWrite(auditEntry(merchantId, signed.actor, 'apikey.revoke', { target: keyId, mode }, now))]);
  return revoked;
}

/** Payouts page: withdrawals awaiting approval (with the approvals so far when both sides approve), and the latest others. */
export async function payoutsPage(merchantId: string, mode: Mode) {
  const [pending, recent, policy] = await Promise.all([
    listTransactions(merchantId, mode, { intentType: 'withdrawal', status: 'Pending', limit: 50 }),
    listTransactions(merchantId, mode, { intentType: 'withdrawal', limit: 25 }),
    approvalPolicy(merchantId),
  ]);
  const items = (p: typeof pending) => (p === 'invalid_cursor' ? [] : p.items);
  const waiting = items(pending);
  const approvals: Record<string, Approvals> =
    policy === 'both'
      ? Object.fromEntries(await Promise.all(waiting.map(async (t) => [t.paymentIntentId, await approvalsOf('payout', t.paymentIntentId)])))
      : {};
  // Who created each waiting payout: its creator is shown what it waits for, never Approve / Reject (maker-checker).
  const makers: Record<string, string> = Object.fromEntries(
    (
      await Promise.all(
        waiting.map(async (t) => [t.paymentIntentId, (await getPayoutMaker(mode, merchantId, t.orderRef.orderRef))?.userId]),
      )
    ).filter((entry): entry is [string, string] => entry[1] !== undefined),
  );
  return {
    pending: waiting,
    makers,
    recent: items(recent).filter((t) => t.status !== 'Pending'),
    policy,
    policyText: describePolicy(policy),
    approvals,
  };
}

/**
 * A payout (withdrawal) created in the dashboard: the withdrawals service, never auto-processed
 * (it waits for an approver), with its maker recorded in the service's first transaction.
 */
export async function createPayoutFromDashboard(
  signed: Signed,
  input: { amount: string; bankCode: string; accountNumber: string; accountTitle: string; description: string },
  traceId: string,
  now = new Date(),
) {
  const { merchant, merchantId, mode } = await sessionMerchant(signed);
  if (!/^\d+(\.\d+)?$/.test(input.amount.trim()))
    throw userRefusal('invalid', 'Enter the amount as a number, e.g. 5000 or 1250.50.', 'amount');
  const bank = resolveBankCode(input.bankCode);
  if (!bank) throw userRefusal('invalid', 'Choose a bank.', 'bankCode');
  const accountNumber = input.accountNumber.replaceAll(' ', '');
  if (!/^[A-Za-z0-9]{10,24}$/.test(accountNumber))
    throw userRefusal('invalid', 'The account number or IBAN has 10-24 letters and digits.', 'accountNumber');
  const accountTitle = input.accountTitle.trim();
  if (accountTitle.length < 2 || accountTitle.length > 100)
    throw userRefusal('invalid', 'The account title has 2-100 characters.', 'accountTitle');
  const currency = merchant.defaultCurrency;
  const orderRef = generatedOrderRef('DASH');
  const decide = (place: PlaceHold) =>
    requestWithdrawal(
      {
        merchantId,
        mode,
        traceId,
        fee: merchant.fees.withdrawal,
        amountMinor: minorUnits(Number(input.amount.trim()), currency),
        currency,
        description: input.description.trim().slice(0, 255) || 'Payout from the dashboard',
        autoProcessPayout: false,
        metadataJson: null,
        callbackUrl: null,
        orderRef: { orderRef, discount: null, tax: null },
        bank,
        accountNumber,
        accountTitle,
        customer: {},
        allowInsecureWebhooks: false,
        maker: { userId: signed.user.userId, email: signed.user.email },
      },
      place,
    );
  // The maker (written by the service) and the audit entry are recorded in the withdrawal's first transaction.
  const audit = auditEntry(
    merchantId,
    signed.actor,
    'payout.create',
    { target: `${orderRef} ${input.amount.trim()} ${currency}`, mode },
    now,
  );
  return commitRequest(withWrites(decide, () => [auditWrite(audit)]));
}

/**
 * Every refusal of a payout decision, before anything changes: the reason a rejection needs, a Pending payout of this
 * merchant and mode, maker-checker, and the approval setting. The confirmation page runs it too, so a refused
 * decision is refused before the user confirms it.
 */
async function checkPayoutDecision(signed: Signed, paymentIntentId: string, decision: 'approve' | 'reject', reason: string) {
  const { merchantId } = signed.user;
  const mode = signed.session.mode;
  const scope = { merchantId, mode };
  if (decision === 'reject' && !reason.trim())
    throw userRefusal('invalid', 'Give a reason for rejecting: the payout’s creator reads it.', 'reason');
  const payout = await findWithdrawal(paymentIntentId, scope).catch(() => undefined);
  if (!payout || payout.paymentIntentId !== paymentIntentId) throw userRefusal('not_found', 'There is no such payout in this mode.');
  if (payout.status !== 'Pending') throw userRefusal('conflict', `This payout is ${payout.status}; only a Pending payout can be decided.`);
  const maker = await getPayoutMaker(mode, merchantId, payout.orderRef.orderRef);
  if (maker?.userId === signed.user.userId) {
    await auditRefusal(
      merchantId,
      signed.actor,
      `payout.${decision}`,
      paymentIntentId,
      mode,
      `maker-checker: the user created this payout${throughKey(maker)}`,
    );
    throw userRefusal(
      'forbidden',
      `You created this payout${throughKey(maker)}, so someone else must approve or reject it (maker-checker).`,
    );
  }
  // Who may decide: the merchant's setting (the operator, its approvers, or both).
  const policy = await approvalPolicy(merchantId);
  if (!(decision === 'reject' ? mayReject : mayApprove)(policy, 'merchant')) {
    const refusal = new ApproverNotAllowed(policy, 'manual payouts');
    await auditRefusal(merchantId, signed.actor, `payout.${decision}`, paymentIntentId, mode, refusal.detail);
    throw userRefusal('forbidden', refusal.detail);
  }
  return { payout, maker, policy };
}

/** What the user is about to approve or reject, shown to confirm: the payout, who created it, the reason given. */
export async function payoutDecisionPreview(signed: Signed, paymentIntentId: string, decision: 'approve' | 'reject', reason: string) {
  const { payout, maker, policy } = await checkPayoutDecision(signed, paymentIntentId, decision, reason);
  return { payout: transactionView(payout), makerEmail: maker?.email ?? null, policy, reason: reason.trim().slice(0, 255) };
}

/** Approve or reject a Pending payout; maker-checker: never the user who created it (in the dashboard or with a key they minted). */
export async function decidePayout(
  signed: Signed,
  paymentIntentId: string,
  decision: 'approve' | 'reject',
  reason: string,
  now = new Date(),
) {
  const { merchantId } = signed.user;
  const mode = signed.session.mode;
  const scope = { merchantId, mode };
  await checkPayoutDecision(signed, paymentIntentId, decision, reason);
  let waiting = false;
  try {
    if (decision === 'approve') {
      const outcome = await approveUnderPolicy(
        'payout',
        paymentIntentId,
        merchantId,
        { side: 'merchant', userId: signed.user.userId, email: signed.user.email },
        () => approveWithdrawal(paymentIntentId, scope),
        now,
      );
      waiting = outcome.state === 'waiting';
    } else {
      await rejectWithdrawal(paymentIntentId, reason.trim().slice(0, 255) || undefined, scope);
    }
  } catch (error) {
    if (!(error instanceof ApproverNotAllowed)) throw error;
    await auditRefusal(merchantId, signed.actor, `payout.${decision}`, paymentIntentId, mode, error.detail);
    throw userRefusal('forbidden', error.detail);
  }
  const detail = [waiting ? 'approval recorded; waiting for the operator' : '', reason.trim().slice(0, 255)].filter(Boolean).join('; ');
  await transact([
    auditWrite(
      auditEntry(merchantId, signed.actor, `payout.${decision}`, { target: paymentIntentId, mode, ...(detail ? { detail } : {}) }, now),
    ),
  ]);
  return { waiting };
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

/** Refunds page: the merchant's refunds in the session's mode, newest first, 25 per page (cursor: a refund id). */
export async function refundsPage(merchantId: string, mode: Mode, after?: string) {
  if (after !== undefined && !/^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i.test(after))
    throw userRefusal('invalid', 'That page link is not valid.');
  const page = await refundsOfMerchant(merchantId, mode, { limit: 25, ...(after ? { startingAfter: after.toLowerCase() } : {}) });
  if (page === 'invalid_cursor') throw userRefusal('invalid', 'That page link is not valid. Start from the first page.');
  return { ...page, ...(await pendingRefundDecisions(merchantId, page.items)) };
}
