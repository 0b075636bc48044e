import { describe, expect, it } from 'vitest';
import { routeList } from '#functions/routes.ts';
import { signSandboxCallback } from '#shared/providers/wallet-sandbox.ts';
import { decideHeldApproval } from '#shared/services/held-decisions.ts';
import { setStatus } from '#shared/services/merchants.ts';
import { getIntent, listEvents } from '#shared/store/intents.ts';
import { getWallet } from '#shared/store/wallets.ts';
import { checkoutBody, createCheckout, getPage, pagePath, postForm } from '../support/checkout.ts';
import { call, newMerchant, useGateway, type TestMerchant } from '../support/gateway.ts';
import { expectLedgerConsistent } from '../support/money.ts';
import { useOps } from '../support/ops.ts';
import { sweepIntentsOf } from '../support/sweeps.ts';

/**
 * Issue 10 point 9: a wallet approval (provider callback or status inquiry) of a suspended
 * merchant's deposit or checkout is held, never credited, until the operator releases it (credited
 * once) or declines it (Failed) with `npm run ops -- deposit release|decline`.
 */
const ops = useOps();
let seq = 0;
const later = (ms: number) => new Date(Date.now() + ms);
const sweep = (m: TestMerchant, at: Date) => sweepIntentsOf(at, m.merchantId); // over its intents' due partitions (test/support/sweeps.ts)
const available = async (m: TestMerchant) => (await getWallet(m.merchantId, 'test', 'PKR', true)).available;
const failed = (r: object) => 'failed' in r && r.failed === true;
const statuses = async (id: string) => (await listEvents(id)).map((e) => e.event.data.CurrentStatus);

// Each test runs the operator CLI (a separate process) a few times: slow under a loaded machine.
describe('wallet approvals of a suspended merchant', { timeout: 180_000 }, () => {
  const gw = useGateway(routeList);
  const deposit = (m: TestMerchant, mobileNumber: string) =>
    call(gw.baseUrl, 'POST', '/Gateway/v1/Payment/deposit', {
      key: m.test.apiKey,
      secret: m.test.secretKey,
      body: { mobileNumber, amount: 1000, walletProvider: 1, description: 'Top up', orderRef: { orderRef: `HELD${Date.now()}${seq++}` } },
    });
  const callback = async (reference: string, status: 'Approved' | 'Declined') => {
    const raw = JSON.stringify({ reference, status, ...(status === 'Declined' ? { reason: 'customer_declined' } : {}) });
    return call(gw.baseUrl, 'POST', '/providers/wallet/jazzcash/callback', {
      raw,
      headers: { 'Content-Type': 'application/json', 'X-Provider-Signature': await signSandboxCallback(1, raw) },
    });
  };

  it('holds a callback approval (replays, declines, expiry change nothing), lists it, and credits it exactly once on release', async () => {
    const m = await newMerchant();
    const created = await deposit(m, '03001234444'); // the handset never answers the inquiry: only the callback decides
    expect(created.status, created.text).toBe(200);
    const id = created.json.paymentIntentId;
    const reference = created.json.walletChargeInfo.transactionReference;
    await setStatus(m.merchantId, 'suspended');

    const first = await callback(reference, 'Approved');
    expect(first.status, first.text).toBe(200);
    expect(first.json).toMatchObject({ paymentIntentId: id, status: 'Pending', changed: false, held: true });
    expect((await callback(reference, 'Approved')).json).toMatchObject({ status: 'Pending', held: true });
    expect((await callback(reference, 'Declined')).json).toMatchObject({ status: 'Pending', changed: false });
    await sweep(m, later(10 * 60_000)); // past the deposit's expiry: a held approval neither expires nor is asked about
    expect(await getIntent(id)).toMatchObject({
      status: 'Pending',
      details: { heldApproval: { source: 'callback', providerReference: reference } },
    });
    expect(await available(m)).toBe(0);
    expect(await statuses(id)).toEqual([]);

    const held = await ops('deposit', 'held', '--json');
    expect(held.json.map((h: { paymentIntentId: string }) => h.paymentIntentId)).toContain(id);
    await setStatus(m.merchantId, 'active'); // reactivation alone credits nothing: the operator decides
    await sweep(m, later(11 * 60_000));
    expect(await available(m)).toBe(0);

    // Five operators release at once, one declines: exactly one decision wins, credited at most once.
    const decisions = await Promise.allSettled([
      ...Array.from({ length: 5 }, () => decideHeldApproval(id, 'release')),
      decideHeldApproval(id, 'decline'),
    ]);
    expect(decisions.filter((d) => d.status === 'fulfilled')).toHaveLength(1);
    const after = await getIntent(id);
    expect(['Completed', 'Failed']).toContain(after!.status);
    expect(await available(m)).toBe(after!.status === 'Completed' ? 1000_00 - 15_00 : 0);
    expect(await statuses(id)).toEqual([after!.status]);
    const again = await ops('deposit', 'release', id, '--json');
    expect(failed(again)).toBe(true);
    expect(again.json.error).toMatch(/only a Pending held approval/);
    expect((await ops('deposit', 'held', '--json')).json.map((h: { paymentIntentId: string }) => h.paymentIntentId)).not.toContain(id);
    await expectLedgerConsistent(m.merchantId, 'test');
  });

  it('holds an approval found by the reconciler; ops deposit decline fails it without credit, release then refuses', async () => {
    const m = await newMerchant();
    const created = await deposit(m, '03001230000'); // the sandbox approves on the handset a few seconds later
    const id = created.json.paymentIntentId;
    await setStatus(m.merchantId, 'suspended');
    await sweep(m, later(4_000));
    expect(await getIntent(id)).toMatchObject({ status: 'Pending', details: { heldApproval: { source: 'inquiry' } } });
    expect(await available(m)).toBe(0);

    const declined = await ops('deposit', 'decline', id, '--json');
    expect(failed(declined), declined.stderr).toBe(false);
    expect(declined.json).toMatchObject({
      paymentIntentId: id,
      status: 'Failed',
      reason: 'declined_merchant_suspended',
      walletChargeInfo: { status: 'Failed', isSuccess: false },
    });
    expect(failed(await ops('deposit', 'release', id, '--json'))).toBe(true);
    expect(await available(m)).toBe(0);
    expect(await statuses(id)).toEqual(['Failed']);
    await setStatus(m.merchantId, 'active');
    expect((await callback(created.json.walletChargeInfo.transactionReference, 'Approved')).json).toMatchObject({
      status: 'Failed',
      changed: false,
    });
    expect(await available(m)).toBe(0);
  });

  it('holds a hosted-checkout wallet approval the same way; ops deposit release completes and credits it once', async () => {
    const m = await newMerchant();
    const created = await createCheckout(gw.baseUrl, m, checkoutBody({ amount: 2000 }));
    const id = created.json.paymentIntentId;
    const path = pagePath(created.json.checkoutUrl);
    const page = await getPage(gw.baseUrl, path);
    expect((await postForm(gw.baseUrl, `${path}/wallet`, { csrf: page.csrf!, provider: '1', mobileNumber: '03001230000' })).status).toBe(
      303,
    );
    expect((await postForm(gw.baseUrl, `${path}/otp`, { csrf: page.csrf!, otp: '123456' })).status).toBe(303);
    await setStatus(m.merchantId, 'suspended'); // the customer approves on the handset after the suspension

    await sweep(m, later(5_000));
    await sweep(m, later(60 * 60_000)); // long past the session's and the approval's deadlines
    expect(await getIntent(id)).toMatchObject({ status: 'Pending', details: { heldApproval: { source: 'inquiry' } } });
    expect(await available(m)).toBe(0);
    // The customer's page says the payment is on hold (as for a held card payment), not "approve on your phone".
    const held = await getPage(gw.baseUrl, path);
    expect(held.html).toContain('Your payment is on hold');
    expect(held.html).toContain('wallet ending <strong>0000</strong>');
    expect(held.html).not.toContain('Approve the payment on your phone');

    const released = await ops('deposit', 'release', id, '--json');
    expect(failed(released), released.stderr).toBe(false);
    expect(released.json).toMatchObject({ paymentIntentId: id, status: 'Completed', merchantStatus: 'suspended' });
    expect(await available(m)).toBe(2000_00 - 50_00);
    expect(await statuses(id)).toEqual(['Completed']);
    expect(failed(await ops('deposit', 'release', id, '--json'))).toBe(true);
    expect(await available(m)).toBe(2000_00 - 50_00);
    await expectLedgerConsistent(m.merchantId, 'test');
  });

  it('credits as before while the merchant is active (no hold)', async () => {
    const m = await newMerchant();
    const created = await deposit(m, '03001234444');
    const r = await callback(created.json.walletChargeInfo.transactionReference, 'Approved');
    expect(r.json).toMatchObject({ status: 'Completed', changed: true });
    expect(r.json.held).toBeUndefined();
    expect(await available(m)).toBe(1000_00 - 15_00);
  });
});
