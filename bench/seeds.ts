import { randomUUID } from 'node:crypto';
import { routes } from '#functions/routes.ts';
import { seedCall } from './requests.ts';
import type { SampleContext, SampleMerchant } from './samples.ts';

/**
 * What the samples of bench/samples.ts stand on: the objects a route needs (a payment, a refund, a
 * settlement, a payout, a link, an event, a dashboard user and session), made the way a merchant or
 * a customer makes them, through the local API itself (`seedCall`: the same signed requests as the
 * samples) or, where no route makes them (a dashboard account, a wallet credit), through the service
 * an operator's tool calls. Seeding runs while a sample is built, so none of it is counted or timed.
 * `once` objects are made once per run and merchant; the others afresh for every request that
 * changes or uses them up (an approval, a sign-in, a resend).
 */
const made = new Map<string, Promise<unknown>>();
function once<T>(key: string, make: () => Promise<T>): Promise<T> {
  let value = made.get(key) as Promise<T> | undefined;
  if (!value) {
    value = make();
    made.set(key, value);
    value.catch(() => made.delete(key)); // a failed seed is tried again by the next request
  }
  return value;
}

/** A context for another merchant (seeding on the dashboard's merchant, a fresh one for a quota). */
export const as = (ctx: SampleContext, merchant: SampleMerchant): SampleContext => ({ ...ctx, merchant });

const orderRef = (prefix: string) => ({ orderRef: `${prefix}${Date.now()}${randomUUID().slice(0, 8)}` });

/** Test-mode money in the merchant's PKR wallet (the operator's credit; no route credits a wallet). */
export async function fund(merchant: SampleMerchant, amountMinor: number): Promise<void> {
  const { creditTestWallet } = await import('#shared/services/merchants.ts');
  await creditTestWallet(merchant.merchantId, 'test', amountMinor, 'PKR');
}

/** The merchant the dashboard samples sign in to: its own, so rolling its keys or changing its settings touches no other sample. */
function dashboardMerchant(): Promise<SampleMerchant> {
  return once('dashboard merchant', async () => {
    const { createMerchant } = await import('#shared/services/merchants.ts');
    // Webhooks to a receiver on 127.0.0.1 (nothing listens: the bench runs no dispatcher).
    return createMerchant({ name: 'Bench Dashboard Merchant', allowInsecureWebhooks: true });
  });
}

/**
 * A merchant for a route with an hourly per-merchant quota (resends: 300 an hour per merchant and
 * mode): a fresh one every `per` requests, so a long run measures the route, not its 429.
 */
export function quotaMerchant(name: string, iteration: number, per = 250): Promise<SampleMerchant> {
  return once(`quota ${name} ${Math.floor(iteration / per)}`, async () => {
    const { createMerchant } = await import('#shared/services/merchants.ts');
    return createMerchant({ name: `Bench ${name} ${Math.floor(iteration / per)}` });
  });
}

/** A Pending hosted checkout session (POST initiate-checkout): its paymentIntentId. */
export async function checkout(ctx: SampleContext, amount = 1500): Promise<string> {
  const created = await seedCall(ctx, 'initiateCheckout', {
    body: { amount, description: 'Bench checkout', orderRef: orderRef('BENCHSEED'), customerRef: { name: 'Bench Customer' } },
  });
  return created.paymentIntentId as string;
}

/** The hosted page's form token for a session (what its page renders). */
export async function checkoutCsrf(paymentIntentId: string): Promise<string> {
  const { formToken } = await import('#shared/crypto/form-token.ts');
  const { csrfSubject } = await import('#functions/pay/common.ts');
  return formToken(csrfSubject({ paymentIntentId }));
}

export const sandboxCard = { name: 'Bench Customer', number: '4242424242424242', expiry: '12/39', cvc: '123' };

/** A checkout the customer paid by the sandbox card on the hosted page: its paymentIntentId (one webhook event). */
async function paidCheckout(ctx: SampleContext, amount = 1500): Promise<string> {
  const paymentIntentId = await checkout(ctx, amount);
  await seedCall(ctx, 'checkoutCard', {
    pathParameters: { paymentIntentId },
    form: { csrf: await checkoutCsrf(paymentIntentId), ...sandboxCard },
    expectStatus: 303,
  });
  return paymentIntentId;
}

/**
 * The webhook event of a freshly paid checkout: its eventId, with the pointer the outbox relay
 * records for it (the bench runs no relay; the event routes find an event by that pointer).
 */
export async function freshEvent(ctx: SampleContext): Promise<string> {
  const paymentIntentId = await paidCheckout(ctx);
  const { listEvents } = await import('#shared/store/intents.ts');
  const { messageFromItem } = await import('#shared/webhooks/messages.ts');
  const { pointerOf, putEventPointers } = await import('#shared/store/webhooks.ts');
  const [stored] = await listEvents(paymentIntentId);
  const message = stored && messageFromItem(stored as unknown as Record<string, unknown>);
  if (!message) throw new Error(`no webhook event for ${paymentIntentId}`);
  await putEventPointers([pointerOf(message)]);
  return message.eventId;
}

/** One event per run and merchant, for the routes that only read it. */
export const event = (ctx: SampleContext) => once(`event ${ctx.merchant.merchantId}`, () => freshEvent(ctx));

/**
 * One large Completed payment per run and merchant (1,000,000.00 PKR, written as a completed
 * checkout is), so every refund sample has room: its orderRef and paymentIntentId.
 */
export function largePayment(merchant: SampleMerchant): Promise<{ orderRef: string; paymentIntentId: string }> {
  return once(`payment ${merchant.merchantId}`, async () => {
    const { transact } = await import('#shared/store/client.ts');
    const { createIntentWrites } = await import('#shared/store/intents.ts');
    const at = new Date().toISOString();
    const ref = orderRef('BENCHRFD').orderRef;
    const paymentIntentId = randomUUID();
    await transact(
      createIntentWrites({
        paymentIntentId,
        merchantId: merchant.merchantId,
        mode: 'test',
        intentType: 'checkout',
        status: 'Completed',
        amountMinor: 100_000_000,
        currency: 'PKR',
        feeMinor: 0,
        refundedMinor: 0,
        orderRef: { orderRef: ref },
        customerRef: null,
        description: 'Bench payment',
        metadataJson: null,
        callbackUrl: null,
        transactionReference: `TRXBENCH${Date.now()}`,
        reason: null,
        traceId: 'bench',
        createdAt: at,
        updatedAt: at,
        expiresAt: null,
        version: 1,
        details: {},
      }),
    );
    return { orderRef: ref, paymentIntentId };
  });
}

/** A Pending refund of 10.00 of the large payment (POST Refunds): its id. */
export async function freshRefund(ctx: SampleContext): Promise<string> {
  const { orderRef: trxnRef } = await largePayment(ctx.merchant);
  return (await seedCall(ctx, 'createRefund', { body: { trxnRef, amount: 10, reason: 'Bench refund' }, expectStatus: 201 })).id;
}
export const refund = (ctx: SampleContext) => once(`refund ${ctx.merchant.merchantId}`, () => freshRefund(ctx));

export const settlementBody = { amount: 1, currency: 'PKR', bankName: 'HBL', iban: 'PK36SCBL0000001123456702', accountTitle: 'Bench Ltd' };

/** A Pending bank settlement of 1.00 PKR, funded (POST Settlements): its id. */
export async function freshSettlement(ctx: SampleContext): Promise<string> {
  await fund(ctx.merchant, 1_00);
  return (await seedCall(ctx, 'createSettlement', { body: settlementBody })).id;
}
export const settlement = (ctx: SampleContext) => once(`settlement ${ctx.merchant.merchantId}`, () => freshSettlement(ctx));

/** A payout request of 300.00 PKR (the minimum) to a sandbox account, funded (POST withdraw); without auto-processing it waits
 * for approval. */
export function payoutBody(autoProcessPayout: boolean) {
  return {
    amount: 300,
    currency: 'PKR',
    description: 'Bench payout',
    autoProcessPayout,
    customerRef: { bankAccountNumber: 'PK36SCBL0000001123450000', bankCode: 'MEEZAN', accountTitle: 'Bench Customer' },
    orderRef: orderRef('BENCHWD'),
  };
}

/** A Pending manual payout (its paymentIntentId), for the approval samples. */
export async function freshPayout(ctx: SampleContext): Promise<string> {
  await fund(ctx.merchant, 313_00);
  return (await seedCall(ctx, 'withdraw', { body: payoutBody(false) })).paymentIntentId;
}

/** A fixed-price payment link of 15.00 (POST PaymentLinks): its id; `active: false` deactivates it. */
export async function freshLink(ctx: SampleContext, active = true): Promise<string> {
  const id = (await seedCall(ctx, 'createPaymentLink', { body: { amount: 15, description: 'Bench link' }, expectStatus: 201 }))
    .id as string;
  if (!active) await seedCall(ctx, 'deactivatePaymentLink', { pathParameters: { id } });
  return id;
}
export const link = (ctx: SampleContext) => once(`link ${ctx.merchant.merchantId}`, () => freshLink(ctx));

/** A wallet deposit whose sandbox number never approves on its own (…4444): the charge's provider reference. */
export async function pendingDeposit(ctx: SampleContext): Promise<string> {
  const created = await seedCall(ctx, 'deposit', {
    body: { mobileNumber: '03001234444', amount: 100, walletProvider: 1, description: 'Bench deposit', orderRef: orderRef('BENCHCB') },
  });
  return created.walletChargeInfo.transactionReference as string;
}

/**
 * The provider emulators (scripts/emulators) on 127.0.0.1 with the live adapters pointed at them, as
 * `LIVE_PROVIDERS=emulated npm start` runs: started at the first sample that needs a live provider
 * (the card return) and kept for the rest of the run (test-mode requests still use the sandbox).
 */
function emulatedLive(ctx: SampleContext) {
  return once('emulated live providers', async () => {
    const { startEmulatedProviders } = await import('../scripts/emulators/index.ts');
    const { configureLiveProviders } = await import('#shared/providers/live/index.ts');
    const providers = await startEmulatedProviders(ctx.baseUrl);
    configureLiveProviders(providers.config);
    return providers;
  });
}

/**
 * A live card payment waiting at its 3-D Secure challenge, played as the customer's browser does:
 * a live checkout, the card form (a challenge card), the page's form to the issuer (the JazzCash
 * emulator), its "Approve" button. Returns the session and the signed fields the issuer's page posts
 * back to /pay/{id}/card-return.
 */
export async function cardChallengePassed(ctx: SampleContext): Promise<{ paymentIntentId: string; fields: Record<string, string> }> {
  const live = await emulatedLive(ctx);
  const { readForms } = await import('../scripts/emulators/common.ts');
  const created = await seedCall(ctx, 'initiateCheckout', {
    mode: 'live',
    body: { amount: 1500, description: 'Bench card', orderRef: orderRef('BENCHLIVE'), customerRef: { name: 'Bench Customer' } },
  });
  const paymentIntentId = created.paymentIntentId as string;
  const csrf = await checkoutCsrf(paymentIntentId);
  const card = { ...sandboxCard, number: '4111111111111111' };
  await seedCall(ctx, 'checkoutCard', { pathParameters: { paymentIntentId }, form: { csrf, ...card }, expectStatus: 303 });
  const page: string = await seedCall(ctx, 'checkoutPage', { pathParameters: { paymentIntentId } });
  const post = async (url: string, fields: Record<string, string>) => {
    const response = await fetch(url, {
      method: 'POST',
      headers: { 'Content-Type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams(fields).toString(),
    });
    return response.text();
  };
  const toBank = readForms(page).find((f) => f.action.startsWith(live.jazzcash.url));
  if (!toBank) throw new Error(`no 3-D Secure challenge on the page of ${paymentIntentId}`);
  const choice = readForms(await post(toBank.action, toBank.fields)).find((f) => f.fields.decision === 'pass');
  if (!choice) throw new Error("no Approve on the issuer's page");
  const back = readForms(await post(new URL(choice.action, live.jazzcash.url).toString(), choice.fields))[0];
  if (!back) throw new Error("no return form on the issuer's page");
  return { paymentIntentId, fields: back.fields };
}

/** A webhook receiver on 127.0.0.1 that accepts every delivery (204), for the dashboard's endpoint: its URL. */
export function webhookReceiver(): Promise<string> {
  return once('receiver', async () => {
    const { createServer } = await import('node:http');
    const server = createServer((req, res) => req.resume().on('end', () => res.writeHead(204).end()));
    await new Promise<void>((ok) => server.listen(0, '127.0.0.1', ok));
    server.unref();
    return `http://127.0.0.1:${(server.address() as import('node:net').AddressInfo).port}/bench-webhooks`;
  });
}

/** The previous calendar month (a closed statement period), `YYYY-MM`. */
export function lastMonth(now = new Date()): string {
  const d = new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth() - 1, 1));
  return d.toISOString().slice(0, 7);
}

// The dashboard: accounts are made as the operator's invitation makes them (no route invites the first user).

export const benchPassword = 'a long enough bench passphrase';

/** An invitation to the merchant's dashboard (the operator's, as `ops user invite`): its token and e-mail. */
export async function invitation(merchant: SampleMerchant, role = 'admin'): Promise<{ token: string; email: string; userId: string }> {
  const { inviteUser, operatorActor } = await import('#shared/services/dashboard-auth.ts');
  const email = `bench-${role}-${randomUUID().slice(0, 12)}@example.com`;
  const invited = await inviteUser({ merchantId: merchant.merchantId, email, role }, operatorActor);
  return { token: new URL(invited.inviteUrl).pathname.split('/').pop()!, email, userId: invited.userId };
}

export interface DashboardSession {
  userId: string;
  email: string;
  /** The TOTP secret (base32). */
  secret: string;
  cookie: string;
  /** The session's anti-CSRF token, as every form of its pages carries it. */
  csrf: string;
}

/** The Cookie header and the form token of a session token. */
async function sessionOf(sessionToken: string): Promise<{ cookie: string; csrf: string }> {
  const { authenticate } = await import('#shared/services/dashboard-auth.ts');
  const { sessionCookieName, sessionCsrf } = await import('#shared/http/dashboard.ts');
  const signed = await authenticate(sessionToken, '127.0.0.1');
  if (!signed) throw new Error('the seeded dashboard session is not valid');
  return { cookie: `${sessionCookieName()}=${sessionToken}`, csrf: await sessionCsrf(signed) };
}

/** An invited user who set a password and is in the enrolment session (2FA not yet on): the session and the pending TOTP secret. */
export async function enrollingUser(merchant: SampleMerchant): Promise<DashboardSession> {
  const { acceptInvite, authenticate, enrolmentSecret } = await import('#shared/services/dashboard-auth.ts');
  const invited = await invitation(merchant);
  const { sessionToken } = await acceptInvite(invited.token, benchPassword, benchPassword, '127.0.0.1');
  const { secret } = await enrolmentSecret((await authenticate(sessionToken, '127.0.0.1'))!);
  return { userId: invited.userId, email: invited.email, secret, ...(await sessionOf(sessionToken)) };
}

/**
 * A fresh admin with 2FA on and a full session. Enrolled with the previous TOTP step's code, so the
 * current step's code is still good once (a sign-in or a step-up).
 */
export async function dashboardUser(merchant: SampleMerchant): Promise<DashboardSession> {
  const { authenticate, completeEnrolment } = await import('#shared/services/dashboard-auth.ts');
  const { totpCode, totpPeriodSeconds } = await import('#shared/crypto/totp.ts');
  const enrolling = await enrollingUser(merchant);
  const token = enrolling.cookie.split('=')[1]!;
  const done = await completeEnrolment(
    (await authenticate(token, '127.0.0.1'))!,
    totpCode(enrolling.secret, Date.now() - totpPeriodSeconds * 1000),
  );
  return { ...enrolling, ...(await sessionOf(done.sessionToken)) };
}

/** The dashboard merchant's admin session most dashboard samples use (one per run). */
export const adminSession = (merchant: SampleMerchant) => once(`admin ${merchant.merchantId}`, () => dashboardUser(merchant));

/** What a dashboard sample stands on: the request context on the dashboard's merchant, and its admin's session. */
export interface OnDashboard {
  ctx: SampleContext;
  session: DashboardSession;
}

/**
 * The dashboard merchant, set up once: funded, its admin signed in, and refunds approved by the
 * merchant's approvers (payoutApprovals `merchant`, so the dashboard's refund approvals apply).
 */
export async function onDashboard(ctx: SampleContext): Promise<OnDashboard> {
  const ready = await once('dashboard ready', async () => {
    const merchant = await dashboardMerchant();
    const session = await adminSession(merchant);
    const { savePayoutApprovals } = await import('#shared/services/dashboard.ts');
    const { authenticate } = await import('#shared/services/dashboard-auth.ts');
    await savePayoutApprovals((await authenticate(session.cookie.split('=')[1], '127.0.0.1'))!, 'merchant');
    await fund(merchant, 1_000_000_00);
    return { merchant, session };
  });
  return { ctx: as(ctx, ready.merchant), session: ready.session };
}

/** The dashboard's public forms' token (sign-in, invitation), as their pages render it. */
export async function publicFormCsrf(id: 'dashboardSignIn' | 'dashboardAcceptInvite', token?: string): Promise<string> {
  const { formToken } = await import('#shared/crypto/form-token.ts');
  const { publicFormSubject } = await import('#shared/http/dashboard.ts');
  return formToken(publicFormSubject(routes[id], token ? { token } : {}));
}
