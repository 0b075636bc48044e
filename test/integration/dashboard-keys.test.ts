import { randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { routeList } from '#functions/routes.ts';
import { totpCode, totpPeriodSeconds } from '#shared/crypto/totp.ts';
import type { DashboardRole } from '#shared/domain/dashboard-roles.ts';
import { authenticate } from '#shared/services/dashboard-auth.ts';
import { savePayoutApprovals } from '#shared/services/dashboard.ts';
import { creditTestWallet } from '#shared/services/merchants.ts';
import { settlementFor } from '#shared/services/settlement-requests.ts';
import { lookupTransaction } from '#shared/services/transactions.ts';
import { getPayoutMaker, getRefundMaker, getSettlementMaker, listAudit } from '#shared/store/dashboard.ts';
import { getApiKeyById, listApiKeys } from '#shared/store/merchants.ts';
import { getRefund } from '#shared/store/refunds.ts';
import { RefundStatus } from '#shared/domain/refund.ts';
import { completedPayment, dashboardUser } from '../support/dashboard.ts';
import { call, newMerchant, useGateway, type TestMerchant } from '../support/gateway.ts';
import { useOps } from '../support/ops.ts';

/**
 * Issue 24 point 1: dashboard roles and maker-checker hold through API keys. Over HTTP on the local
 * server and DynamoDB Local: a role mints only the scopes it uses in the dashboard; money-out keys
 * only an admin mints, with a fresh authenticator code (step-up), and every admin is told; a key
 * records its minter, who is the maker of what it creates; `payoutApprovals=operator|both` holds
 * automatic API payouts too; keys minted before all this keep working.
 */
describe('API keys under the dashboard roles', { timeout: 180_000 }, () => {
  const gw = useGateway(routeList);
  const ops = useOps();
  const password = 'a long enough passphrase';
  const step = totpPeriodSeconds * 1000;

  const userOf = (m: TestMerchant, role: DashboardRole) => dashboardUser(m, role, password);
  type User = Awaited<ReturnType<typeof userOf>>;

  const get = async (u: User, path: string) => {
    const r = await fetch(`${gw.baseUrl}${path}`, { redirect: 'manual', headers: { Cookie: u.cookie } });
    return { status: r.status, text: await r.text() };
  };
  const csrfOf = async (u: User) => /name="csrf" value="([^"]+)"/.exec((await get(u, '/dashboard')).text)?.[1] ?? '';
  const post = async (u: User, path: string, fields: [string, string][]) => {
    const r = await fetch(`${gw.baseUrl}${path}`, {
      method: 'POST',
      redirect: 'manual',
      headers: { 'Content-Type': 'application/x-www-form-urlencoded', 'Sec-Fetch-Site': 'same-origin', Cookie: u.cookie },
      body: new URLSearchParams([['csrf', await csrfOf(u)], ...fields]).toString(),
    });
    return { status: r.status, text: await r.text(), location: r.headers.get('location') };
  };
  const mint = (u: User, scopes: string[], code = '', mode = 'test') =>
    post(u, '/dashboard/developers/keys', [['mode', mode], ...scopes.map((s): [string, string] => ['scopes', s]), ['code', code]]);
  const issued = (page: string) => {
    const apiKey = /id="new-api-key">([^<]+)</.exec(page)?.[1];
    const secretKey = /id="new-secret-key">([^<]+)</.exec(page)?.[1];
    return apiKey && secretKey ? { apiKey, secretKey } : undefined;
  };
  const signedOf = async (u: User) => (await authenticate(u.cookie.split('=')[1], null))!;
  const codeNow = (u: User, offset = 0) => totpCode(u.secret, Date.now() + offset);
  const audit = async (m: TestMerchant) => (await listAudit(m.merchantId, 200)).items;
  const keyCount = async (m: TestMerchant) => (await listApiKeys(m.merchantId)).length;
  const funded = async () => {
    const m = await newMerchant();
    await creditTestWallet(m.merchantId, 'test', 100_000_00, 'PKR');
    return m;
  };
  const payout = (_m: TestMerchant, key: { apiKey: string; secretKey: string }, amount: number, autoProcessPayout: boolean) =>
    call(gw.baseUrl, 'POST', '/Gateway/v1/Payment/withdraw', {
      key: key.apiKey,
      secret: key.secretKey,
      body: {
        amount,
        currency: 'PKR',
        description: 'Payout',
        autoProcessPayout,
        customerRef: { bankAccountNumber: 'PK36SCBL0000001123450000', bankCode: 'MEEZAN', accountTitle: 'Ayesha Khan' },
        orderRef: { orderRef: `WD${randomUUID().replaceAll('-', '').slice(0, 16)}` },
      },
    });
  const original = (m: TestMerchant) => ({ apiKey: m.test.apiKey, secretKey: m.test.secretKey });

  it('a developer refused the payout form cannot mint a payouts key: 403, nothing created, audited; allowed scopes mint', async () => {
    const m = await funded();
    const admin = await userOf(m, 'admin');
    await savePayoutApprovals(await signedOf(admin), 'both');
    const dev = await userOf(m, 'developer');
    expect((await post(dev, '/dashboard/payouts', [['amount', '400']])).status).toBe(403); // the payout form is refused

    // The attack: a payouts key to pay 400 PKR out automatically. Refused at mint, whatever the code.
    const page = await get(dev, '/dashboard/developers');
    expect(page.text).not.toContain('value="payouts"'); // the form does not offer it
    const before = await keyCount(m);
    for (const scopes of [['payments', 'payouts'], ['settlements'], ['refunds', 'read']]) {
      const refused = await mint(dev, scopes, codeNow(dev));
      expect(refused.status, refused.text).toBe(403);
      expect(refused.text).toMatch(/may not put (payouts|settlements|refunds) on a key: only an admin mints keys that move money out/);
      expect(issued(refused.text)).toBeUndefined();
    }
    expect(await keyCount(m)).toBe(before);
    const refusals = (await audit(m)).filter((e) => e.action === 'apikey.create' && e.outcome === 'refused');
    expect(refusals).toHaveLength(3);
    expect(refusals[0]).toMatchObject({ actorEmail: dev.email, detail: expect.stringContaining('not allowed for the developer role') });
    // Rolling keys that hold money-out scopes mints one too: refused the same way.
    const roll = await post(dev, '/dashboard/developers/keys/roll', [['graceDays', '0']]);
    expect(roll.status, roll.text).toBe(403);
    expect(await keyCount(m)).toBe(before);
    expect((await payout(m, original(m), 400, true)).status).toBe(200); // the old keys still work

    // What the role uses in the dashboard it may still put on a key (no second factor needed).
    const ok = await mint(dev, ['payments', 'read', 'balance', 'webhooks']);
    expect(ok.status, ok.text).toBe(200);
    const key = issued(ok.text)!;
    expect((await call(gw.baseUrl, 'GET', '/Gateway/v1/Transactions', { key: key.apiKey })).status).toBe(200);
    expect((await payout(m, key, 400, true)).status).toBe(403);
  });

  it('money-out keys: admins only, with a fresh authenticator code (missing, wrong, replayed refused); audited; admins told', async () => {
    const m = await funded();
    const [admin, other, dev] = [await userOf(m, 'admin'), await userOf(m, 'admin'), await userOf(m, 'developer')];
    const before = await keyCount(m);
    const missing = await mint(admin, ['payouts', 'read']);
    expect(missing.status).toBe(400);
    expect(missing.text).toContain('Enter a code from your authenticator app');
    expect(missing.text).toMatch(/id="key-code"[^>]*aria-invalid="true"/);
    const wrong = await mint(admin, ['payouts', 'read'], codeNow(admin) === '000000' ? '111111' : '000000');
    expect(wrong.status).toBe(400);
    expect(wrong.text).toContain('That authenticator code is not right');
    expect(await keyCount(m)).toBe(before);

    const code = codeNow(admin, step);
    const ok = await mint(admin, ['payouts', 'settlements', 'read'], code, 'live');
    expect(ok.status, ok.text).toBe(200);
    const keyId = /New live key (key_[A-Za-z0-9_-]+)/.exec(ok.text)![1]!;
    expect(await getApiKeyById(keyId)).toMatchObject({ mode: 'live', mintedBy: { userId: admin.userId, email: admin.email } });
    const again = await mint(admin, ['refunds'], code); // the same code a second time
    expect(again.status).toBe(400);
    expect(again.text).toContain('already used');
    expect(await keyCount(m)).toBe(before + 1);

    const entries = await audit(m);
    const stepUps = entries.filter((e) => e.action === 'user.step-up');
    expect(stepUps.map((e) => e.outcome).sort()).toEqual(['ok', 'refused', 'refused', 'refused']);
    expect(stepUps.find((e) => e.outcome === 'ok')!.detail).toContain(`apikey.create ${keyId} (payouts, settlements)`);
    expect(entries.find((e) => e.action === 'apikey.create' && e.outcome === 'ok')).toMatchObject({
      actorEmail: admin.email,
      target: keyId,
      detail: expect.stringContaining('money-out key: admins notified'),
    });

    // Every admin is told (Home and Developers pages); the developer is not shown the notice.
    for (const page of ['/dashboard', '/dashboard/developers']) {
      const seen = await get(other, page);
      expect(seen.text).toMatch(new RegExp(`${keyId} \\(live\\): payouts, settlements, minted by ${admin.email.replace('.', '\\.')}`));
    }
    expect((await get(dev, '/dashboard')).text).not.toContain(keyId);
    // A roll of keys with money-out scopes needs the code too.
    const roll = await post(other, '/dashboard/developers/keys/roll', [['graceDays', '1']]);
    expect(roll.status).toBe(400);
    expect(roll.text).toMatch(/id="roll-code"[^>]*aria-invalid="true"/);
    const rolled = await post(other, '/dashboard/developers/keys/roll', [
      ['graceDays', '1'],
      ['code', codeNow(other)],
    ]);
    expect(rolled.status, rolled.text).toBe(200);
    expect(issued(rolled.text)).toBeDefined();
  });

  it('a key records its minter: what it creates has them as maker, so they never approve it (403, audited); others do', async () => {
    const m = await funded();
    const [admin, approver] = [await userOf(m, 'admin'), await userOf(m, 'approver')];
    const minted = await mint(admin, ['payouts', 'settlements', 'refunds', 'payments', 'read'], codeNow(admin));
    expect(minted.status, minted.text).toBe(200);
    const key = issued(minted.text)!;
    const keyId = /New test key (key_[A-Za-z0-9_-]+)/.exec(minted.text)![1]!;

    // The attack: a manual payout and a settlement with the key, then approving both in the dashboard.
    const created = await payout(m, key, 500, false);
    expect(created.status, created.text).toBe(200);
    const payoutId = created.json.paymentIntentId as string;
    const settlement = await call(gw.baseUrl, 'POST', '/Gateway/v1/Settlements', {
      key: key.apiKey,
      secret: key.secretKey,
      body: { amount: 1000, bankName: 'HBL', iban: 'PK36SCBL0000001123456702', accountTitle: 'Acme Ltd' },
    });
    expect(settlement.status, settlement.text).toBe(200);
    const settlementId = settlement.json.id as string;
    expect(await getPayoutMaker('test', m.merchantId, created.json.merchantReference)).toMatchObject({ userId: admin.userId, keyId });
    expect(await getSettlementMaker(settlementId)).toMatchObject({ userId: admin.userId, keyId });

    const approvePayout = await post(admin, `/dashboard/payouts/${payoutId}/approve`, []);
    expect(approvePayout.status).toBe(403);
    expect(approvePayout.text).toContain(`You created this payout (through API key ${keyId}, which you minted)`);
    const approveSettlement = await post(admin, `/dashboard/settlements/${settlementId}/approve`, []);
    expect(approveSettlement.status).toBe(403);
    expect(approveSettlement.text).toContain('maker-checker');
    expect((await lookupTransaction(m.merchantId, 'test', payoutId))?.status).toBe('Pending');
    expect((await settlementFor(m.merchantId, 'test', settlementId)).status).toBe(0);
    const refused = (await audit(m)).filter((e) => e.outcome === 'refused').map((e) => `${e.action} ${e.target}`);
    expect(refused).toEqual(expect.arrayContaining([`payout.approve ${payoutId}`, `settlement.approve ${settlementId}`]));

    // Someone else approves both.
    expect((await post(approver, `/dashboard/payouts/${payoutId}/approve`, [['confirm', '1']])).status).toBe(303);
    expect((await post(approver, `/dashboard/settlements/${settlementId}/approve`, [['confirm', '1']])).status).toBe(303);
    expect((await lookupTransaction(m.merchantId, 'test', payoutId))?.status).not.toBe('Pending');
    expect((await settlementFor(m.merchantId, 'test', settlementId)).status).toBeGreaterThanOrEqual(1);

    // A refund made with the key has its maker too.
    const paid = await completedPayment(gw.baseUrl, m, { amount: 700 });
    const refund = await call(gw.baseUrl, 'POST', '/Gateway/v1/Refunds', {
      key: key.apiKey,
      secret: key.secretKey,
      body: { trxnRef: paid.id, amount: 100 },
    });
    expect(refund.status, refund.text).toBe(201);
    expect(await getRefundMaker(refund.json.id)).toMatchObject({ userId: admin.userId, email: admin.email, keyId });
    // Under the setting `merchant` the refund waits for the merchant's approver: never its key's minter.
    await savePayoutApprovals(await signedOf(admin), 'merchant');
    const approveRefund = await post(admin, `/dashboard/refunds/${refund.json.id}/approve`, [['confirm', '1']]);
    expect(approveRefund.status).toBe(403);
    expect(approveRefund.text).toContain(`You requested this refund (through API key ${keyId}, which you minted)`);
    expect((await getRefund(refund.json.id))?.status).toBe(RefundStatus.Pending);
    const refusals = (await audit(m)).filter((e) => e.outcome === 'refused').map((e) => `${e.action} ${e.target}`);
    expect(refusals).toContain(`refund.approve ${refund.json.id}`);
    expect((await post(approver, `/dashboard/refunds/${refund.json.id}/approve`, [['confirm', '1']])).status).toBe(303);
    expect((await getRefund(refund.json.id))?.status).toBe(RefundStatus.Approved);
  });

  it('payoutApprovals operator|both hold automatic API payouts for approval; merchant and unset keep sending them', async () => {
    const answers: Record<string, { status: string; message: string }> = {};
    for (const setting of ['unset', 'merchant', 'operator', 'both'] as const) {
      const m = await funded();
      if (setting !== 'unset') {
        await savePayoutApprovals(await signedOf(await userOf(m, 'admin')), setting);
      }
      const r = await payout(m, original(m), 400, true);
      expect(r.status, r.text).toBe(200);
      answers[setting] = { status: r.json.payoutInfo.status, message: r.json.payoutInfo.message };
      const stored = await lookupTransaction(m.merchantId, 'test', r.json.paymentIntentId);
      expect(stored?.status).toBe(r.json.payoutInfo.status);
      if (setting === 'operator') {
        const approved = await ops('withdrawal', 'approve', r.json.paymentIntentId, '--json');
        expect(approved.json, approved.stderr).toMatchObject({ status: 'Processing' });
      }
    }
    expect(answers.unset!.status).not.toBe('Pending');
    expect(answers.merchant!.status).not.toBe('Pending');
    for (const held of [answers.operator!, answers.both!]) {
      expect(held).toEqual({ status: 'Pending', message: expect.stringContaining('payoutApprovals setting holds automatic payouts') });
    }
  });

  it('keys minted before (no minter) keep working; their payouts have no maker and any approver decides them', async () => {
    const m = await funded();
    const admin = await userOf(m, 'admin');
    expect((await getApiKeyById((await listApiKeys(m.merchantId, 'test'))[0]!.keyId))?.mintedBy).toBeUndefined();
    const created = await payout(m, original(m), 450, false);
    expect(created.status, created.text).toBe(200);
    expect(await getPayoutMaker('test', m.merchantId, created.json.merchantReference)).toBeUndefined();
    expect((await post(admin, `/dashboard/payouts/${created.json.paymentIntentId}/approve`, [['confirm', '1']])).status).toBe(303);
    expect((await lookupTransaction(m.merchantId, 'test', created.json.paymentIntentId))?.status).not.toBe('Pending');
  });
});
