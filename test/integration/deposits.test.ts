import { describe, expect, it, vi } from 'vitest';
import { sandboxWalletProvider } from '#shared/providers/wallet-sandbox.ts';
import { routeList } from '#functions/routes.ts';
import { signSandboxCallback } from '#shared/providers/wallet-sandbox.ts';
import { listEvents } from '#shared/store/intents.ts';
import { getWallet, listJournals } from '#shared/store/wallets.ts';
import { call, newMerchant, useGateway, type TestMerchant } from '../support/gateway.ts';
import { sweepIntentsOf } from '../support/sweeps.ts';

const deposit = '/Gateway/v1/Payment/deposit';
let seq = 0;
const order = () => `DEP${Date.now()}${seq++}`;
const request = (over: Record<string, unknown> = {}) => ({
  mobileNumber: '03001230000',
  amount: 1000,
  walletProvider: 1,
  description: 'Top up',
  orderRef: { orderRef: order() },
  customerRef: { name: 'Ayesha Khan', cnic: '3520212345671' },
  ...over,
});
const later = (ms: number) => new Date(Date.now() + ms);
const sweep = (m: TestMerchant, at: Date) => sweepIntentsOf(at, m.merchantId); // over its intents' due partitions (test/support/sweeps.ts)

describe('deposits (mobile wallet charges)', () => {
  const gw = useGateway(routeList);
  const create = (m: TestMerchant, body: Record<string, unknown>, mode: 'test' | 'live' = 'test', headers?: Record<string, string>) =>
    call(gw.baseUrl, 'POST', deposit, { key: m[mode].apiKey, body, secret: m[mode].secretKey, ...(headers ? { headers } : {}) });
  const lookup = (m: TestMerchant, ref: string) => call(gw.baseUrl, 'GET', `/Gateway/v1/Transaction/by-ref/${ref}`, { key: m.test.apiKey });

  it('accepts a charge as Pending, completes once when the handset approves, and credits the wallet net of the fee', async () => {
    const m = await newMerchant();
    const body = request();
    const started = Date.now(); // the charge starts at or after this; the handset answers 3 s after it starts
    const r = await create(m, body);
    expect(r.status).toBe(200);
    expect(r.json).toMatchObject({
      amount: 1000,
      currency: 'PKR',
      merchantReference: body.orderRef.orderRef,
      walletChargeInfo: {
        provider: 'JazzCash',
        status: 'Pending',
        isSuccess: true,
        errorCode: null,
        errorDetails: null,
        traceId: r.headers.get('svc-trace-id'),
      },
    });
    expect((await lookup(m, body.orderRef.orderRef)).json.status).toBe('Pending');

    await sweep(m, new Date(started + 1000)); // before the handset answers (however slow this machine is): still Pending
    expect((await lookup(m, body.orderRef.orderRef)).json.status).toBe('Pending');
    await sweep(m, later(4000));
    await sweep(m, later(5000)); // a second sweep changes nothing
    const done = await lookup(m, body.orderRef.orderRef);
    expect(done.json).toMatchObject({ status: 'Completed', fee: 15, walletChargeInfo: { status: 'Completed' } });
    const wallet = await getWallet(m.merchantId, 'test', 'PKR', true);
    expect(wallet.available).toBe(1000_00 - 15_00);
    const events = await listEvents(r.json.paymentIntentId);
    expect(events.map((e) => [e.event.data.PreviousStatus, e.event.data.CurrentStatus])).toEqual([['Pending', 'Completed']]);
    expect(events[0]!.event.data.TraceId).toBe(r.json.walletChargeInfo.traceId);
    const journals = await listJournals(m.merchantId, 'test');
    expect(journals.length).toBe(1);
    expect(journals[0]!.lines.reduce((s, l) => s + l.amount, 0)).toBe(0);
  });

  it('applies every sandbox wallet number (docs/merchant-guide.md, Hosted checkout: Sandbox)', async () => {
    const m = await newMerchant();
    const declined = await create(m, request({ mobileNumber: '03001231111' }));
    const never = await create(m, request({ mobileNumber: '+923001234444', walletProvider: 2, amount: 500 }));
    const poor = await create(m, request({ mobileNumber: '03001232222' }));
    const down = await create(m, request({ mobileNumber: '03001233333' }));
    expect([declined.status, never.status]).toEqual([200, 200]);
    expect(never.json.walletChargeInfo.provider).toBe('Easypaisa');
    expect(poor.status).toBe(422);
    expect(poor.json.code).toBe('insufficient_customer_balance');
    expect(down.status).toBe(422);
    expect(down.json.code).toBe('wallet_provider_unavailable');

    await sweep(m, later(4000));
    expect((await lookup(m, declined.json.paymentIntentId)).json).toMatchObject({
      status: 'Failed',
      reason: 'customer_declined',
      walletChargeInfo: { isSuccess: false },
    });
    expect((await lookup(m, never.json.paymentIntentId)).json.status).toBe('Pending');
    await sweep(m, later(6 * 60_000));
    expect((await lookup(m, never.json.paymentIntentId)).json).toMatchObject({ status: 'Expired', reason: 'not_approved' });
    expect((await getWallet(m.merchantId, 'test', 'PKR', true)).available).toBe(0);
  });

  it('enforces the provider minimums, currency, duplicates and live-mode availability as 422', async () => {
    const m = await newMerchant();
    const cases: [Record<string, unknown>, number, string?][] = [
      [{ amount: 99.99 }, 422, 'amount_below_minimum'],
      [{ amount: 100 }, 200],
      [{ walletProvider: undefined, paymentMethod: 2, amount: 199 }, 422, 'amount_below_minimum'],
      [{ walletProvider: undefined, paymentMethod: 2, amount: 200 }, 200],
      [{ currency: 'USD' }, 422, 'unsupported_currency'],
      [{ currency: 'XYZ' }, 422],
      [{ callbackUrl: 'https://169.254.169.254/hook' }, 422, 'callback_url_refused'],
    ];
    for (const [over, status, code] of cases) {
      const r = await create(m, request(over));
      expect(r.status, JSON.stringify(over)).toBe(status);
      if (code) expect(r.json.code).toBe(code);
    }
    const body = request();
    expect((await create(m, body)).status).toBe(200);
    const dup = await create(m, { ...request(), orderRef: body.orderRef });
    expect(dup.status).toBe(422);
    expect(dup.json.code).toBe('duplicate_order_ref');
    const live = await create(m, request(), 'live');
    expect(live.status).toBe(422);
    expect(live.json.code).toBe('wallet_provider_unavailable');
  });

  it('refuses malformed fields with 400 and stores nothing', async () => {
    const m = await newMerchant();
    const cases: [Record<string, unknown>, string][] = [
      [{ mobileNumber: '12345' }, 'mobileNumber'],
      [{ customerRef: { cnic: '123456789012' } }, 'customerRef.cnic'],
      [{ customerRef: { email: 'not-an-email' } }, 'customerRef.email'],
      [{ walletProvider: 3 }, 'walletProvider'],
      [{ walletProvider: 1, paymentMethod: 2 }, 'paymentMethod'],
      [{ amount: 100.001 }, 'amount'],
      [{ amount: '100' }, 'amount'],
      [{ description: 'Top-up!' }, 'description'],
      [{ orderRef: { orderRef: 'has space' } }, 'orderRef.orderRef'],
      [{ intentType: 'checkout' }, 'intentType'],
      [{ metadataJson: '{not json' }, 'metadataJson'],
    ];
    for (const [over, field] of cases) {
      const body = request(over);
      const r = await create(m, body);
      expect(r.status, field).toBe(400);
      expect(Object.keys(r.json.errors), field).toContain(field);
      expect((await lookup(m, (body.orderRef as { orderRef: string }).orderRef)).status).toBe(404);
    }
  });

  it('applies a signed provider callback once, however often it is replayed', async () => {
    const m = await newMerchant();
    const r = await create(m, request({ mobileNumber: '03001234444' }));
    const reference = r.json.walletChargeInfo.transactionReference;
    const raw = JSON.stringify({ reference, status: 'Approved' });
    const send = async (signature: string, provider = 'jazzcash') =>
      call(gw.baseUrl, 'POST', `/providers/wallet/${provider}/callback`, {
        raw,
        headers: { 'Content-Type': 'application/json', 'X-Provider-Signature': signature },
      });
    const signature = await signSandboxCallback(1, raw);
    expect((await send('0'.repeat(64))).status).toBe(401);
    expect((await send(signature, 'nopay')).status).toBe(404);
    const first = await send(signature);
    const second = await send(signature);
    expect(first.json).toMatchObject({ status: 'Completed', changed: true });
    expect(second.json).toMatchObject({ status: 'Completed', changed: false });
    expect((await getWallet(m.merchantId, 'test', 'PKR', true)).available).toBe(1000_00 - 15_00);
    expect((await listEvents(r.json.paymentIntentId)).length).toBe(1);
  });

  it('ends a racing callback and reconciler in one outcome', async () => {
    const m = await newMerchant();
    const charges = await Promise.all([1, 2, 3, 4].map(() => create(m, request())));
    await Promise.all(
      charges.flatMap((c) => {
        const raw = JSON.stringify({
          reference: c.json.walletChargeInfo.transactionReference,
          status: 'Declined',
          reason: 'customer_declined',
        });
        return [
          signSandboxCallback(1, raw).then((sig) =>
            call(gw.baseUrl, 'POST', '/providers/wallet/jazzcash/callback', {
              raw,
              headers: { 'Content-Type': 'application/json', 'X-Provider-Signature': sig },
            }),
          ),
          sweep(m, later(4000)),
        ];
      }),
    );
    let completed = 0;
    for (const c of charges) {
      const events = await listEvents(c.json.paymentIntentId);
      expect(events.length).toBe(1);
      const status = (await lookup(m, c.json.paymentIntentId)).json.status;
      expect(['Completed', 'Failed']).toContain(status);
      expect(events[0]!.event.data.CurrentStatus).toBe(status);
      if (status === 'Completed') completed++;
    }
    expect((await getWallet(m.merchantId, 'test', 'PKR', true)).available).toBe(completed * (1000_00 - 15_00));
  });

  it('never prompts the customer again for a retried request or a reused orderRef', async () => {
    const m = await newMerchant();
    const starts = vi.spyOn(sandboxWalletProvider(1), 'startCharge');
    try {
      const body = request();
      const headers = { 'Idempotency-Key': `prompt-${body.orderRef.orderRef}` };
      expect((await create(m, body, 'test', headers)).status).toBe(200);
      expect(starts).toHaveBeenCalledTimes(1);
      expect((await create(m, body, 'test', headers)).headers.get('idempotent-replayed')).toBe('true');
      const dup = await create(m, { ...request(), orderRef: body.orderRef });
      expect(dup.json.code).toBe('duplicate_order_ref');
      expect(starts).toHaveBeenCalledTimes(1);
    } finally {
      starts.mockRestore();
    }
  });

  it('can be looked up by the reference it returns, which the webhook carries too', async () => {
    const m = await newMerchant();
    const r = await create(m, request());
    const reference = r.json.walletChargeInfo.transactionReference;
    const found = await lookup(m, reference);
    expect(found.status).toBe(200);
    expect(found.json).toMatchObject({ paymentIntentId: r.json.paymentIntentId, transactionReference: reference });
    await sweep(m, later(4000));
    expect((await listEvents(r.json.paymentIntentId))[0]!.event.data.TransactionReference).toBe(reference);
  });

  it('replays a retried request with the same Idempotency-Key without charging twice', async () => {
    const m = await newMerchant();
    const body = request();
    const headers = { 'Idempotency-Key': `dep-${body.orderRef.orderRef}` };
    const first = await create(m, body, 'test', headers);
    const again = await create(m, body, 'test', headers);
    expect(first.status).toBe(200);
    expect(again.headers.get('idempotent-replayed')).toBe('true');
    expect(again.json.paymentIntentId).toBe(first.json.paymentIntentId);
  });
});
