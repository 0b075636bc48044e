import { randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { routeList } from '#functions/routes.ts';
import type { DashboardRole } from '#shared/domain/dashboard-roles.ts';
import type { DashboardSession, DashboardUser } from '#shared/domain/dashboard-session.ts';
import type { Signed } from '#shared/services/dashboard-auth.ts';
import { DomainError } from '#shared/domain/errors.ts';
import { formMessage, statusOf } from '#shared/http/presenter.ts';
import {
  payoutDecisionView,
  payoutsView,
  refundDecisionView,
  refundsView,
  settingsView,
  settlementDecisionView,
} from '#functions/dashboard/views.ts';
import { RefundStatus } from '#shared/domain/refund.ts';
import { decideRefund, pendingRefundDecisions, refundDecisionPreview } from '#shared/services/dashboard-refunds.ts';
import { advanceRefund } from '#shared/services/refunds.ts';
import { getRefund } from '#shared/store/refunds.ts';
import { completedPayment } from '../support/money.ts';
import { approvalPolicy } from '#shared/services/approvals.ts';
import { frameMerchant, savePayoutApprovals, settingsOf } from '#shared/services/dashboard.ts';
import { createPayoutFromDashboard, decidePayout, payoutDecisionPreview, payoutsPage } from '#shared/services/dashboard-payouts.ts';
import { refundFromDashboard, refundsPage } from '#shared/services/dashboard-refunds.ts';
import {
  decideSettlement,
  requestSettlementFromDashboard,
  settlementDecisionPreview,
  settlementDetail,
  settlementPreview,
} from '#shared/services/dashboard-settlements.ts';
import { creditTestWallet, setStatus } from '#shared/services/merchants.ts';
import { settlementFor } from '#shared/services/settlement-requests.ts';
import { lookupTransaction } from '#shared/services/transactions.ts';
import { getApprovals, listAudit, refundMakerWrite } from '#shared/store/dashboard.ts';
import { addDbMiddleware, transact } from '#shared/store/client.ts';
import { getMerchant } from '#shared/store/merchants.ts';
import { getWallet } from '#shared/store/wallets.ts';
import { call, newMerchant, useGateway, type TestMerchant } from '../support/gateway.ts';
import { useOps } from '../support/ops.ts';

/**
 * Who approves manual payouts and settlements (the merchant setting `payoutApprovals`): each
 * setting decides whether a dashboard approver, the operator (ops CLI) or both must approve;
 * maker-checker for settlements requested in the dashboard. Services as the dashboard calls them,
 * the ops CLI as the operator runs it, DynamoDB Local.
 */
describe('payout and settlement approvals by setting', () => {
  const gw = useGateway(routeList);
  const ops = useOps();

  /** A signed-in dashboard user of `role` (what the dashboard pipeline hands the services). */
  const signedAs = (m: TestMerchant, role: DashboardRole): Signed => {
    const userId = randomUUID();
    const email = `${role}-${userId.slice(0, 6)}@shop.test`;
    const now = new Date().toISOString();
    return {
      user: { userId, merchantId: m.merchantId, email, role, status: 'active' } as DashboardUser,
      session: { userId, merchantId: m.merchantId, mode: 'test', stage: 'full', createdAt: now, lastSeenAt: now } as DashboardSession,
      actor: { actorId: userId, actorEmail: email, ip: '127.0.0.1' },
    };
  };
  /** The page frame a dashboard view gets for this user (views rendered directly). */
  const frameOf = (s: Signed) =>
    ({
      merchantName: 'M',
      userId: s.user.userId,
      email: s.user.email,
      role: s.user.role,
      mode: 'test',
      csrf: 'x',
      current: 'payouts',
    }) as const;
  const funded = async () => {
    const m = await newMerchant();
    await creditTestWallet(m.merchantId, 'test', 10_000_00, 'PKR');
    return m;
  };
  /** A manual payout through the API (autoProcessPayout false: it waits Pending for approval). */
  const manualPayout = async (m: TestMerchant) => {
    const r = await call(gw.baseUrl, 'POST', '/Gateway/v1/Payment/withdraw', {
      key: m.test.apiKey,
      secret: m.test.secretKey,
      body: {
        amount: 300,
        currency: 'PKR',
        description: 'Payout',
        autoProcessPayout: false,
        customerRef: { bankAccountNumber: 'PK36SCBL0000001123450000', bankCode: 'MEEZAN', accountTitle: 'Ayesha Khan' },
        orderRef: { orderRef: `WD${randomUUID().replaceAll('-', '').slice(0, 16)}` },
      },
    });
    expect(r.status, r.text).toBe(200);
    return r.json.paymentIntentId as string;
  };
  const status = async (m: TestMerchant, id: string) => (await lookupTransaction(m.merchantId, 'test', id))?.status;
  const refused = async (p: Promise<unknown>, status: number, text: RegExp) => {
    const error = await p.then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(error).toBeInstanceOf(DomainError);
    expect(statusOf(error as DomainError)).toBe(status);
    expect((error as DomainError).message).toMatch(text);
  };
  const setting = async (m: TestMerchant, value: string) => savePayoutApprovals(signedAs(m, 'admin'), value);

  it('the setting: admins save merchant, operator or both (audited); anything else is refused and changes nothing', async () => {
    const m = await newMerchant();
    expect((await getMerchant(m.merchantId))?.payoutApprovals).toBeUndefined();
    await refused(setting(m, 'anyone'), 400, /Choose who approves/);
    await refused(setting(m, ''), 400, /Choose who approves/);
    expect((await getMerchant(m.merchantId))?.payoutApprovals).toBeUndefined();
    for (const value of ['merchant', 'operator', 'both'] as const) {
      await setting(m, value);
      expect((await getMerchant(m.merchantId, true))?.payoutApprovals).toBe(value);
    }
    const audit = (await listAudit(m.merchantId, 50)).items.map((a) => `${a.action} ${a.detail}`);
    expect(audit).toEqual(
      expect.arrayContaining([
        'settings.payout-approvals either → merchant',
        'settings.payout-approvals merchant → operator',
        'settings.payout-approvals operator → both',
      ]),
    );
    await setting(m, 'either');
    expect(await approvalPolicy(m.merchantId)).toBe('either');
  });

  it('the settings page always shows the current rule as one of its options, selected', async () => {
    const m = await newMerchant();
    const frame = {
      merchantName: 'M',
      userId: 'u1',
      email: 'admin@shop.test',
      role: 'admin',
      mode: 'test',
      csrf: 'x',
      current: 'settings',
    } as const;
    for (const value of [undefined, 'merchant', 'operator', 'both', 'either'] as const) {
      if (value) await setting(m, value);
      const page = String(settingsView(frame, await settingsOf(m.merchantId)));
      const checked = [...page.matchAll(/<input type="radio" name="payoutApprovals" value="(\w+)" checked>/g)].map((x) => x[1]);
      expect(checked, String(value)).toEqual([value ?? 'either']);
    }
  });

  it("a payout's creator is shown what it waits for, never Approve / Reject; a rejection needs a reason", async () => {
    const m = await funded();
    const [maker, checker] = [signedAs(m, 'admin'), signedAs(m, 'approver')];
    await createPayoutFromDashboard(
      maker,
      {
        amount: '400',
        bankCode: 'MEEZAN',
        accountNumber: 'PK36SCBL0000001123450000',
        accountTitle: 'Ayesha Khan',
        description: 'Supplier',
      },
      randomUUID(),
    );
    const page = await payoutsPage(m.merchantId, 'test');
    const id = page.pending[0]!.paymentIntentId;
    const forMaker = String(payoutsView(frameOf(maker), page));
    expect(forMaker).toContain('You created this payout: it waits for another approver or the operator.');
    expect(forMaker).not.toContain(`/payouts/${id}/approve`);
    const forChecker = String(payoutsView(frameOf(checker), page));
    expect(forChecker).toContain(`/payouts/${id}/approve`);
    expect(forChecker).toMatch(/name="reason" maxlength="255" autocomplete="off" required>/);
    // The destination: the bank and the account's last four, never more of the number.
    expect(forChecker).toContain('<span class="vh">account ending </span><span aria-hidden="true">•••• </span>0000</span>');
    expect(forChecker).not.toMatch(/PK36|1123450000|\*{4}/);
    await refused(decidePayout(checker, id, 'reject', '   '), 400, /Give a reason for rejecting/);
    expect(await status(m, id)).toBe('Pending');
    await decidePayout(checker, id, 'reject', 'Account title does not match');
    expect(await status(m, id)).toBe('Cancelled');
  });

  it('a suspended merchant: the dashboard takes no payout, settlement or refund, nothing held; back if reactivated', async () => {
    const m = await funded();
    const paid = await completedPayment(m.merchantId, 'test', 500_00);
    const admin = signedAs(m, 'admin');
    const payout = {
      amount: '400',
      bankCode: 'MEEZAN',
      accountNumber: 'PK36SCBL0000001123450000',
      accountTitle: 'Ayesha Khan',
      description: 'x',
    };
    const settlement = {
      amount: '500',
      method: 'bank',
      bankName: 'HBL',
      iban: 'PK36SCBL0000001123456702',
      accountTitle: 'Acme',
      usdtAddress: '',
    };
    const before = await getWallet(m.merchantId, 'test', 'PKR');
    await setStatus(m.merchantId, 'suspended');
    // Refused as the API refuses them (422 merchant_suspended), on the form itself: the page re-renders with the reason.
    await refused(createPayoutFromDashboard(admin, payout, randomUUID()), 422, /suspended: no payouts are accepted/);
    await refused(settlementPreview(admin, settlement), 422, /suspended: no settlements are accepted/);
    await refused(requestSettlementFromDashboard(admin, settlement, randomUUID()), 422, /suspended: no settlements are accepted/);
    await refused(refundFromDashboard(admin, paid.paymentIntentId, { amount: '100', reason: '' }, randomUUID()), 422, /no refunds/);
    const error = await createPayoutFromDashboard(admin, payout, randomUUID()).catch((e: unknown) => e);
    expect((error as DomainError).code).toBe('merchant_suspended');
    expect(formMessage(error)).toMatch(/^The merchant account is suspended: no payouts/);
    // Every page says so above its content, while suspended only.
    const page = await payoutsPage(m.merchantId, 'test');
    const frame = { ...frameOf(admin), ...((await frameMerchant(m.merchantId)).suspended ? { suspended: true } : {}) };
    expect(String(payoutsView(frame, page))).toContain('This account is suspended.');
    // Nothing held, nothing created.
    expect(await getWallet(m.merchantId, 'test', 'PKR')).toMatchObject({ available: before?.available, held: before?.held ?? 0 });
    expect((await payoutsPage(m.merchantId, 'test')).pending).toEqual([]);
    await setStatus(m.merchantId, 'active');
    expect((await frameMerchant(m.merchantId)).suspended).toBe(false);
    expect(String(payoutsView(frameOf(admin), page))).not.toContain('This account is suspended.');
    await createPayoutFromDashboard(admin, payout, randomUUID());
    expect((await payoutsPage(m.merchantId, 'test')).pending).toHaveLength(1);
  });

  it("the payout form and the operator take the receiver's CNIC (live JazzCash wallets need it); a malformed one is refused", async () => {
    const m = await funded();
    const maker = signedAs(m, 'admin');
    expect(String(payoutsView(frameOf(maker), await payoutsPage(m.merchantId, 'test')))).toMatch(/name="receiverCnic"/);
    const form = {
      amount: '400',
      bankCode: 'JAZZCASH',
      accountNumber: '03001230000',
      accountTitle: 'Ayesha Khan',
      description: 'Wallet payout',
    };
    await refused(createPayoutFromDashboard(maker, { ...form, receiverCnic: '35202-123' }, randomUUID()), 400, /CNIC has 13 digits/);
    const created = await createPayoutFromDashboard(maker, { ...form, receiverCnic: '35202-1234567-1' }, randomUUID());
    expect((await lookupTransaction(m.merchantId, 'test', created.paymentIntentId))?.customerRef).toMatchObject({ cnic: '3520212345671' });
    const id = await manualPayout(m);
    const malformed = await ops('withdrawal', 'approve', id, '--receiver-cnic', '12345', '--json');
    expect(malformed.stdout + malformed.stderr).toMatch(/13 digits/);
    expect(await status(m, id)).toBe('Pending');
    const approved = await ops('withdrawal', 'approve', id, '--receiver-cnic', '35202-1234567-1', '--json');
    expect(approved.json, approved.stderr).toMatchObject({ paymentIntentId: id, status: 'Processing' });
  });

  it('unset (either): a dashboard approver or the operator approves, whichever comes first', async () => {
    const m = await funded();
    const [a, b] = [await manualPayout(m), await manualPayout(m)];
    expect(await decidePayout(signedAs(m, 'approver'), a, 'approve', '')).toEqual({ waiting: false });
    expect(await status(m, a)).toBe('Processing');
    const byOperator = await ops('withdrawal', 'approve', b, '--json');
    expect(byOperator.json, byOperator.stderr).toMatchObject({ paymentIntentId: b, status: 'Processing' });
  });

  it("merchant: only the merchant's approvers approve; the operator's approval is refused, its rejection still works", async () => {
    const m = await funded();
    await setting(m, 'merchant');
    const [a, b] = [await manualPayout(m), await manualPayout(m)];
    const byOperator = await ops('withdrawal', 'approve', a, '--json');
    expect(byOperator.stdout + byOperator.stderr).toMatch(/approved by the merchant's approvers/);
    expect(await status(m, a)).toBe('Pending');
    await decidePayout(signedAs(m, 'approver'), a, 'approve', '');
    expect(await status(m, a)).toBe('Processing');
    const rejected = await ops('withdrawal', 'reject', b, '--reason', 'Suspicious', '--json');
    expect(rejected.json, rejected.stderr).toMatchObject({ status: 'Cancelled' });
  });

  it("operator: the merchant's approvers can neither approve nor reject (403, audited); the operator approves", async () => {
    const m = await funded();
    await setting(m, 'operator');
    const a = await manualPayout(m);
    const approver = signedAs(m, 'approver');
    await refused(decidePayout(approver, a, 'approve', ''), 403, /approved by the operator/);
    await refused(decidePayout(approver, a, 'reject', 'no'), 403, /approved by the operator/);
    expect(await status(m, a)).toBe('Pending');
    const audit = await listAudit(m.merchantId, 50);
    expect(audit.items.filter((e) => e.outcome === 'refused').map((e) => e.action)).toEqual(
      expect.arrayContaining(['payout.approve', 'payout.reject']),
    );
    const byOperator = await ops('withdrawal', 'approve', a, '--json');
    expect(byOperator.json, byOperator.stderr).toMatchObject({ status: 'Processing' });
  });

  it('both: neither approval alone submits the payout; the second one does, in either order', async () => {
    const m = await funded();
    await setting(m, 'both');
    const [a, b] = [await manualPayout(m), await manualPayout(m)];
    // Merchant first: recorded, still Pending (a second approver changes nothing); then the operator's approval submits it.
    expect(await decidePayout(signedAs(m, 'approver'), a, 'approve', '')).toEqual({ waiting: true });
    expect(await decidePayout(signedAs(m, 'admin'), a, 'approve', '')).toEqual({ waiting: true });
    expect(await status(m, a)).toBe('Pending');
    expect(await getApprovals('payout', a)).toEqual({ merchant: expect.objectContaining({ email: expect.stringMatching(/^approver-/) }) });
    const second = await ops('withdrawal', 'approve', a, '--json');
    expect(second.json, second.stderr).toMatchObject({ status: 'Processing' });
    // Operator first: recorded and waiting for the merchant; then the approver's approval submits it.
    const first = await ops('withdrawal', 'approve', b, '--json');
    expect(first.json, first.stderr).toMatchObject({
      state: 'waiting',
      waitingFor: 'merchant',
      approvals: { operator: { at: expect.any(String) } },
    });
    expect(await status(m, b)).toBe('Pending');
    expect(await decidePayout(signedAs(m, 'approver'), b, 'approve', '')).toEqual({ waiting: false });
    expect(await status(m, b)).toBe('Processing');
  });

  it('settlements: maker-checker in the dashboard, and the same setting (operator refuses the approver; both waits)', async () => {
    const m = await funded();
    const form = {
      amount: '500',
      method: 'bank',
      bankName: 'HBL',
      iban: 'PK36SCBL0000001123456702',
      accountTitle: 'Acme Ltd',
      usdtAddress: '',
    };
    const finance = signedAs(m, 'finance');
    const approver = signedAs(m, 'approver');
    const s1 = await requestSettlementFromDashboard(finance, form, 'trace-1');
    expect((await settlementDetail(m.merchantId, 'test', s1.id)).maker).toMatchObject({ email: finance.user.email });
    // The requester may never decide it, even as an admin-like role holding the permission.
    await refused(decideSettlement({ ...finance, user: { ...finance.user, role: 'admin' } }, s1.id, 'approve', ''), 403, /maker-checker/);
    await expect(decideSettlement(approver, randomUUID(), 'approve', '')).rejects.toThrow(/No settlement/); // a 404 page
    expect(await decideSettlement(approver, s1.id, 'approve', '')).toEqual({ waiting: false });
    expect((await settlementFor(m.merchantId, 'test', s1.id)).status).toBeGreaterThanOrEqual(1);
    await refused(decideSettlement(approver, s1.id, 'reject', ''), 409, /Only a Pending settlement/);

    const s2 = await requestSettlementFromDashboard(finance, form, 'trace-2');
    await decideSettlement(approver, s2.id, 'reject', 'Wrong account');
    expect(await settlementFor(m.merchantId, 'test', s2.id)).toMatchObject({
      status: 5,
      failureReason: `Rejected by ${approver.user.email}: Wrong account`,
    });

    await setting(m, 'operator');
    const s3 = await requestSettlementFromDashboard(finance, form, 'trace-3');
    await refused(decideSettlement(approver, s3.id, 'approve', ''), 403, /approved by the operator/);
    expect((await settlementFor(m.merchantId, 'test', s3.id)).status).toBe(0);

    await setting(m, 'both');
    expect(await decideSettlement(approver, s3.id, 'approve', '')).toEqual({ waiting: true });
    expect((await settlementFor(m.merchantId, 'test', s3.id)).status).toBe(0);
    const byOperator = await ops('settlement', 'approve', s3.id, '--json');
    expect(byOperator.json, byOperator.stderr).toMatchObject({ id: s3.id });
    expect((await settlementFor(m.merchantId, 'test', s3.id)).status).toBeGreaterThanOrEqual(1);

    await setting(m, 'merchant');
    const s4 = await requestSettlementFromDashboard(finance, form, 'trace-4');
    const refusedOperator = await ops('settlement', 'approve', s4.id, '--json');
    expect(refusedOperator.stdout + refusedOperator.stderr).toMatch(/approved by the merchant's approvers/);
    expect((await settlementFor(m.merchantId, 'test', s4.id)).status).toBe(0);
  });

  it('Approve and Reject ask to confirm: the page shows what is decided, refuses as the decision would, changes nothing', async () => {
    const m = await funded();
    const a = await manualPayout(m);
    const approver = signedAs(m, 'approver');
    const approve = String(payoutDecisionView(frameOf(approver), await payoutDecisionPreview(approver, a, 'approve', ''), 'approve'));
    expect(approve).toContain('Approve this payout?');
    expect(approve).toContain('PKR 300.00');
    expect(approve).toContain('name="confirm" value="1"');
    expect(approve).toContain(`action="/dashboard/payouts/${a}/approve"`);
    const reject = String(
      payoutDecisionView(frameOf(approver), await payoutDecisionPreview(approver, a, 'reject', ' Wrong <b>title</b> '), 'reject'),
    );
    expect(reject).toContain('<dd id="decision-reason">Wrong &lt;b&gt;title&lt;/b&gt;</dd>');
    expect(reject).toContain('name="reason" value="Wrong &lt;b&gt;title&lt;/b&gt;"');
    expect(reject).toContain('<button type="submit" class="secondary">Reject payout</button>');
    await refused(payoutDecisionPreview(approver, a, 'reject', '  '), 400, /Give a reason/);
    await setting(m, 'operator');
    await refused(payoutDecisionPreview(approver, a, 'approve', ''), 403, /approved by the operator/);
    expect(await status(m, a)).toBe('Pending');
    expect(await getApprovals('payout', a)).toEqual({});

    await setting(m, 'either');
    const finance = signedAs(m, 'finance');
    const form = {
      amount: '500',
      method: 'bank',
      bankName: 'HBL',
      iban: 'PK36SCBL0000001123456702',
      accountTitle: 'Acme Ltd',
      usdtAddress: '',
    };
    const s1 = await requestSettlementFromDashboard(finance, form, 'trace-c');
    await refused(settlementDecisionPreview(finance, s1.id, 'approve', ''), 403, /maker-checker/);
    await refused(settlementDecisionPreview(approver, s1.id, 'reject', ''), 400, /Give a reason/);
    const page = String(
      settlementDecisionView(frameOf(approver), await settlementDecisionPreview(approver, s1.id, 'reject', 'Wrong account'), 'reject'),
    );
    expect(page).toContain('Reject this settlement?');
    expect(page).toContain(`by ${finance.user.email}`);
    expect((await settlementFor(m.merchantId, 'test', s1.id)).status).toBe(0);
  });
  it('the Refunds page finds the makers of its Pending refunds with one BatchGetItem, not a GetItem each', async () => {
    const m = await newMerchant();
    const refunds = Array.from({ length: 30 }, (_, i) => ({
      id: randomUUID(),
      status: i % 10 === 9 ? RefundStatus.Completed : RefundStatus.Pending,
    }));
    const makers = new Map(refunds.slice(0, 20).map((r) => [r.id, randomUUID()])); // the last ten: requested with a key no one minted
    await transact(
      [...makers].map(([refundId, userId]) =>
        refundMakerWrite({
          refundId,
          userId,
          email: 'maker@shop.test',
          merchantId: m.merchantId,
          mode: 'test',
          createdAt: new Date().toISOString(),
        }),
      ),
    );
    const commands: string[] = [];
    const name = 'countRefundMakerReads';
    const removeMiddleware = addDbMiddleware(name, (stack) =>
      stack.add(
        (next, context) => async (args) => {
          commands.push(String(context.commandName));
          return next(args);
        },
        { step: 'initialize', name },
      ),
    );
    try {
      const decisions = await pendingRefundDecisions(m.merchantId, refunds);
      const pending = refunds.filter((r) => r.status === RefundStatus.Pending);
      expect(decisions.makers).toEqual(Object.fromEntries(pending.map((r) => [r.id, makers.get(r.id) ?? null])));
      expect(commands.filter((c) => c === 'BatchGetItemCommand')).toHaveLength(1);
      expect(commands.filter((c) => c === 'GetItemCommand').length).toBeLessThanOrEqual(1); // the approval setting only
    } finally {
      removeMiddleware();
    }
  });

  it('refunds: under merchant or both the merchant approver decides (maker-checker, reason, confirm page); else the operator', async () => {
    const m = await funded();
    const finance = signedAs(m, 'finance');
    const approver = signedAs(m, 'approver');
    const requested = async () => {
      const paid = await completedPayment(m.merchantId, 'test', 500_00);
      return (await refundFromDashboard(finance, paid.paymentIntentId, { amount: '100', reason: 'Returned' }, 'trace-r')).id;
    };
    const refundStatus = async (id: string) => (await getRefund(id))?.status;
    const onItsWay = [RefundStatus.Approved, RefundStatus.Processing, RefundStatus.Completed];

    // Unset (either): the operator decides refunds (in test mode the sandbox); the merchant's approver may not.
    const r0 = await requested();
    await refused(refundDecisionPreview(approver, r0, 'approve', ''), 403, /refunds are approved by the operator/);
    await refused(decideRefund(approver, r0, 'reject', 'No'), 403, /refunds are approved by the operator/);
    await advanceRefund(r0);
    expect(onItsWay).toContain(await refundStatus(r0));

    await setting(m, 'merchant');
    const r1 = await requested();
    await advanceRefund(r1); // the sandbox leaves it to the merchant's approvers
    expect(await refundStatus(r1)).toBe(RefundStatus.Pending);
    // The requester never decides it, whatever the role; the operator may not approve it either.
    await refused(decideRefund({ ...finance, user: { ...finance.user, role: 'admin' } }, r1, 'approve', ''), 403, /maker-checker/);
    const byOperator = await ops('refund', 'approve', r1, '--json');
    expect(byOperator.stdout + byOperator.stderr).toMatch(/refunds are approved by the merchant's approvers/);
    await refused(refundDecisionPreview(approver, randomUUID(), 'approve', ''), 404, /no such refund/);
    await refused(refundDecisionPreview(signedAs(await funded(), 'approver'), r1, 'approve', ''), 404, /no such refund/);
    const confirm = String(refundDecisionView(frameOf(approver), await refundDecisionPreview(approver, r1, 'approve', ''), 'approve'));
    expect(confirm).toContain('Approve this refund?');
    expect(confirm).toContain(`action="/dashboard/refunds/${r1}/approve"`);
    expect(confirm).toContain('name="confirm" value="1"');
    expect(confirm).toContain(`by ${finance.user.email}`);
    expect(await refundStatus(r1)).toBe(RefundStatus.Pending); // the confirmation page changes nothing
    expect(await decideRefund(approver, r1, 'approve', '')).toEqual({ waiting: false });
    expect(await refundStatus(r1)).toBe(RefundStatus.Approved);
    await refused(decideRefund(approver, r1, 'reject', 'Late'), 409, /Only a Pending refund/);

    const r2 = await requested();
    await refused(refundDecisionPreview(approver, r2, 'reject', '  '), 400, /Give a reason/);
    await decideRefund(approver, r2, 'reject', 'Not returned');
    expect(await getRefund(r2)).toMatchObject({
      status: RefundStatus.Rejected,
      failureReason: `Rejected by ${approver.user.email}: Not returned`,
    });

    // Both: the sandbox records the operator's side (live: ops refund approve), then the approver's decides; in either order.
    await setting(m, 'both');
    const r3 = await requested();
    await advanceRefund(r3);
    expect(await getApprovals('refund', r3)).toMatchObject({ operator: { at: expect.any(String) } });
    expect(await refundStatus(r3)).toBe(RefundStatus.Pending);
    expect(await decideRefund(approver, r3, 'approve', '')).toEqual({ waiting: false });
    expect(await refundStatus(r3)).toBe(RefundStatus.Approved);
    const r4 = await requested();
    expect(await decideRefund(approver, r4, 'approve', '')).toEqual({ waiting: true });
    expect(await refundStatus(r4)).toBe(RefundStatus.Pending);
    const second = await ops('refund', 'approve', r4, '--json');
    expect(second.json, second.stderr).toMatchObject({ id: r4, status: RefundStatus.Approved });

    // The Refunds page: the requester is told what it waits for, an approver gets Approve / Reject, a viewer neither.
    const r5 = await requested();
    const page = await refundsPage(m.merchantId, 'test');
    const asFinance = String(refundsView(frameOf(finance), page, {}));
    expect(asFinance).toContain('You requested this refund: it waits for another approver and the operator.');
    expect(asFinance).not.toContain(`/refunds/${r5}/approve`);
    const asApprover = String(refundsView(frameOf(approver), page, {}));
    expect(asApprover).toContain(`action="/dashboard/refunds/${r5}/approve"`);
    expect(asApprover).toContain(`action="/dashboard/refunds/${r5}/reject"`);
    expect(asApprover).toContain('Refunds are approved by both the merchant');
    expect(String(refundsView(frameOf(signedAs(m, 'viewer')), page, {}))).not.toContain(`/refunds/${r5}/approve`);

    const audit = (await listAudit(m.merchantId, 100)).items.map((a) => `${a.action} ${a.target} ${a.outcome}`);
    expect(audit).toEqual(expect.arrayContaining([`refund.approve ${r1} ok`, `refund.reject ${r2} ok`, `refund.approve ${r1} refused`]));
  });
});
