import { UpdateItemCommand } from '@aws-sdk/client-dynamodb';
import QRCode from 'qrcode';
import { describe, expect, it } from 'vitest';
import { routeList } from '#functions/routes.ts';
import { db, tableName, toItem, toValues } from '#shared/store/client.ts';
import { getIntent, listEvents } from '#shared/store/intents.ts';
import * as keys from '#shared/store/keys.ts';
import { getLink } from '#shared/store/payment-links.ts';
import { Gateway } from '../../sdk/node/src/client.ts';
import { configureLiveProviders } from '#shared/providers/live/index.ts';
import { setStatus } from '#shared/services/merchants.ts';
import { getPage, postForm } from '../support/checkout.ts';
import { checkResponse, findOperation } from '../support/contract.ts';
import { call, newMerchant, useGateway, type TestMerchant } from '../support/gateway.ts';
import { useEmulatedLive } from '../support/live.ts';
import { readForms } from '../../scripts/emulators/common.ts';

const card = (number: string) => ({ name: 'Ayesha Khan', number, expiry: '12/39', cvc: '123' });

describe('payment links', () => {
  const gw = useGateway(routeList);
  const create = (m: TestMerchant, body: Record<string, unknown>, headers: Record<string, string> = {}) =>
    call(gw.baseUrl, 'POST', '/Gateway/v1/PaymentLinks', { key: m.test.apiKey, secret: m.test.secretKey, body, headers });
  const get = (m: TestMerchant, path: string) => call(gw.baseUrl, 'GET', `/Gateway/v1${path}`, { key: m.test.apiKey });
  const post = (m: TestMerchant, path: string) =>
    call(gw.baseUrl, 'POST', `/Gateway/v1${path}`, { key: m.test.apiKey, secret: m.test.secretKey, body: {} });
  const newLink = async (m: TestMerchant, body: Record<string, unknown>) => {
    const r = await create(m, { description: 'Blue shirt', ...body });
    expect(r.status, r.text).toBe(201);
    return r.json as { id: string; url: string } & Record<string, unknown>;
  };
  /** The customer opens the link's page and continues: the response of the form post. */
  const continueToPay = async (linkId: string, fields: Record<string, string> = {}) => {
    const page = await getPage(gw.baseUrl, `/l/${linkId}`);
    expect(page.status, page.html).toBe(200);
    return postForm(gw.baseUrl, `/l/${linkId}`, { csrf: page.csrf!, ...fields });
  };
  const sessionOf = (location: string | null) => {
    const match = /^\.\.\/pay\/([0-9a-f-]{36})$/.exec(location ?? '');
    expect(match, `location ${location}`).not.toBeNull();
    return match![1]!;
  };
  const payByCard = async (paymentIntentId: string, number = '4242424242424242') => {
    const page = await getPage(gw.baseUrl, `/pay/${paymentIntentId}`);
    return postForm(gw.baseUrl, `/pay/${paymentIntentId}/card`, { csrf: page.csrf!, ...card(number) });
  };

  describe('the API', () => {
    it('creates a fixed-amount link, reads it back and lists links with cursor paging', async () => {
      const m = await newMerchant();
      const r = await create(m, {
        amount: 1500,
        currency: 'PKR',
        description: 'Blue shirt',
        maxQuantity: 5,
        maxPayments: 10,
        collect: ['name', 'phone'],
        returnUrl: 'https://merchant.example.com/thanks',
      });
      expect(r.status, r.text).toBe(201);
      expect(r.json).toMatchObject({
        id: expect.stringMatching(/^pl_[0-9a-f]{24}$/),
        status: 'active',
        active: true,
        isLive: false,
        amount: 1500,
        minAmount: null,
        maxQuantity: 5,
        maxPayments: 10,
        collect: ['name', 'phone'],
        paymentCount: 0,
        pendingCount: 0,
        totalAmount: 0,
        remainingUses: 10,
      });
      expect(new URL(r.json.url).pathname).toBe(`/l/${r.json.id}`);
      expect((await get(m, `/PaymentLinks/${r.json.id}`)).json).toEqual(r.json);

      const second = await newLink(m, { minAmount: 100, maxAmount: 5000 });
      const third = await newLink(m, { amount: 20 });
      const first = await get(m, '/PaymentLinks?limit=2');
      expect(first.json.items.map((l: { id: string }) => l.id)).toEqual([third.id, second.id]);
      expect(first.json.hasMore).toBe(true);
      const next = await get(m, `/PaymentLinks?limit=2&startingAfter=${second.id}`);
      expect(next.json).toMatchObject({ items: [{ id: r.json.id }], hasMore: false });

      // Another merchant sees none of them: 404 by id, a 400 cursor, an empty list.
      const other = await newMerchant();
      expect((await get(other, `/PaymentLinks/${r.json.id}`)).status).toBe(404);
      expect((await get(other, `/PaymentLinks?startingAfter=${r.json.id}`)).status).toBe(400);
      expect((await get(other, '/PaymentLinks')).json).toEqual({ items: [], hasMore: false });
    });

    it('the SDK creates, reads, deactivates, reactivates and pages through links, typed', async () => {
      const m = await newMerchant();
      const sdk = new Gateway({ apiKey: m.test.apiKey, secretKey: m.test.secretKey, baseUrl: gw.baseUrl });
      const link = await sdk.paymentLinks.create({ minAmount: 100, maxAmount: 900, description: 'Donation', collect: ['email'] });
      expect(link).toMatchObject({ minAmount: 100, maxAmount: 900, status: 'active' });
      await sdk.paymentLinks.create({ amount: 50, description: 'Sticker' });
      expect((await sdk.paymentLinks.deactivate(link.id)).status).toBe('inactive');
      expect((await sdk.paymentLinks.retrieve(link.id)).active).toBe(false);
      expect((await sdk.paymentLinks.reactivate(link.id)).status).toBe('active');
      const ids: string[] = [];
      for await (const l of sdk.paymentLinks.all({ limit: 1 })) ids.push(l.id);
      expect(ids).toHaveLength(2);
      expect(ids[1]).toBe(link.id);
    });

    it('replays a create with the same Idempotency-Key instead of making a second link', async () => {
      const m = await newMerchant();
      const headers = { 'Idempotency-Key': `link-${Date.now()}` };
      const a = await create(m, { amount: 500, description: 'Tickets' }, headers);
      const b = await create(m, { amount: 500, description: 'Tickets' }, headers);
      expect(b.status).toBe(201);
      expect(b.headers.get('idempotent-replayed')).toBe('true');
      expect(b.json.id).toBe(a.json.id);
      expect((await get(m, '/PaymentLinks')).json.items).toHaveLength(1);
    });

    it('refuses bad input with a problem naming the field, creating nothing', async () => {
      const m = await newMerchant();
      const missing = await create(m, { amount: 1500 });
      expect(missing.status).toBe(400);
      expect(missing.json.errors).toMatchObject({ description: ['required'] });
      const both = await create(m, { amount: 1500, minAmount: 100, maxAmount: 200, description: 'X' });
      expect(both.status).toBe(400);
      expect(both.json.errors.amount).toBeDefined();
      const half = await create(m, { minAmount: 100, description: 'X' });
      expect(half.json.errors).toMatchObject({ maxAmount: ['required'] });
      expect((await create(m, { description: 'X' })).json.errors.amount[0]).toMatch(/^required/);
      expect((await create(m, { amount: 1500, description: 'No-dashes!' })).status).toBe(400);
      expect((await create(m, { amount: 1500, description: 'X', maxQuantity: 1000 })).json.errors.maxQuantity).toBeDefined();
      expect((await create(m, { amount: 1500, description: 'X', collect: ['cnic'] })).status).toBe(400);
      expect((await create(m, { amount: 1500, description: 'X', surprise: 1 })).json.code).toBe('unknown_parameter');
      expect((await create(m, { amount: 10, description: 'X' })).json).toMatchObject({ status: 422, code: 'amount_below_minimum' });
      expect((await create(m, { minAmount: 500, maxAmount: 100, description: 'X' })).status).toBe(422);
      expect((await create(m, { amount: 15.555, description: 'X' })).status).toBe(400);
      const past = await create(m, { amount: 1500, description: 'X', expiresAt: '2020-01-01T00:00:00Z' });
      expect(past.json).toMatchObject({ status: 422, code: 'expiry_in_past' });
      expect((await get(m, '/PaymentLinks/pl_nothex')).status).toBe(400);
      expect((await get(m, `/PaymentLinks/pl_${'0'.repeat(24)}`)).status).toBe(404);
      expect((await get(m, '/PaymentLinks')).json.items).toEqual([]);
    });
  });

  describe("the customer's page", () => {
    it('pays a quantity by card on the hosted checkout: a checkout of the merchant with a generated orderRef and the link id', async () => {
      const m = await newMerchant();
      const returnUrl = 'https://shop.example.com/thanks?from=link';
      const link = await newLink(m, { amount: 1500, maxQuantity: 3, maxPayments: 5, collect: ['name', 'email', 'address'], returnUrl });
      const page = await getPage(gw.baseUrl, `/l/${link.id}`);
      expect(page.headers.get('cache-control')).toBe('no-store');
      expect(page.html).toContain('PKR 1,500.00');
      expect(page.html).toMatch(/<label for="quantity">Quantity<\/label>/);
      // The quantity starts at 1 (the field is required: a customer buying one need not type it).
      expect(page.html).toMatch(/<input id="quantity" name="quantity" value="1" required/);
      expect(page.html).toMatch(/<input id="address" name="address" value="" required type="text" autocomplete="street-address"/);
      expect(page.html).toMatch(/autocomplete="email"/);
      expect(page.html.match(/<button type="submit"/g)).toHaveLength(1);

      const address = 'House 12, Street 4, Gulberg III, Lahore';
      const posted = await continueToPay(link.id, { quantity: '2', name: 'Ayesha Khan', email: 'ayesha@example.com', address });
      expect(posted.status, posted.html).toBe(303);
      const id = sessionOf(posted.location);
      const intent = (await getIntent(id))!;
      expect(intent).toMatchObject({
        merchantId: m.merchantId,
        intentType: 'checkout',
        status: 'Pending',
        amountMinor: 3000_00,
        description: 'Blue shirt',
        customerRef: { name: 'Ayesha Khan', email: 'ayesha@example.com', shippingAddress: address },
      });
      expect(intent.orderRef.orderRef).toMatch(/^PL[0-9a-f]{32}$/);
      expect(JSON.parse(intent.metadataJson!)).toEqual({ paymentLinkId: link.id, quantity: 2 });
      // Continuing opens a session and holds none of the link's uses: only a payment attempt does (payment-links-uses.test.ts).
      expect((await get(m, `/PaymentLinks/${link.id}`)).json).toMatchObject({ pendingCount: 0, remainingUses: 5, paymentCount: 0 });

      // The decline retry of the hosted checkout applies: a declined card, then a good one.
      expect((await payByCard(id, '4000000000000002')).status).toBe(303);
      expect((await getIntent(id))!.status).toBe('Pending');
      const paid = await payByCard(id);
      expect(paid.status).toBe(303);
      expect((await getIntent(id))!.status).toBe('Completed');
      // The customer goes back to the link's returnUrl, told which payment and how it ended.
      const back = new URL(paid.location!);
      expect(`${back.origin}${back.pathname}`).toBe('https://shop.example.com/thanks');
      expect(Object.fromEntries(back.searchParams)).toMatchObject({ from: 'link', paymentIntentId: id, status: 'Completed' });
      expect((await listEvents(id)).map((e) => e.event.type)).toEqual(['TransactionStatusChanged']);
      const lookup = await get(m, `/Transaction/by-ref/${intent.orderRef.orderRef}`);
      expect(lookup.json).toMatchObject({ status: 'Completed', amount: 3000, metadataJson: intent.metadataJson });
      expect((await get(m, `/PaymentLinks/${link.id}`)).json).toMatchObject({
        paymentCount: 1,
        pendingCount: 0,
        totalAmount: 3000,
        remainingUses: 4,
      });
    });

    it('takes an amount within min and max; refuses one outside, a tampered quantity and missing details', async () => {
      const m = await newMerchant();
      const link = await newLink(m, { minAmount: 100, maxAmount: 5000, collect: ['phone'] });
      const page = await getPage(gw.baseUrl, `/l/${link.id}`);
      const tries: [Record<string, string>, RegExp][] = [
        [{ amount: '99.99', phone: '03001234567' }, /The amount must be from PKR 100.00 to PKR 5,000.00\./],
        [{ amount: '5000.01', phone: '03001234567' }, /The amount must be from PKR 100.00 to PKR 5,000.00\./],
        [{ amount: '12.345', phone: '03001234567' }, /at most 2 decimal places/],
        [{ amount: 'lots', phone: '03001234567' }, /Enter the amount as a number/],
        [{ amount: '', phone: '03001234567' }, /Enter an amount from PKR 100.00 to PKR 5,000.00\./],
        [{ amount: '150', quantity: '2', phone: '03001234567' }, /The quantity is 1/],
        [{ amount: '150', phone: '' }, /Enter your phone number/],
      ];
      for (const [fields, message] of tries) {
        const r = await postForm(gw.baseUrl, `/l/${link.id}`, { csrf: page.csrf!, ...fields });
        expect(r.status, JSON.stringify(fields)).toBe(400);
        expect(r.html).toMatch(message);
        if (!fields.quantity) expect(r.html).toContain('aria-invalid="true"');
      }
      const fixed = await newLink(m, { amount: 1500, maxQuantity: 3 });
      for (const quantity of ['4', '0', '-1', '2.5', '1e3']) {
        const r = await continueToPay(fixed.id, { quantity });
        expect(r.status, quantity).toBe(400);
        expect(r.html).toMatch(/Choose a quantity from 1 to 3/);
      }
      const ok = await continueToPay(link.id, { amount: '1,250.50', phone: '03001234567' });
      expect(ok.status, ok.html).toBe(303);
      expect((await getIntent(sessionOf(ok.location)))!.amountMinor).toBe(1250_50);
      expect((await get(m, `/PaymentLinks/${link.id}`)).json).toMatchObject({ pendingCount: 0, paymentCount: 0 });
      expect((await getLink(fixed.id))!.usesHeld).toBe(0);
    });

    it('gives the use back when the paying session ends unpaid (cancelled), so the next customer can pay', async () => {
      const m = await newMerchant();
      const link = await newLink(m, { amount: 1500, maxPayments: 1 });
      const first = sessionOf((await continueToPay(link.id)).location);
      const payPage = await getPage(gw.baseUrl, `/pay/${first}`);
      // A wallet charge started: the attempt holds the only use.
      const wallet = await postForm(gw.baseUrl, `/pay/${first}/wallet`, {
        csrf: payPage.csrf!,
        provider: '1',
        mobileNumber: '03001234444',
      });
      expect(wallet.status, wallet.html).toBe(303);
      expect((await get(m, `/PaymentLinks/${link.id}`)).json).toMatchObject({ status: 'used_up', remainingUses: 0, pendingCount: 1 });
      const refused = await getPage(gw.baseUrl, `/l/${link.id}`);
      expect(refused.status).toBe(410);
      expect(refused.html).toContain('being made by another customer');
      expect(refused.html).not.toContain('<form');

      expect((await postForm(gw.baseUrl, `/pay/${first}/cancel`, { csrf: payPage.csrf! })).status).toBe(303);
      expect((await getIntent(first))!.status).toBe('Cancelled');
      expect((await get(m, `/PaymentLinks/${link.id}`)).json).toMatchObject({ status: 'active', remainingUses: 1, pendingCount: 0 });
      const second = sessionOf((await continueToPay(link.id)).location);
      expect((await payByCard(second)).status).toBe(303);
      expect((await get(m, `/PaymentLinks/${link.id}`)).json).toMatchObject({ status: 'used_up', paymentCount: 1, remainingUses: 0 });
      const paidUp = await getPage(gw.baseUrl, `/l/${link.id}`);
      expect(paidUp.status).toBe(410);
      expect(paidUp.html).toContain('reached its limit of payments');
    });

    it('customers racing to pay for the last use: exactly one pays, the others are told the link reached its limit', async () => {
      const m = await newMerchant();
      for (let round = 0; round < 4; round++) {
        const link = await newLink(m, { amount: 1500, maxPayments: 1 });
        const pages = await Promise.all([0, 1, 2].map(() => getPage(gw.baseUrl, `/l/${link.id}`)));
        const posts = await Promise.all(pages.map((p) => postForm(gw.baseUrl, `/l/${link.id}`, { csrf: p.csrf! })));
        expect(posts.map((p) => p.status)).toEqual([303, 303, 303]);
        const paid = await Promise.all(posts.map((p) => payByCard(sessionOf(p.location))));
        const won = paid.filter((p) => p.status === 303);
        const lost = paid.filter((p) => p.status !== 303);
        expect(won).toHaveLength(1);
        expect(lost.map((p) => p.status)).toEqual([422, 422]);
        for (const p of lost) expect(p.html).toContain('reached its limit of payments');
        expect((await get(m, `/PaymentLinks/${link.id}`)).json).toMatchObject({ paymentCount: 1, pendingCount: 0, remainingUses: 0 });
      }
      const all = await get(m, '/Transactions?limit=100');
      expect(all.json.items.filter((t: { status: string }) => t.status === 'Completed')).toHaveLength(4);
    });

    it('a deactivated or expired link takes no payment; reactivation restores it; unknown ids are 404', async () => {
      const m = await newMerchant();
      const link = await newLink(m, { amount: 1500 });
      const page = await getPage(gw.baseUrl, `/l/${link.id}`);
      const off = await post(m, `/PaymentLinks/${link.id}/deactivate`);
      expect(off.json).toMatchObject({ active: false, status: 'inactive' });
      const refused = await postForm(gw.baseUrl, `/l/${link.id}`, { csrf: page.csrf! });
      expect(refused.status).toBe(410);
      expect(refused.html).toContain('deactivated');
      expect((await getPage(gw.baseUrl, `/l/${link.id}`)).status).toBe(410);
      expect((await get(m, '/Transactions')).json.items).toEqual([]);
      expect((await post(m, `/PaymentLinks/${link.id}/reactivate`)).json).toMatchObject({ active: true, status: 'active' });
      expect((await continueToPay(link.id)).status).toBe(303);

      await db().send(
        new UpdateItemCommand({
          TableName: tableName(),
          Key: toItem(keys.paymentLink(link.id)),
          UpdateExpression: 'SET expiresAt = :past',
          ExpressionAttributeValues: toValues({ ':past': new Date(Date.now() - 1_000).toISOString() }),
        }),
      );
      const expired = await postForm(gw.baseUrl, `/l/${link.id}`, { csrf: page.csrf! });
      expect(expired.status).toBe(410);
      expect(expired.html).toContain('expired');
      expect((await get(m, `/PaymentLinks/${link.id}`)).json).toMatchObject({ status: 'expired', active: true });

      expect((await getPage(gw.baseUrl, `/l/pl_${'0'.repeat(24)}`)).status).toBe(404);
      expect((await getPage(gw.baseUrl, '/l/nonsense')).status).toBe(404);
      const other = await newMerchant();
      expect((await post(other, `/PaymentLinks/${link.id}/deactivate`)).status).toBe(404);
    });
  });

  it("a suspended merchant's link shows so and takes no payment until the merchant is active again", async () => {
    const m = await newMerchant();
    const link = await newLink(m, { amount: 1500 });
    const page = await getPage(gw.baseUrl, `/l/${link.id}`);
    await setStatus(m.merchantId, 'suspended');
    try {
      const shown = await getPage(gw.baseUrl, `/l/${link.id}`);
      expect(shown.status).toBe(410);
      expect(shown.html).toContain('not accepting payments');
      const refused = await postForm(gw.baseUrl, `/l/${link.id}`, { csrf: page.csrf! });
      expect(refused.status).toBe(410);
      expect(refused.html).not.toContain('<form');
      expect((await getLink(link.id))!.usesHeld).toBe(0);
    } finally {
      await setStatus(m.merchantId, 'active');
    }
    expect((await continueToPay(link.id)).status).toBe(303);
  });

  describe('live mode', () => {
    const live = useEmulatedLive(gw);
    const liveCreate = (m: TestMerchant, body: Record<string, unknown>) =>
      call(gw.baseUrl, 'POST', '/Gateway/v1/PaymentLinks', { key: m.live.apiKey, secret: m.live.secretKey, body });

    it('a live key makes a live link (no test badge, live checkouts) that test keys never see; none without a provider', async () => {
      const m = await live.merchant('Live Shirts');
      configureLiveProviders(undefined);
      const refused = await liveCreate(m, { amount: 1500, description: 'Blue shirt' });
      expect(refused.json).toMatchObject({ status: 422, code: 'provider_unavailable' });
      configureLiveProviders(live.providers.config);

      const created = await liveCreate(m, { amount: 1500, description: 'Blue shirt' });
      expect(created.status, created.text).toBe(201);
      expect(created.json).toMatchObject({ isLive: true, status: 'active' });
      const testLink = await newLink(m, { amount: 700 });
      const liveList = await call(gw.baseUrl, 'GET', '/Gateway/v1/PaymentLinks', { key: m.live.apiKey });
      expect(liveList.json.items.map((l: { id: string }) => l.id)).toEqual([created.json.id]);
      expect((await get(m, '/PaymentLinks')).json.items.map((l: { id: string }) => l.id)).toEqual([testLink.id]);
      expect((await get(m, `/PaymentLinks/${created.json.id}`)).status).toBe(404);

      const page = await getPage(gw.baseUrl, `/l/${created.json.id}`);
      expect(page.html).not.toContain('Test mode');
      expect((await getPage(gw.baseUrl, `/l/${testLink.id}`)).html).toContain('Test mode');
      const id = sessionOf((await postForm(gw.baseUrl, `/l/${created.json.id}`, { csrf: page.csrf! })).location);
      expect(await getIntent(id)).toMatchObject({ mode: 'live', merchantId: m.merchantId, amountMinor: 1500_00, status: 'Pending' });
      const lookup = await call(gw.baseUrl, 'GET', `/Gateway/v1/Transactions?paymentLinkId=${created.json.id}`, { key: m.live.apiKey });
      expect(lookup.json.items.map((t: { paymentIntentId: string }) => t.paymentIntentId)).toEqual([id]);
    });
  });

  describe('live mode: a card attempt holds the use from its 3-D Secure challenge', () => {
    const live = useEmulatedLive(gw);
    const postUrl = async (url: string, fields: Record<string, string>, headers: Record<string, string> = {}) => {
      const response = await fetch(url, {
        method: 'POST',
        redirect: 'manual',
        headers: { 'Content-Type': 'application/x-www-form-urlencoded', ...headers },
        body: new URLSearchParams(fields).toString(),
      });
      return { status: response.status, html: await response.text() };
    };
    const submitCard = async (id: string, number: string) => {
      const page = await getPage(gw.baseUrl, `/pay/${id}`);
      return postForm(gw.baseUrl, `/pay/${id}/card`, { csrf: page.csrf!, name: 'Ayesha Khan', number, expiry: '12/34', cvc: '123' });
    };
    /** The customer on the issuer's challenge page: passes or fails it, and the issuer's page posts back to the gateway. */
    const answerChallenge = async (id: string, decision: 'pass' | 'fail') => {
      const verify = await getPage(gw.baseUrl, `/pay/${id}`);
      const toBank = readForms(verify.html).find((f) => f.action.startsWith(live.providers.jazzcash.url))!;
      const acs = await postUrl(toBank.action, toBank.fields);
      const choice = readForms(acs.html).find((f) => f.fields.decision === decision)!;
      const back = await postUrl(new URL(choice.action, live.providers.jazzcash.url).toString(), choice.fields);
      const ret = readForms(back.html)[0]!;
      return postUrl(`${gw.baseUrl}${new URL(ret.action).pathname}`, ret.fields, { 'Sec-Fetch-Site': 'cross-site' });
    };

    it('the challenge holds the only use; a failed one gives it back; the paid one keeps it; no provider call once used up', async () => {
      const m = await live.merchant('Live Link Cards');
      const liveView = async (id: string) => (await call(gw.baseUrl, 'GET', `/Gateway/v1/PaymentLinks/${id}`, { key: m.live.apiKey })).json;
      const created = await call(gw.baseUrl, 'POST', '/Gateway/v1/PaymentLinks', {
        key: m.live.apiKey,
        secret: m.live.secretKey,
        body: { amount: 2500, description: 'Blue shirt', maxPayments: 1 },
      });
      expect(created.status, created.text).toBe(201);
      const linkId = created.json.id as string;
      const [a, b] = [sessionOf((await continueToPay(linkId)).location), sessionOf((await continueToPay(linkId)).location)];
      expect(await liveView(linkId)).toMatchObject({ remainingUses: 1, pendingCount: 0 });

      expect((await submitCard(a, '5123 4567 8901 2346')).status).toBe(303);
      expect((await getIntent(a))!.details).toMatchObject({ linkUseHeld: true, cardAuth: { stage: 'challenge' } });
      expect(await liveView(linkId)).toMatchObject({ status: 'used_up', remainingUses: 0, pendingCount: 1 });
      const enrolments = live.providers.jazzcash.cards.size;
      const busy = await submitCard(b, '4111 1111 1111 1111');
      expect(busy.status).toBe(422);
      expect(busy.html).toContain('being made by another customer');
      expect(live.providers.jazzcash.cards.size).toBe(enrolments); // the provider was never asked

      expect((await answerChallenge(a, 'fail')).status).toBe(303);
      expect((await getIntent(a))!).toMatchObject({ status: 'Pending', details: { linkUseHeld: false, cardAuth: null } });
      expect(await liveView(linkId)).toMatchObject({ status: 'active', remainingUses: 1, pendingCount: 0 });

      expect((await submitCard(b, '4111 1111 1111 1111')).status).toBe(303);
      expect((await answerChallenge(b, 'pass')).status).toBe(303);
      expect((await getIntent(b))!.status).toBe('Completed');
      expect(await liveView(linkId)).toMatchObject({ status: 'used_up', remainingUses: 0, pendingCount: 0, paymentCount: 1 });
      const usedUp = await submitCard(a, '4111 1111 1111 1111');
      expect(usedUp.status).toBe(422);
      expect(usedUp.html).toContain('reached its limit of payments');
      expect(live.providers.jazzcash.cards.size).toBe(enrolments + 1); // B's card only
    });
  });

  describe("a link's payments", () => {
    it('the API and the SDK list them page by page (Transactions?paymentLinkId=); other links, filters, cursors refused', async () => {
      const m = await newMerchant();
      const link = await newLink(m, { minAmount: 100, maxAmount: 900 });
      const other = await newLink(m, { amount: 500 });
      const made: string[] = [];
      for (const amount of ['101', '102', '103']) made.unshift(sessionOf((await continueToPay(link.id, { amount })).location));
      const elsewhere = sessionOf((await continueToPay(other.id)).location);
      await payByCard(made[0]!);

      const first = await get(m, `/Transactions?paymentLinkId=${link.id}&limit=2`);
      expect(first.status, first.text).toBe(200);
      expect(first.json.items.map((t: { paymentIntentId: string }) => t.paymentIntentId)).toEqual(made.slice(0, 2));
      expect(first.json.items[0]).toMatchObject({ status: 'Completed', amount: 103 });
      expect(first.json.hasMore).toBe(true);
      const next = await get(m, `/Transactions?paymentLinkId=${link.id}&limit=2&startingAfter=${made[1]}`);
      expect(next.json).toMatchObject({ items: [{ paymentIntentId: made[2], amount: 101, status: 'Pending' }], hasMore: false });

      const sdk = new Gateway({ apiKey: m.test.apiKey, secretKey: m.test.secretKey, baseUrl: gw.baseUrl });
      const ids: string[] = [];
      for await (const t of sdk.transactions.all({ paymentLinkId: link.id, limit: 1 })) ids.push(t.paymentIntentId);
      expect(ids).toEqual(made);

      // A payment of another link is no cursor here; other filters do not combine; another merchant's link is not found.
      const wrongCursor = await get(m, `/Transactions?paymentLinkId=${link.id}&startingAfter=${elsewhere}`);
      expect(wrongCursor.status).toBe(400);
      expect(wrongCursor.json.errors).toHaveProperty(['query.startingAfter']);
      const combined = await get(m, `/Transactions?paymentLinkId=${link.id}&status=Completed`);
      expect(combined.status).toBe(400);
      expect(combined.json.errors).toHaveProperty(['query.status']);
      expect((await get(m, '/Transactions?paymentLinkId=pl_nothex')).status).toBe(400);
      expect((await get(await newMerchant(), `/Transactions?paymentLinkId=${link.id}`)).status).toBe(404);
    });
  });

  describe('the QR code', () => {
    it('encodes the short URL as SVG and PNG; an unknown link or format is a 4xx', async () => {
      const m = await newMerchant();
      const link = await newLink(m, { amount: 1500 });
      const svg = await fetch(`${gw.baseUrl}/l/${link.id}/qr`);
      expect(svg.status).toBe(200);
      expect(svg.headers.get('content-type')).toBe('image/svg+xml');
      expect(svg.headers.get('cache-control')).toBe('public, max-age=86400');
      const markup = await svg.text();
      expect(markup).toMatch(/^<svg xmlns="http:\/\/www.w3.org\/2000\/svg"/);
      expect(markup).toContain('<path');
      const pngUrl = new URL((link.qrCode as { png: string }).png);
      const png = await fetch(`${gw.baseUrl}${pngUrl.pathname}${pngUrl.search}`);
      expect(png.status).toBe(200);
      expect(png.headers.get('content-type')).toBe('image/png');
      const bytes = Buffer.from(await png.arrayBuffer());
      expect(bytes.subarray(0, 8).toString('hex')).toBe('89504e470d0a1a0a'); // the PNG signature
      expect(bytes.readUInt32BE(16)).toBe(512); // IHDR width
      // Both images are the QR code of the link's short URL (error correction M, a 2-module margin).
      const options = { errorCorrectionLevel: 'M', margin: 2 } as const;
      expect(bytes.equals(await QRCode.toBuffer(link.url, { ...options, type: 'png', width: 512 }))).toBe(true);
      expect(markup).toBe(await QRCode.toString(link.url, { ...options, type: 'svg' }));
      const gif = await fetch(`${gw.baseUrl}/l/${link.id}/qr?format=gif`);
      expect(gif.status).toBe(400);
      const unknown = await fetch(`${gw.baseUrl}/l/pl_${'0'.repeat(24)}/qr`);
      expect(unknown.status).toBe(404);
      expect((await fetch(`${gw.baseUrl}/l/nonsense/qr?format=png`)).status).toBe(404);
      // The OpenAPI document names what the route answers: an SVG or PNG image, problem+json errors.
      const path = `/l/${link.id}/qr`;
      checkResponse('GET', path, 200, svg.headers.get('content-type'), markup);
      checkResponse('GET', `${path}?format=png`, 200, png.headers.get('content-type'), 'png');
      checkResponse('GET', `${path}?format=gif`, 400, gif.headers.get('content-type'), await gif.text());
      checkResponse('GET', `/l/pl_${'0'.repeat(24)}/qr`, 404, unknown.headers.get('content-type'), await unknown.text());
      const documented = findOperation('GET', path)!.operation.responses['200'].content;
      expect(Object.keys(documented)).toEqual(['image/svg+xml', 'image/png']);
    });
  });
});
