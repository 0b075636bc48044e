import { UpdateItemCommand } from '@aws-sdk/client-dynamodb';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { routeList } from '#functions/routes.ts';
import { linkUseHoldMs } from '#shared/domain/checkout.ts';
import { db, tableName, toItem, toValues } from '#shared/store/client.ts';
import { getIntent, listEvents } from '#shared/store/intents.ts';
import * as keys from '#shared/store/keys.ts';
import { getLink } from '#shared/store/payment-links.ts';
import { getWallet } from '#shared/store/wallets.ts';
import { getPage, postForm } from '../support/checkout.ts';
import { call, newMerchant, useGateway, type TestMerchant } from '../support/gateway.ts';
import { sweepIntentsOf } from '../support/sweeps.ts';

/**
 * docs/payment-links.md, Payment limits: a link's use is held by a payment attempt (a card
 * submitted, a wallet charge started), never by a checkout session nobody paid into, so anonymous
 * "Continue" posts cannot use a link up; the attempt's end gives it back or, paid, keeps it.
 */
const card = (number: string) => ({ name: 'Ayesha Khan', number, expiry: '12/39', cvc: '123' });
const later = (ms: number) => new Date(Date.now() + ms);
const sweep = (m: TestMerchant, at: Date) => sweepIntentsOf(at, m.merchantId); // over its intents' due partitions (test/support/sweeps.ts)
const limitReached = 'reached its limit of payments';
const busy = 'being made by another customer';

describe('payment link uses', () => {
  const gw = useGateway(routeList);
  // The sandbox handset answers 3 s after the prompt by the real clock: only Date is frozen, sweeps move past it (checkout.test.ts).
  beforeEach(() => {
    vi.useFakeTimers({ toFake: ['Date'], now: Date.now() });
  });
  afterEach(() => {
    vi.useRealTimers();
  });

  const newLink = async (m: TestMerchant, body: Record<string, unknown>) => {
    const r = await call(gw.baseUrl, 'POST', '/Gateway/v1/PaymentLinks', {
      key: m.test.apiKey,
      secret: m.test.secretKey,
      body: { description: 'Blue shirt', amount: 1500, ...body },
    });
    expect(r.status, r.text).toBe(201);
    return r.json as { id: string };
  };
  const view = async (m: TestMerchant, linkId: string) =>
    (await call(gw.baseUrl, 'GET', `/Gateway/v1/PaymentLinks/${linkId}`, { key: m.test.apiKey })).json;
  /** An anonymous customer opens the link's page and presses "Continue": the session's id. */
  const openSession = async (linkId: string) => {
    const page = await getPage(gw.baseUrl, `/l/${linkId}`);
    const posted = await postForm(gw.baseUrl, `/l/${linkId}`, { csrf: page.csrf! });
    expect(posted.status, posted.html).toBe(303);
    return /^\.\.\/pay\/([0-9a-f-]{36})$/.exec(posted.location ?? '')![1]!;
  };
  const checkout = async (id: string) => ({ path: `/pay/${id}`, csrf: (await getPage(gw.baseUrl, `/pay/${id}`)).csrf! });
  const payByCard = async (id: string, number = '4242424242424242') => {
    const { path, csrf } = await checkout(id);
    return postForm(gw.baseUrl, `${path}/card`, { csrf, ...card(number) });
  };
  const startWallet = async (id: string, mobileNumber: string) => {
    const { path, csrf } = await checkout(id);
    return postForm(gw.baseUrl, `${path}/wallet`, { csrf, provider: '1', mobileNumber });
  };
  const enterOtp = async (id: string, otp = '123456') => {
    const { path, csrf } = await checkout(id);
    return postForm(gw.baseUrl, `${path}/otp`, { csrf, otp });
  };
  const held = async (id: string) => (await getIntent(id))!.details.linkUseHeld;

  it('anonymous "Continue" posts hold no use: a 3-use link opened 6 times still takes its 3 payments', async () => {
    const m = await newMerchant();
    const link = await newLink(m, { maxPayments: 3 });
    const sessions: string[] = [];
    for (let i = 0; i < 6; i++) sessions.push(await openSession(link.id));
    expect(await view(m, link.id)).toMatchObject({ status: 'active', remainingUses: 3, pendingCount: 0, paymentCount: 0 });
    expect((await getPage(gw.baseUrl, `/l/${link.id}`)).status).toBe(200);
    expect(await held(sessions[0]!)).toBe(false);

    for (const id of sessions.slice(0, 3)) expect((await payByCard(id)).status).toBe(303);
    expect(await view(m, link.id)).toMatchObject({ status: 'used_up', remainingUses: 0, pendingCount: 0, paymentCount: 3 });
    // The late payer of a session opened while uses were left: told so, nothing taken, the session still open.
    const late = await payByCard(sessions[3]!);
    expect(late.status).toBe(422);
    expect(late.html).toContain(limitReached);
    expect(late.html).toContain('No money was taken');
    expect((await getIntent(sessions[3]!))!.status).toBe('Pending');
    expect(await listEvents(sessions[3]!)).toEqual([]);
    expect((await getWallet(m.merchantId, 'test', 'PKR', true)).available).toBe(3 * (1500_00 - 37_50));
    const closed = await getPage(gw.baseUrl, `/l/${link.id}`);
    expect(closed.status).toBe(410);
    expect(closed.html).toContain(limitReached);
    expect((await getLink(link.id))!).toMatchObject({ usesHeld: 3, paidCount: 3, paidMinor: 3 * 1500_00 });
  });

  it('a wallet attempt holds the use while it is under way; a failed attempt gives it back; the payment keeps it', async () => {
    const m = await newMerchant();
    const link = await newLink(m, { maxPayments: 1 });
    const a = await openSession(link.id);
    const b = await openSession(link.id);

    expect((await startWallet(a, '03001230000')).status).toBe(303);
    expect(await held(a)).toBe(true);
    expect(await view(m, link.id)).toMatchObject({ status: 'used_up', remainingUses: 0, pendingCount: 1, paymentCount: 0 });
    // Meanwhile: no new session, and the other session's attempts are refused, clearly, before any provider is asked.
    const page = await getPage(gw.baseUrl, `/l/${link.id}`);
    expect(page.status).toBe(410);
    expect(page.html).toContain(busy);
    for (const refused of [await payByCard(b), await startWallet(b, '03001230000')]) {
      expect(refused.status).toBe(422);
      expect(refused.html).toContain(busy);
    }
    expect(await held(b)).toBe(false);
    expect((await getIntent(b))!.details.wallet).toBeUndefined();

    // Five wrong codes fail A's attempt: its use goes back, and A's session stays payable.
    for (let i = 0; i < 5; i++) await enterOtp(a, '000000');
    expect((await getIntent(a))!.status).toBe('Pending');
    expect(await held(a)).toBe(false);
    expect(await view(m, link.id)).toMatchObject({ status: 'active', remainingUses: 1, pendingCount: 0 });

    // B pays: the use is converted to a payment.
    expect((await startWallet(b, '03001230000')).status).toBe(303);
    expect((await enterOtp(b)).status).toBe(303);
    expect(await view(m, link.id)).toMatchObject({ remainingUses: 0, pendingCount: 1, paymentCount: 0 });
    await sweep(m, later(5_000));
    expect((await getIntent(b))!.status).toBe('Completed');
    expect(await view(m, link.id)).toMatchObject({ status: 'used_up', remainingUses: 0, pendingCount: 0, paymentCount: 1 });
    const tooLate = await payByCard(a);
    expect(tooLate.status).toBe(422);
    expect(tooLate.html).toContain(limitReached);
    expect((await getIntent(a))!.status).toBe('Pending');
  });

  it('declined, never-approved and refused attempts give the use back; an approved one keeps it', async () => {
    const m = await newMerchant();
    const link = await newLink(m, { maxPayments: 3 });
    const [declined, never, approved, refused] = [
      await openSession(link.id),
      await openSession(link.id),
      await openSession(link.id),
      await openSession(link.id),
    ];
    // Refused by the provider at request time (sandbox 2222: balance too low): the attempt never started.
    expect((await startWallet(refused!, '03001232222')).status).toBe(422);
    expect(await held(refused!)).toBe(false);
    expect(await view(m, link.id)).toMatchObject({ remainingUses: 3, pendingCount: 0 });

    for (const [id, number] of [
      [declined!, '03001231111'],
      [never!, '03001234444'],
      [approved!, '03001230000'],
    ] as const) {
      expect((await startWallet(id, number)).status).toBe(303);
      expect((await enterOtp(id)).status).toBe(303);
    }
    expect(await view(m, link.id)).toMatchObject({ status: 'used_up', remainingUses: 0, pendingCount: 3 });
    expect((await startWallet(refused!, '03001230000')).status).toBe(422); // all three uses are held

    await sweep(m, later(5_000)); // the handsets answer: one declines, one approves, one never answers
    expect((await getIntent(declined!))!).toMatchObject({ status: 'Pending', details: { linkUseHeld: false } });
    expect((await getIntent(approved!))!.status).toBe('Completed');
    expect(await view(m, link.id)).toMatchObject({ status: 'active', remainingUses: 1, pendingCount: 1, paymentCount: 1 });

    await sweep(m, later(31 * 60_000)); // the unanswered charge expires with its session
    expect((await getIntent(never!))!.status).toBe('Expired');
    expect(await view(m, link.id)).toMatchObject({ status: 'active', remainingUses: 2, pendingCount: 0, paymentCount: 1 });
    expect((await getLink(link.id))!).toMatchObject({ usesHeld: 1, paidCount: 1 });
  });

  it('racing attempts on many sessions never take more uses than the link has', async () => {
    const m = await newMerchant();
    // Cards: each attempt pays at once (sandbox), so exactly maxPayments of them are paid.
    const cards = await newLink(m, { maxPayments: 2 });
    const cardSessions = await Promise.all(Array.from({ length: 8 }, () => openSession(cards.id)));
    const paid = await Promise.all(cardSessions.map((id) => payByCard(id)));
    expect(paid.filter((r) => r.status === 303)).toHaveLength(2);
    for (const r of paid.filter((p) => p.status !== 303)) {
      expect(r.status).toBe(422);
      expect(r.html).toContain(limitReached);
    }
    const statuses = await Promise.all(cardSessions.map(async (id) => (await getIntent(id))!.status));
    expect(statuses.filter((s) => s === 'Completed')).toHaveLength(2);
    expect((await getLink(cards.id))!).toMatchObject({ usesHeld: 2, paidCount: 2 });
    expect((await getWallet(m.merchantId, 'test', 'PKR', true)).available).toBe(2 * (1500_00 - 37_50));

    // Wallets: exactly maxPayments charges start; the others are refused before the provider is asked.
    const wallets = await newLink(m, { maxPayments: 2 });
    const walletSessions = await Promise.all(Array.from({ length: 6 }, () => openSession(wallets.id)));
    const started = await Promise.all(walletSessions.map((id) => startWallet(id, '03001230000')));
    expect(started.filter((r) => r.status === 303)).toHaveLength(2);
    expect(started.filter((r) => r.status === 422)).toHaveLength(4);
    const details = await Promise.all(walletSessions.map(async (id) => (await getIntent(id))!.details));
    expect(details.filter((d) => d.wallet)).toHaveLength(2);
    expect(details.filter((d) => d.linkUseHeld === true)).toHaveLength(2);
    expect((await getLink(wallets.id))!).toMatchObject({ usesHeld: 2, paidCount: 0 });
  });

  it('a link without a limit counts the attempts under way and the payments all the same', async () => {
    const m = await newMerchant();
    const link = await newLink(m, {});
    const [paid, waiting] = [await openSession(link.id), await openSession(link.id)];
    expect((await payByCard(paid!)).status).toBe(303);
    expect((await startWallet(waiting!, '03001234444')).status).toBe(303);
    expect(await view(m, link.id)).toMatchObject({ status: 'active', remainingUses: null, pendingCount: 1, paymentCount: 1 });
    expect((await getLink(link.id))!).toMatchObject({ maxPayments: null, usesHeld: 2, paidCount: 1 });
  });

  it('an attempt left waiting for the customer gives its use back after linkUseHoldMs; a late code is then refused', async () => {
    const m = await newMerchant();
    const link = await newLink(m, { maxPayments: 1 });
    const a = await openSession(link.id);
    // A's wallet charge is started and its code never entered (the customer walked away): A holds the only use.
    expect((await startWallet(a, '03001230000')).status).toBe(303);
    expect((await getIntent(a))!.details.wallet).toMatchObject({ stage: 'otp' });
    expect(await view(m, link.id)).toMatchObject({ status: 'used_up', remainingUses: 0, pendingCount: 1 });
    expect((await getPage(gw.baseUrl, `/l/${link.id}`)).status).toBe(410);

    // Time moves on (the clock of the page and of the sweep): held at 9 minutes, given back once linkUseHoldMs has passed.
    vi.setSystemTime(Date.now() + linkUseHoldMs - 60_000);
    await sweep(m, new Date());
    expect(await held(a)).toBe(true);
    vi.setSystemTime(Date.now() + 61_000);
    await sweep(m, new Date());
    expect(await held(a)).toBe(false);
    expect((await getIntent(a))!).toMatchObject({ status: 'Pending', details: { wallet: { stage: 'otp' } } });
    expect(await view(m, link.id)).toMatchObject({ status: 'active', remainingUses: 1, pendingCount: 0, paymentCount: 0 });

    // Another customer takes the use and pays.
    const b = await openSession(link.id);
    expect((await payByCard(b)).status).toBe(303);
    expect((await getIntent(b))!.status).toBe('Completed');

    // A comes back and enters the code: no use is left, so the handset is never asked; nothing is taken.
    const late = await enterOtp(a);
    expect(late.status).toBe(422);
    expect(late.html).toContain(limitReached);
    expect((await getIntent(a))!).toMatchObject({ status: 'Pending', details: { linkUseHeld: false, wallet: { stage: 'otp' } } });
    vi.setSystemTime(Date.now() + 31 * 60_000);
    await sweep(m, new Date());
    expect((await getIntent(a))!.status).toBe('Expired');
    expect((await getLink(link.id))!).toMatchObject({ usesHeld: 1, paidCount: 1 });
    expect((await getWallet(m.merchantId, 'test', 'PKR', true)).available).toBe(1500_00 - 37_50);
  });

  it('a late code after the use went back takes a use again while one is left, and pays', async () => {
    const m = await newMerchant();
    const link = await newLink(m, { maxPayments: 1 });
    const a = await openSession(link.id);
    expect((await startWallet(a, '03001230000')).status).toBe(303);
    vi.setSystemTime(Date.now() + linkUseHoldMs + 1_000);
    await sweep(m, new Date());
    expect(await held(a)).toBe(false);
    expect((await enterOtp(a)).status).toBe(303);
    expect(await held(a)).toBe(true);
    expect(await view(m, link.id)).toMatchObject({ status: 'used_up', remainingUses: 0, pendingCount: 1 });
    vi.setSystemTime(Date.now() + 5_000);
    await sweep(m, new Date()); // the handset approves
    expect((await getIntent(a))!.status).toBe('Completed');
    expect((await getLink(link.id))!).toMatchObject({ usesHeld: 1, paidCount: 1 });
  });

  it('a session stored before uses were held per attempt keeps the use it took until it ends', async () => {
    const m = await newMerchant();
    const link = await newLink(m, { maxPayments: 2 });
    const id = await openSession(link.id);
    // As the previous release stored it: no linkUseHeld, and the link counted the session from its creation.
    await db().send(
      new UpdateItemCommand({
        TableName: tableName(),
        Key: toItem(keys.intent(id)),
        UpdateExpression: 'REMOVE details.linkUseHeld',
      }),
    );
    await db().send(
      new UpdateItemCommand({
        TableName: tableName(),
        Key: toItem(keys.paymentLink(link.id)),
        UpdateExpression: 'ADD usesHeld :one',
        ExpressionAttributeValues: toValues({ ':one': 1 }),
      }),
    );
    expect(await view(m, link.id)).toMatchObject({ remainingUses: 1, pendingCount: 1 });
    expect((await payByCard(id, '4000000000000002')).status).toBe(303); // declined: it still holds its use
    expect(await view(m, link.id)).toMatchObject({ remainingUses: 1, pendingCount: 1 });
    const { path, csrf } = await checkout(id);
    expect((await postForm(gw.baseUrl, `${path}/cancel`, { csrf })).status).toBe(303);
    expect((await getIntent(id))!.status).toBe('Failed');
    expect(await view(m, link.id)).toMatchObject({ remainingUses: 2, pendingCount: 0 });
  });
});

describe('a fixed price the largest payment cannot hold', () => {
  const gw = useGateway(routeList);
  const create = (m: TestMerchant, body: Record<string, unknown>) =>
    call(gw.baseUrl, 'POST', '/Gateway/v1/PaymentLinks', {
      key: m.test.apiKey,
      secret: m.test.secretKey,
      body: { description: 'Gold bar', ...body },
    });

  it('is refused at creation with a 400 naming maxQuantity; a quantity too large on an older link is a 400, not a 500', async () => {
    const m = await newMerchant();
    // PKR 50,000,000,000,000.00 is 5e15 paisa, a safe integer; two of them are not.
    const refused = await create(m, { amount: 50_000_000_000_000, maxQuantity: 2 });
    expect(refused.status, refused.text).toBe(400);
    expect(refused.json.detail).toMatch(/amount × maxQuantity must be at most PKR 90,071,992,547,409\.91/);
    expect(refused.json.errors).toEqual({ maxQuantity: [expect.stringContaining('amount × maxQuantity must be at most')] });
    const list = await call(gw.baseUrl, 'GET', '/Gateway/v1/PaymentLinks', { key: m.test.apiKey });
    expect(list.json.items).toEqual([]);
    expect((await create(m, { amount: 45_000_000_000_000, maxQuantity: 2 })).status).toBe(201);

    // A link stored before the rule: the page refuses the quantity instead of failing.
    const single = await create(m, { amount: 50_000_000_000_000 });
    expect(single.status, single.text).toBe(201);
    await db().send(
      new UpdateItemCommand({
        TableName: tableName(),
        Key: toItem(keys.paymentLink(single.json.id)),
        UpdateExpression: 'SET quantity = :q',
        ExpressionAttributeValues: toValues({ ':q': { max: 2 } }),
      }),
    );
    const page = await getPage(gw.baseUrl, `/l/${single.json.id}`);
    const posted = await postForm(gw.baseUrl, `/l/${single.json.id}`, { csrf: page.csrf!, quantity: '2' });
    expect(posted.status, posted.html).toBe(400);
    expect(posted.html).toContain('too large for one payment');
  });
});
