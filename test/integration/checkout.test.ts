import { UpdateItemCommand } from '@aws-sdk/client-dynamodb';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { routeList } from '#functions/routes.ts';
import { db, tableName, toItem, toValues } from '#shared/store/client.ts';
import { getIntent, listEvents } from '#shared/store/intents.ts';
import * as keys from '#shared/store/keys.ts';
import { getWallet, listJournals } from '#shared/store/wallets.ts';
import { checkoutBody, createCheckout, getPage, orderId, pagePath, postForm } from '../support/checkout.ts';
import { call, newMerchant, useGateway, type TestMerchant } from '../support/gateway.ts';
import { sweepIntentsOf } from '../support/sweeps.ts';

const later = (ms: number) => new Date(Date.now() + ms);
/** Moves a session's expiry into the past (what 30 minutes would do), leaving the due index alone. */
const backdate = (id: string) =>
  db().send(
    new UpdateItemCommand({
      TableName: tableName(),
      Key: toItem(keys.intent(id)),
      UpdateExpression: 'SET expiresAt = :past',
      ExpressionAttributeValues: toValues({ ':past': new Date(Date.now() - 1_000).toISOString() }),
    }),
  );
const sweep = (m: TestMerchant, at: Date) => sweepIntentsOf(at, m.merchantId); // over its intents' due partitions (test/support/sweeps.ts)
/**
 * The sandbox handset answers 3 s after the prompt by the real clock, so a test that looks between prompt and answer
 * (a Pending lookup, a refused card) freezes Date, and only Date: on a loaded machine the steps once took longer than
 * the 3 s and the answer arrived early. `later(ms)` moves the sweeps past it explicitly.
 */
const freezeDate = () => {
  beforeEach(() => {
    vi.useFakeTimers({ toFake: ['Date'], now: Date.now() });
  });
  afterEach(() => {
    vi.useRealTimers();
  });
};
const card = (number: string) => ({ name: 'Ayesha Khan', number, expiry: '12/39', cvc: '123' });

describe('hosted checkout', () => {
  const gw = useGateway(routeList);
  const lookup = async (m: TestMerchant, ref: string) =>
    (await call(gw.baseUrl, 'GET', `/Gateway/v1/Transaction/by-ref/${ref}`, { key: m.test.apiKey })).json;
  /** Creates a session and opens its page: the page path and its form token. */
  const open = async (m: TestMerchant, over: Record<string, unknown> = {}) => {
    const created = await createCheckout(gw.baseUrl, m, checkoutBody(over));
    expect(created.status, created.text).toBe(200);
    const path = pagePath(created.json.checkoutUrl);
    const page = await getPage(gw.baseUrl, path);
    expect(page.status).toBe(200);
    return { id: created.json.paymentIntentId as string, path, csrf: page.csrf!, page };
  };

  describe('POST /Payment/initiate-checkout', () => {
    it('creates a 30-minute session with every field kept, and the lookup returns it', async () => {
      const m = await newMerchant();
      const customerRef = {
        name: 'Ayesha Khan',
        email: 'ayesha@example.com',
        cnic: '3520212345671',
        phone: '03001234567',
        shippingAddress: '1 Mall Road Lahore',
        estimatedDays: '3',
      };
      const body = checkoutBody({
        amount: 1500.5,
        orderRef: { orderRef: orderId(), discount: '10%', tax: '5' },
        customerRef,
        metadataJson: '{"cart":[1,2]}',
        intentType: 'checkout',
      });
      const before = Date.now();
      const r = await createCheckout(gw.baseUrl, m, body);
      expect(r.status, r.text).toBe(200);
      expect(Object.keys(r.json).sort()).toEqual(['checkoutUrl', 'expiresAt', 'paymentIntentId']);
      expect(r.json.checkoutUrl).toBe(`${process.env.PUBLIC_BASE_URL}/pay/${r.json.paymentIntentId}`);
      const ttl = Date.parse(r.json.expiresAt) - before;
      expect(ttl).toBeGreaterThan(29 * 60_000);
      expect(ttl).toBeLessThanOrEqual(30 * 60_000 + 5_000);

      const t = await lookup(m, body.orderRef.orderRef);
      expect(t).toMatchObject({
        paymentIntentId: r.json.paymentIntentId,
        intentType: 'checkout',
        status: 'Pending',
        amount: 1500.5,
        currency: 'PKR',
        fee: 0,
        description: 'Blue shirt',
        orderRef: { orderRef: body.orderRef.orderRef, discount: '10%', tax: '5' },
        customerRef,
        metadataJson: '{"cart":[1,2]}',
        isLive: false,
        expiresAt: r.json.expiresAt,
        paymentMethod: null,
        card: null,
        traceId: r.headers.get('svc-trace-id'),
      });
      expect(t.transactionReference).toMatch(/^chk_[0-9a-f]{24}$/);
      expect((await lookup(m, t.transactionReference)).paymentIntentId).toBe(r.json.paymentIntentId);
      // Another merchant's or the other mode's key: 404, never 403.
      const foreign = await newMerchant();
      expect(
        (await call(gw.baseUrl, 'GET', `/Gateway/v1/Transaction/${r.json.paymentIntentId}`, { key: foreign.test.apiKey })).status,
      ).toBe(404);
      expect(
        (await call(gw.baseUrl, 'GET', `/Gateway/v1/Transaction/by-ref/${body.orderRef.orderRef}`, { key: m.live.apiKey })).status,
      ).toBe(404);
    });

    it('uses the currency given, else the merchant’s, and replays an Idempotency-Key', async () => {
      const m = await newMerchant({ name: 'Dollar Shop', currency: 'USD' });
      const usd = await createCheckout(gw.baseUrl, m, checkoutBody({ amount: 10.01 }));
      expect(usd.status, usd.text).toBe(200);
      expect((await lookup(m, usd.json.paymentIntentId)).currency).toBe('USD');
      const pkr = await createCheckout(gw.baseUrl, m, checkoutBody({ currency: 'PKR' }));
      expect((await lookup(m, pkr.json.paymentIntentId)).currency).toBe('PKR');

      const body = checkoutBody();
      const headers = { 'Idempotency-Key': `idem-${orderId()}` };
      const first = await createCheckout(gw.baseUrl, m, body, { headers });
      const again = await createCheckout(gw.baseUrl, m, body, { headers });
      expect(first.status).toBe(200);
      expect(again.status).toBe(200);
      expect(again.headers.get('idempotent-replayed')).toBe('true');
      expect(again.json).toEqual(first.json);
    });

    const malformed: [string, Record<string, unknown>, string][] = [
      ['amount missing', { amount: undefined }, 'amount'],
      ['amount as a string', { amount: '1500' }, 'amount'],
      ['amount with too many decimals', { amount: 100.123 }, 'amount'],
      ['currency not a code', { currency: 'pkr' }, 'currency'],
      ['description missing', { description: undefined }, 'description'],
      ['description with punctuation', { description: 'Blue shirt!' }, 'description'],
      ['description over 200 characters', { description: 'a'.repeat(201) }, 'description'],
      ['orderRef missing', { orderRef: undefined }, 'orderRef'],
      ['orderRef with a dash', { orderRef: { orderRef: 'INV-1' } }, 'orderRef.orderRef'],
      ['customerRef.email invalid', { customerRef: { email: 'not-an-email' } }, 'customerRef.email'],
      ['customerRef.cnic not 13 digits', { customerRef: { cnic: '352021234567' } }, 'customerRef.cnic'],
      ['callbackUrl not a URL', { callbackUrl: 'not a url' }, 'callbackUrl'],
      ['callbackUrl over 2048 characters', { callbackUrl: `https://example.com/${'a'.repeat(2040)}` }, 'callbackUrl'],
      ['returnUrl a script', { returnUrl: 'javascript:alert(1)' }, 'returnUrl'],
      ['returnUrl over plain http', { returnUrl: 'http://shop.example.com/back' }, 'returnUrl'],
      ['returnUrl with credentials', { returnUrl: 'https://user:pass@shop.example.com/back' }, 'returnUrl'],
      ['paymentMethod 3', { paymentMethod: 3 }, 'paymentMethod'],
      ['metadataJson not JSON', { metadataJson: '{cart' }, 'metadataJson'],
      ['intentType of another endpoint', { intentType: 'deposit' }, 'intentType'],
    ];
    it.each(malformed)('400 for %s, and nothing is created', async (_name, over, field) => {
      const m = await newMerchant();
      const body = checkoutBody(over);
      const r = await createCheckout(gw.baseUrl, m, JSON.parse(JSON.stringify(body)));
      expect(r.status, r.text).toBe(400);
      expect(r.headers.get('content-type')).toContain('application/problem+json');
      expect(Object.keys(r.json.errors)).toContain(field);
      const ref = (body.orderRef as { orderRef?: string } | undefined)?.orderRef;
      if (ref && /^[A-Za-z0-9]+$/.test(ref))
        expect((await call(gw.baseUrl, 'GET', `/Gateway/v1/Transaction/by-ref/${ref}`, { key: m.test.apiKey })).status).toBe(404);
    });

    it('422 for the business rules: amount, currency, duplicate orderRef, refused callbackUrl, live mode', async () => {
      const m = await newMerchant();
      const cases: [Record<string, unknown>, string][] = [
        [{ amount: 10 }, 'greater than 10'],
        [{ amount: 5 }, 'greater than 10'],
        [{ currency: 'JPY' }, 'not supported'],
        [{ callbackUrl: 'http://example.com/return' }, 'https'],
        [{ callbackUrl: 'https://127.0.0.1/return' }, 'private'],
      ];
      for (const [over, detail] of cases) {
        const r = await createCheckout(gw.baseUrl, m, checkoutBody(over));
        expect(r.status, JSON.stringify(over)).toBe(422);
        expect(r.json.detail).toContain(detail);
      }
      const first = checkoutBody({ amount: 10.01 });
      expect((await createCheckout(gw.baseUrl, m, first)).status).toBe(200);
      const duplicate = await createCheckout(gw.baseUrl, m, checkoutBody({ orderRef: first.orderRef }));
      expect(duplicate.status).toBe(422);
      expect(duplicate.json).toMatchObject({ code: 'duplicate_order_ref' });
      // Unique per merchant: another merchant may use the same orderRef.
      expect((await createCheckout(gw.baseUrl, await newMerchant(), checkoutBody({ orderRef: first.orderRef }))).status).toBe(200);
      const live = await createCheckout(gw.baseUrl, m, checkoutBody(), { mode: 'live' });
      expect(live.status).toBe(422);
      expect(live.json.code).toBe('provider_unavailable');
    });
  });

  describe('the page and its outcomes', () => {
    it('renders a labelled, mobile-first page with strict security headers', async () => {
      const m = await newMerchant({ name: 'Acme Books' });
      const { page } = await open(m, { amount: 1234.5, description: 'Two books' });
      expect(page.headers.get('content-type')).toBe('text/html; charset=utf-8');
      const csp = page.headers.get('content-security-policy')!;
      expect(csp).toContain("default-src 'none'");
      expect(csp).toContain("frame-ancestors 'none'");
      expect(csp).toMatch(/style-src 'sha256-[A-Za-z0-9+/=]+'/);
      expect(csp).not.toContain('unsafe-inline');
      expect(page.headers.get('x-content-type-options')).toBe('nosniff');
      expect(page.headers.get('referrer-policy')).toBe('no-referrer');
      expect(page.headers.get('cache-control')).toBe('no-store');
      expect(page.html).toContain('<meta name="viewport" content="width=device-width, initial-scale=1">');
      expect(page.html).toContain('Acme Books');
      expect(page.html).toContain('PKR 1,234.50');
      expect(page.html).toContain('Two books');
      for (const token of ['cc-name', 'cc-number', 'cc-exp', 'cc-csc', 'tel']) expect(page.html).toContain(`autocomplete="${token}"`);
      for (const id of ['cc-name', 'cc-number', 'cc-exp', 'cc-csc', 'wallet-number']) expect(page.html).toContain(`<label for="${id}">`);
      // The customer learns before submitting that every card field, the name included, is required.
      expect(page.html).toContain('<p class="muted" id="card-required">Every field is required.</p>');
      expect(page.html).toMatch(/<label for="cc-name">Name on card <span class="muted">\(as printed on the card\)<\/span><\/label>/);
      expect(page.html).not.toMatch(/<script/i);
      expect(page.html).not.toMatch(/ style="/);
    });

    it('pays by card: Completed, the wallet grows net of the 2.5 % fee, the event commits with it, no card number kept', async () => {
      const m = await newMerchant();
      const { id, path, csrf } = await open(m, { amount: 1500 });
      const paid = await postForm(gw.baseUrl, `${path}/card`, { csrf, ...card('4242 4242 4242 4242') });
      expect(paid.status).toBe(303);
      expect(paid.location).toBe(`/pay/${id}`);
      const result = await getPage(gw.baseUrl, path);
      expect(result.status).toBe(200);
      expect(result.html).toContain('Payment successful');

      const t = await lookup(m, id);
      expect(t).toMatchObject({ status: 'Completed', fee: 37.5, card: { brand: 'visa', last4: '4242', expMonth: 12, expYear: 2039 } });
      expect((await getWallet(m.merchantId, 'test', 'PKR', true)).available).toBe(1500_00 - 37_50);
      const events = await listEvents(id);
      expect(events.map((e) => e.event.data.CurrentStatus)).toEqual(['Completed']);
      const journals = await listJournals(m.merchantId, 'test');
      expect(journals.map((j) => j.lines.reduce((s, l) => s + l.amount, 0))).toEqual([0]);
      const stored = JSON.stringify({ intent: await getIntent(id), events, journals });
      expect(stored).not.toContain('4242424242424242');
      expect(stored).not.toContain('4242 4242');

      // Paying again after the outcome changes nothing.
      await postForm(gw.baseUrl, `${path}/card`, { csrf, ...card('4242424242424242') });
      expect((await getWallet(m.merchantId, 'test', 'PKR', true)).available).toBe(1500_00 - 37_50);
      expect((await listEvents(id)).length).toBe(1);
    });

    it('re-renders invalid card details with field errors, changing nothing and never echoing the number', async () => {
      const m = await newMerchant();
      const { id, path, csrf } = await open(m);
      const r = await postForm(gw.baseUrl, `${path}/card`, { csrf, name: '', number: '4242424242424241', expiry: '01/20', cvc: '12' });
      expect(r.status).toBe(400);
      expect(r.html).toContain('That card number is not valid: check for a mistyped digit.');
      expect(r.html).toContain('This card has expired: check the date, or use another card.');
      expect(r.html).toContain('security code');
      expect(r.html).toContain('Enter the name on the card.');
      expect(r.html).not.toContain('4242424242424241');
      expect((await lookup(m, id)).status).toBe('Pending');
      expect(await listEvents(id)).toEqual([]);
    });

    it('refuses form posts without the form token, from another site, or not form-encoded', async () => {
      const m = await newMerchant();
      const { id, path, csrf } = await open(m);
      expect((await postForm(gw.baseUrl, `${path}/cancel`, {})).status).toBe(403);
      expect((await postForm(gw.baseUrl, `${path}/cancel`, { csrf: csrf.slice(1) + 'A' })).status).toBe(403);
      expect((await postForm(gw.baseUrl, `${path}/cancel`, { csrf }, { 'Sec-Fetch-Site': 'cross-site' })).status).toBe(403);
      const json = await fetch(`${gw.baseUrl}${path}/cancel`, {
        method: 'POST',
        headers: { 'Content-Type': 'application/json' },
        body: JSON.stringify({ csrf }),
      });
      expect(json.status).toBe(415);
      // Another session's token does not work here.
      const other = await open(m);
      expect((await postForm(gw.baseUrl, `${path}/cancel`, { csrf: other.csrf })).status).toBe(403);
      expect((await lookup(m, id)).status).toBe('Pending');
      expect((await getPage(gw.baseUrl, '/pay/00000000-0000-4000-8000-000000000000')).status).toBe(404);
    });

    it('cancels, and sends the customer back to callbackUrl with paymentIntentId, orderRef and status', async () => {
      const m = await newMerchant({ name: 'Local Shop', allowInsecureWebhooks: true });
      const callbackUrl = 'http://127.0.0.1:9/return?session=abc';
      const { id, path, csrf, page } = await open(m, { callbackUrl });
      expect(page.headers.get('content-security-policy')).toContain("form-action 'self' http://127.0.0.1:9;");
      const r = await postForm(gw.baseUrl, `${path}/cancel`, { csrf });
      expect(r.status).toBe(303);
      const back = new URL(r.location!);
      expect(`${back.origin}${back.pathname}`).toBe('http://127.0.0.1:9/return');
      expect(Object.fromEntries(back.searchParams)).toEqual({
        session: 'abc',
        paymentIntentId: id,
        orderRef: (await lookup(m, id)).orderRef.orderRef,
        status: 'Cancelled',
      });
      expect(await lookup(m, id)).toMatchObject({ status: 'Cancelled', reason: 'customer_cancelled' });
      // Opening the page again goes back to the merchant too.
      expect((await getPage(gw.baseUrl, path)).location).toBe(r.location);
    });

    it('sends the customer to returnUrl when given, while events still go to callbackUrl', async () => {
      const m = await newMerchant({ name: 'Local Shop', allowInsecureWebhooks: true });
      const callbackUrl = 'http://127.0.0.1:9/hooks';
      const returnUrl = 'https://shop.example.com/thanks?cart=7';
      const { id, path, csrf, page } = await open(m, { callbackUrl, returnUrl });
      expect(page.headers.get('content-security-policy')).toContain("form-action 'self' https://shop.example.com;");
      const r = await postForm(gw.baseUrl, `${path}/cancel`, { csrf });
      expect(r.status).toBe(303);
      const back = new URL(r.location!);
      expect(`${back.origin}${back.pathname}`).toBe('https://shop.example.com/thanks');
      expect(Object.fromEntries(back.searchParams)).toMatchObject({ cart: '7', paymentIntentId: id, status: 'Cancelled' });
      expect((await getPage(gw.baseUrl, path)).location).toBe(r.location);
      expect((await getIntent(id))?.callbackUrl).toBe(callbackUrl);
      expect((await listEvents(id)).map((e) => e.callbackUrl)).toContain(callbackUrl);
    });

    it('offers only the wallet provider given by paymentMethod', async () => {
      const m = await newMerchant();
      const { path, csrf, page, id } = await open(m, { paymentMethod: 2 });
      expect(page.html).not.toContain('autocomplete="cc-number"');
      expect(page.html).toContain('Easypaisa');
      expect(page.html).not.toContain('JazzCash');
      const r = await postForm(gw.baseUrl, `${path}/card`, { csrf, ...card('4242424242424242') });
      expect(r.status).toBe(422);
      expect(r.html).toContain('Card payments are not offered');
      const wrongProvider = await postForm(gw.baseUrl, `${path}/wallet`, { csrf, provider: '1', mobileNumber: '03001230000' });
      expect(wrongProvider.status).toBe(400);
      expect((await lookup(m, id)).status).toBe('Pending');
      expect((await lookup(m, id)).paymentMethod).toBe(2);
    });
  });

  describe('declined and failed attempts (the session stays payable up to 3 attempts)', () => {
    freezeDate();
    const attemptsOf = async (m: TestMerchant, id: string) =>
      ((await lookup(m, id)).attempts as { number: number; outcome: string; reason: string | null }[]).map((a) => [
        a.number,
        a.outcome,
        a.reason,
      ]);

    it('a declined card leaves the session payable: another card pays it, credited once, and the merchant sees both attempts', async () => {
      const m = await newMerchant();
      const { id, path, csrf } = await open(m, { amount: 1500 });
      const declined = await postForm(gw.baseUrl, `${path}/card`, { csrf, ...card('4000000000000002') });
      expect(declined.status).toBe(303);
      expect(declined.location).toBe(`/pay/${id}`); // back to the page, not to the merchant: the payment has not ended
      const retry = await getPage(gw.baseUrl, path);
      expect(retry.status).toBe(200);
      expect(retry.html).toContain('Your payment did not go through');
      expect(retry.html).toContain('Your card was declined. (VISA ending 0002)');
      expect(retry.html).toContain('2 attempts left');
      expect(retry.html).toContain('autocomplete="cc-number"');
      expect(retry.html).toContain('name="mobileNumber"');
      expect(await lookup(m, id)).toMatchObject({
        status: 'Pending',
        reason: null,
        card: null,
        attempts: [{ number: 1, method: 'card', outcome: 'failed', reason: 'card_declined', card: { brand: 'visa', last4: '0002' } }],
      });
      expect(await listEvents(id)).toEqual([]); // no status change, no webhook

      expect((await postForm(gw.baseUrl, `${path}/card`, { csrf, ...card('4242424242424242') })).status).toBe(303);
      expect(await lookup(m, id)).toMatchObject({ status: 'Completed', fee: 37.5, card: { last4: '4242' } });
      expect(await attemptsOf(m, id)).toEqual([
        [1, 'failed', 'card_declined'],
        [2, 'succeeded', null],
      ]);
      expect((await listEvents(id)).map((e) => e.event.data.CurrentStatus)).toEqual(['Completed']);
      expect((await getWallet(m.merchantId, 'test', 'PKR', true)).available).toBe(1500_00 - 37_50);
      expect((await listJournals(m.merchantId, 'test')).length).toBe(1);
      expect(JSON.stringify(await getIntent(id))).not.toContain('4000000000000002');
      // The provider reference of the paying attempt is kept for refunds, never shown.
      expect(JSON.stringify(await lookup(m, id))).not.toContain('"reference"');
    });

    it('three failed attempts (card, card, wallet) fail the transaction once, with one webhook and the last reason', async () => {
      const m = await newMerchant();
      const { id, path, csrf } = await open(m);
      expect((await postForm(gw.baseUrl, `${path}/card`, { csrf, ...card('4000000000000002') })).status).toBe(303);
      expect((await postForm(gw.baseUrl, `${path}/card`, { csrf, ...card('4000000000009995') })).status).toBe(303);
      expect((await getPage(gw.baseUrl, path)).html).toContain('1 attempt left');
      expect((await postForm(gw.baseUrl, `${path}/wallet`, { csrf, provider: '1', mobileNumber: '03001231111' })).status).toBe(303);
      expect((await postForm(gw.baseUrl, `${path}/otp`, { csrf, otp: '123456' })).status).toBe(303);
      expect((await lookup(m, id)).status).toBe('Pending');
      await sweep(m, later(5_000)); // the handset declines
      expect(await lookup(m, id)).toMatchObject({ status: 'Failed', reason: 'customer_declined', walletNumberLast4: '1111' });
      expect(await attemptsOf(m, id)).toEqual([
        [1, 'failed', 'card_declined'],
        [2, 'failed', 'insufficient_funds'],
        [3, 'failed', 'customer_declined'],
      ]);
      const events = await listEvents(id);
      expect(events.map((e) => [e.event.data.PreviousStatus, e.event.data.CurrentStatus, e.event.data.Reason])).toEqual([
        ['Pending', 'Failed', 'customer_declined'],
      ]);
      const page = await getPage(gw.baseUrl, path);
      expect(page.html).toContain('Payment failed');
      expect(page.html).toContain('3 attempts were made.');
      expect(page.html).not.toContain('autocomplete="cc-number"');
      // Nothing more is taken or sent after the end.
      await postForm(gw.baseUrl, `${path}/card`, { csrf, ...card('4242424242424242') });
      await sweep(m, later(31 * 60_000));
      expect((await lookup(m, id)).status).toBe('Failed');
      expect((await listEvents(id)).length).toBe(1);
      expect((await getWallet(m.merchantId, 'test', 'PKR', true)).available).toBe(0);
    });

    it('after a failed attempt, the customer cancelling or the session expiring fails it (last attempt’s reason), once', async () => {
      const m = await newMerchant({ name: 'Local Shop', allowInsecureWebhooks: true });
      const gaveUp = await open(m, { callbackUrl: 'http://127.0.0.1:9/return' });
      expect((await getPage(gw.baseUrl, gaveUp.path)).html).toContain('>Cancel payment</button>');
      await postForm(gw.baseUrl, `${gaveUp.path}/card`, { csrf: gaveUp.csrf, ...card('4000000000000002') });
      expect((await lookup(m, gaveUp.id)).status).toBe('Pending');
      // The page names what ending it now does: it fails (not cancels) the payment and leads back to the merchant.
      const retry = (await getPage(gw.baseUrl, gaveUp.path)).html;
      expect(retry).not.toContain('Cancel payment');
      expect(retry).toContain('aria-describedby="give-up-hint">Give up and return to Local Shop</button>');
      expect(retry).toContain('This ends the payment as failed. No money was taken.');
      const cancelled = await postForm(gw.baseUrl, `${gaveUp.path}/cancel`, { csrf: gaveUp.csrf });
      expect(cancelled.status).toBe(303);
      expect(new URL(cancelled.location!).searchParams.get('status')).toBe('Failed');
      expect(await lookup(m, gaveUp.id)).toMatchObject({ status: 'Failed', reason: 'card_declined' });

      const left = await open(m);
      await postForm(gw.baseUrl, `${left.path}/card`, { csrf: left.csrf, ...card('4000000000009995') });
      expect((await lookup(m, left.id)).status).toBe('Pending');
      await sweep(m, later(31 * 60_000));
      expect(await lookup(m, left.id)).toMatchObject({ status: 'Failed', reason: 'insufficient_funds' });
      for (const s of [gaveUp, left])
        expect((await listEvents(s.id)).map((e) => [e.event.data.CurrentStatus, e.event.data.Reason])).toEqual([
          ['Failed', (await lookup(m, s.id)).reason],
        ]);
      // Without a failed attempt, cancelling and expiring stay Cancelled and Expired (tests above).
    });

    it('five wrong codes fail the wallet attempt (the charge is withdrawn); the customer then pays by card', async () => {
      const m = await newMerchant();
      const { id, path, csrf } = await open(m);
      expect((await postForm(gw.baseUrl, `${path}/wallet`, { csrf, provider: '1', mobileNumber: '03001230000' })).status).toBe(303);
      for (let i = 0; i < 4; i++) expect((await postForm(gw.baseUrl, `${path}/otp`, { csrf, otp: '111111' })).status).toBe(400);
      expect((await postForm(gw.baseUrl, `${path}/otp`, { csrf, otp: '111111' })).status).toBe(303);
      expect(await lookup(m, id)).toMatchObject({
        status: 'Pending',
        walletNumberLast4: null,
        attempts: [{ number: 1, method: 'wallet', outcome: 'failed', reason: 'otp_failed', walletNumberLast4: '0000' }],
      });
      const retry = await getPage(gw.baseUrl, path);
      expect(retry.html).toContain('The verification code was entered wrongly too many times.');
      expect(retry.html).not.toContain('autocomplete="one-time-code"');
      expect((await postForm(gw.baseUrl, `${path}/card`, { csrf, ...card('4242424242424242') })).status).toBe(303);
      expect(await lookup(m, id)).toMatchObject({ status: 'Completed', walletNumberLast4: null, card: { last4: '4242' } });
      await sweep(m, later(5_000)); // the withdrawn charge is never credited
      expect((await getWallet(m.merchantId, 'test', 'PKR', true)).available).toBe(1500_00 - 37_50);
      expect((await listEvents(id)).length).toBe(1);
    });

    it('racing attempts on one session are recorded one after the other, and never both charged', async () => {
      const m = await newMerchant();
      // Two approved cards at once: one payment, one journal, one event.
      const twice = await open(m, { amount: 1000 });
      const paid = () => postForm(gw.baseUrl, `${twice.path}/card`, { csrf: twice.csrf, ...card('4242424242424242') });
      await Promise.all([paid(), paid(), paid()]);
      expect(await attemptsOf(m, twice.id)).toEqual([[1, 'succeeded', null]]);
      expect((await listEvents(twice.id)).length).toBe(1);
      // Declines at once: each is its own attempt (1, 2, 3), and the third fails it with one event.
      const declines = await open(m);
      const decline = () => postForm(gw.baseUrl, `${declines.path}/card`, { csrf: declines.csrf, ...card('4000000000000002') });
      await Promise.all([decline(), decline(), decline(), decline()]);
      expect(await attemptsOf(m, declines.id)).toEqual([1, 2, 3].map((n) => [n, 'failed', 'card_declined']));
      expect((await listEvents(declines.id)).map((e) => e.event.data.CurrentStatus)).toEqual(['Failed']);
      // Declines and approvals at once: one approval pays, and no attempt is recorded after it.
      const mixed = await open(m, { amount: 1000 });
      const post = (n: string) => postForm(gw.baseUrl, `${mixed.path}/card`, { csrf: mixed.csrf, ...card(n) });
      await Promise.all([post('4000000000000002'), post('4242424242424242'), post('4000000000000002'), post('4242424242424242')]);
      const attempts = await attemptsOf(m, mixed.id);
      expect(attempts.map(([n]) => n)).toEqual(attempts.map((_, i) => i + 1));
      expect(attempts.at(-1)).toEqual([attempts.length, 'succeeded', null]);
      expect(attempts.filter(([, outcome]) => outcome === 'succeeded')).toHaveLength(1);
      expect((await listEvents(mixed.id)).map((e) => e.event.data.CurrentStatus)).toEqual(['Completed']);
      expect((await listJournals(m.merchantId, 'test')).length).toBe(2);
      expect((await getWallet(m.merchantId, 'test', 'PKR', true)).available).toBe(2 * (1000_00 - 25_00));
    });
  });

  describe('wallet payments', () => {
    freezeDate();
    const startWallet = async (m: TestMerchant, number: string, over: Record<string, unknown> = {}) => {
      const s = await open(m, over);
      const r = await postForm(gw.baseUrl, `${s.path}/wallet`, { csrf: s.csrf, provider: '1', mobileNumber: number });
      return { ...s, r };
    };

    it('number, wrong then right OTP, approval on the handset a few seconds later: Completed and credited', async () => {
      const m = await newMerchant();
      const { id, path, csrf, r } = await startWallet(m, '0300 123 0000', { amount: 2000 });
      expect(r.status).toBe(303);
      const otpPage = await getPage(gw.baseUrl, path);
      expect(otpPage.html).toContain('autocomplete="one-time-code"');
      expect(otpPage.html).toContain('ending <strong>0000</strong>');
      const wrong = await postForm(gw.baseUrl, `${path}/otp`, { csrf, otp: '000000' });
      expect(wrong.status).toBe(400);
      expect(wrong.html).toContain('4 attempts left');
      expect((await postForm(gw.baseUrl, `${path}/otp`, { csrf, otp: '123456' })).status).toBe(303);
      const waiting = await getPage(gw.baseUrl, path);
      expect(waiting.html).toContain('Approve the payment on your phone');
      expect(waiting.html).toContain('<meta http-equiv="refresh" content="3">');
      expect((await lookup(m, id)).status).toBe('Pending');

      await sweep(m, later(5_000));
      expect(await lookup(m, id)).toMatchObject({
        status: 'Completed',
        fee: 50,
        walletProvider: 'JazzCash',
        walletNumberLast4: '0000',
        card: null,
      });
      expect((await getWallet(m.merchantId, 'test', 'PKR', true)).available).toBe(2000_00 - 50_00);
      expect((await listEvents(id)).map((e) => e.event.data.CurrentStatus)).toEqual(['Completed']);
      expect((await getPage(gw.baseUrl, path)).html).toContain('Payment successful');
    });

    it('applies the sandbox wallet numbers: 1111 declines, 2222 and 3333 are refused at once, 4444 is never approved', async () => {
      const m = await newMerchant();
      const poor = await startWallet(m, '03001232222');
      expect(poor.r.status).toBe(422);
      expect(poor.r.html).toContain('balance is too low');
      const down = await startWallet(m, '03001233333');
      expect(down.r.status).toBe(422);
      expect(down.r.html).toContain('unavailable');
      for (const s of [poor, down]) expect((await lookup(m, s.id)).status).toBe('Pending');

      const declined = await startWallet(m, '03001231111');
      const never = await startWallet(m, '03001234444');
      for (const s of [declined, never])
        expect((await postForm(gw.baseUrl, `${s.path}/otp`, { csrf: s.csrf, otp: '123456' })).status).toBe(303);
      await sweep(m, later(5_000));
      // A declined attempt: the session stays payable (see "declined and failed attempts").
      expect(await lookup(m, declined.id)).toMatchObject({ status: 'Pending', attempts: [{ reason: 'customer_declined' }] });
      expect((await lookup(m, never.id)).status).toBe('Pending');
      await sweep(m, later(10_000)); // still waiting: the handset never answers
      expect((await lookup(m, never.id)).status).toBe('Pending');
      await sweep(m, later(31 * 60_000));
      expect(await lookup(m, never.id)).toMatchObject({ status: 'Expired', reason: 'expired' });
      expect((await getWallet(m.merchantId, 'test', 'PKR', true)).available).toBe(0);
    });
  });

  describe('a started wallet charge', () => {
    freezeDate();
    /** A session whose wallet charge awaits approval on the handset (right OTP given). */
    const approving = async (m: TestMerchant, number = '03001230000', over: Record<string, unknown> = {}) => {
      const s = await open(m, over);
      expect((await postForm(gw.baseUrl, `${s.path}/wallet`, { csrf: s.csrf, provider: '1', mobileNumber: number })).status).toBe(303);
      expect((await postForm(gw.baseUrl, `${s.path}/otp`, { csrf: s.csrf, otp: '123456' })).status).toBe(303);
      return s;
    };

    it('cannot be cancelled while it awaits approval; the page offers no cancel; the sweep completes it', async () => {
      const m = await newMerchant();
      const { id, path, csrf } = await approving(m, '03001230000', { amount: 2000 });
      const waiting = await getPage(gw.baseUrl, path);
      expect(waiting.html).toContain('Waiting for your approval on your phone');
      expect(waiting.html).not.toContain('Cancel payment');
      expect(waiting.html).not.toContain(`${id}/cancel`);
      const cancel = await postForm(gw.baseUrl, `${path}/cancel`, { csrf });
      expect(cancel.status).toBe(422);
      expect(cancel.html).toContain('can no longer be cancelled');
      expect((await lookup(m, id)).status).toBe('Pending');
      expect(await listEvents(id)).toEqual([]);

      await sweep(m, later(5_000));
      expect(await lookup(m, id)).toMatchObject({ status: 'Completed', fee: 50, walletNumberLast4: '0000' });
      expect((await getWallet(m.merchantId, 'test', 'PKR', true)).available).toBe(2000_00 - 50_00);
    });

    it('is not expired by a page open or a card payment after expiresAt: the provider decides, and its approval completes it', async () => {
      const m = await newMerchant();
      const { id, path, csrf } = await approving(m, '03001230000', { amount: 2000 });
      await backdate(id); // the 30 minutes ran out while the customer was approving
      const page = await getPage(gw.baseUrl, path); // the page's auto-refresh (the handset has not answered yet)
      expect(page.status).toBe(200);
      expect(page.html).toContain('Approve the payment on your phone');
      expect((await lookup(m, id)).status).toBe('Pending');
      const paid = await postForm(gw.baseUrl, `${path}/card`, { csrf, ...card('4242424242424242') });
      expect(paid.status).toBe(422);
      expect(paid.html).toContain('waiting for your approval');
      expect(await lookup(m, id)).toMatchObject({ status: 'Pending', card: null });
      expect(await listEvents(id)).toEqual([]);

      await sweep(m, later(5_000)); // the customer approved on the handset
      expect(await lookup(m, id)).toMatchObject({ status: 'Completed', fee: 50, walletProvider: 'JazzCash', card: null });
      expect((await getWallet(m.merchantId, 'test', 'PKR', true)).available).toBe(2000_00 - 50_00);
      expect((await listEvents(id)).map((e) => e.event.data.CurrentStatus)).toEqual(['Completed']);
    });

    it('an approval nobody answers outlives the session up to the approval window, then expires', async () => {
      const m = await newMerchant();
      const { id, path } = await approving(m, '03001234444');
      await backdate(id);
      expect((await getPage(gw.baseUrl, path)).html).toContain('Approve the payment on your phone');
      await sweep(m, later(5_000));
      expect((await lookup(m, id)).status).toBe('Pending');
      await sweep(m, later(11 * 60_000));
      expect(await lookup(m, id)).toMatchObject({ status: 'Expired', reason: 'expired' });
      expect((await getWallet(m.merchantId, 'test', 'PKR', true)).available).toBe(0);
    });

    it('refuses a card payment during the approval and, once the charge was started, a card payment or another wallet charge', async () => {
      const m = await newMerchant();
      const approval = await approving(m);
      const duringApproval = await postForm(gw.baseUrl, `${approval.path}/card`, { csrf: approval.csrf, ...card('4242424242424242') });
      expect(duringApproval.status).toBe(422);
      expect(duringApproval.html).toContain('waiting for your approval');
      expect((await lookup(m, approval.id)).status).toBe('Pending');

      const s = await open(m);
      expect((await postForm(gw.baseUrl, `${s.path}/wallet`, { csrf: s.csrf, provider: '1', mobileNumber: '03001230000' })).status).toBe(
        303,
      );
      const otpPage = await getPage(gw.baseUrl, s.path);
      expect(otpPage.html).not.toContain(`action="${s.id}/wallet"`);
      const byCard = await postForm(gw.baseUrl, `${s.path}/card`, { csrf: s.csrf, ...card('4242424242424242') });
      expect(byCard.status).toBe(422);
      expect(byCard.html).toContain('already started');
      const again = await postForm(gw.baseUrl, `${s.path}/wallet`, { csrf: s.csrf, provider: '2', mobileNumber: '03009990000' });
      expect(again.status).toBe(422);
      expect(again.html).toContain('already started');
      expect(await lookup(m, s.id)).toMatchObject({ status: 'Pending', card: null, walletProvider: 'JazzCash', walletNumberLast4: '0000' });
      expect((await getWallet(m.merchantId, 'test', 'PKR', true)).available).toBe(0);
      // Before the OTP the customer may still cancel (the charge is withdrawn).
      expect((await postForm(gw.baseUrl, `${s.path}/cancel`, { csrf: s.csrf })).status).toBe(303);
      expect(await lookup(m, s.id)).toMatchObject({ status: 'Cancelled', reason: 'customer_cancelled' });
    });
  });

  describe('expiry', () => {
    it('the sweep expires sessions nobody opened; the page then says so', async () => {
      const m = await newMerchant();
      const created = await createCheckout(gw.baseUrl, m, checkoutBody());
      const id = created.json.paymentIntentId;
      await sweep(m, later(29 * 60_000));
      expect((await lookup(m, id)).status).toBe('Pending');
      await sweep(m, new Date(Date.parse(created.json.expiresAt) + 1_000));
      expect(await lookup(m, id)).toMatchObject({ status: 'Expired', reason: 'expired' });
      expect((await listEvents(id)).map((e) => [e.event.data.PreviousStatus, e.event.data.CurrentStatus])).toEqual([
        ['Pending', 'Expired'],
      ]);
      const page = await getPage(gw.baseUrl, pagePath(created.json.checkoutUrl));
      expect(page.status).toBe(410);
      expect(page.html).toContain('This payment session has expired');
      expect(page.html).not.toContain('autocomplete="cc-number"');
    });
  });

  it('expires an overdue session when it is opened or paid, before any sweep', async () => {
    const m = await newMerchant();
    const { id, path, csrf } = await open(m);
    await backdate(id);
    const paid = await postForm(gw.baseUrl, `${path}/card`, { csrf, ...card('4242424242424242') });
    expect(paid.status).toBe(303);
    expect(await lookup(m, id)).toMatchObject({ status: 'Expired', reason: 'expired' });
    expect((await getWallet(m.merchantId, 'test', 'PKR', true)).available).toBe(0);

    const other = await open(m);
    await backdate(other.id);
    const page = await getPage(gw.baseUrl, other.path);
    expect(page.status).toBe(410);
    expect((await lookup(m, other.id)).status).toBe('Expired');
    expect((await listEvents(other.id)).map((e) => e.event.data.CurrentStatus)).toEqual(['Expired']);
  });

  describe('racing outcomes on one session', () => {
    it('lets exactly one of many concurrent customer actions win, with one event and a consistent balance', async () => {
      const m = await newMerchant();
      for (let round = 0; round < 3; round++) {
        const { id, path, csrf } = await open(m, { amount: 1000 });
        const posts = [
          postForm(gw.baseUrl, `${path}/card`, { csrf, ...card('4242424242424242') }),
          postForm(gw.baseUrl, `${path}/card`, { csrf, ...card('4000000000000002') }),
          postForm(gw.baseUrl, `${path}/cancel`, { csrf }),
          postForm(gw.baseUrl, `${path}/card`, { csrf, ...card('4242424242424242') }),
          postForm(gw.baseUrl, `${path}/cancel`, { csrf }),
          sweep(m, later(31 * 60_000)),
        ];
        await Promise.all(posts);
        const t = await lookup(m, id);
        expect(['Completed', 'Failed', 'Cancelled', 'Expired']).toContain(t.status);
        const events = await listEvents(id);
        expect(events.length).toBe(1);
        expect(events[0]!.event.data.CurrentStatus).toBe(t.status);
      }
      const completed = (await listJournals(m.merchantId, 'test')).length;
      expect((await getWallet(m.merchantId, 'test', 'PKR', true)).available).toBe(completed * (1000_00 - 25_00));
    });
  });
});
