import type { RouteId } from '#functions/routes.ts';
import type { RequestSample, Sample, SampleContext } from './samples.ts';
import * as seed from './seeds.ts';

/**
 * The merchant dashboard's rows (functions/dashboard/routes.ts) in bench/samples.ts: each page and
 * action as the signed-in admin of the dashboard's own merchant clicks it (bench/seeds.ts
 * onDashboard: its session cookie, and its form token on every POST), on the objects it acts on:
 * a fresh Pending refund, payout or settlement for each approval, a fresh invitation for each
 * acceptance, a fresh enrolled user for each sign-in. The public pages (invitation, enrolment,
 * sign-in) with what the customer of that page holds.
 */

/** A page of the dashboard as the admin opens it. */
const page =
  (parts: (d: seed.OnDashboard) => Promise<Partial<RequestSample>> | Partial<RequestSample> = () => ({})): Sample =>
  async (ctx: SampleContext) => {
    const d = await seed.onDashboard(ctx);
    const extra = await parts(d);
    return { ...extra, headers: { Cookie: d.session.cookie, ...extra.headers } };
  };

/** A form of the dashboard as the admin posts it (its session's form token): by default 303 to the page that follows. */
const action =
  (
    build: (d: seed.OnDashboard) => Promise<Pick<RequestSample, 'pathParameters' | 'form' | 'expectText'>>,
    expectStatus = 303,
    session?: (ctx: SampleContext) => Promise<seed.DashboardSession>,
  ): Sample =>
  async (ctx: SampleContext) => {
    const d = await seed.onDashboard(ctx);
    const by = session ? await session(d.ctx) : d.session;
    const built = await build({ ...d, session: by });
    return {
      ...built,
      form: { csrf: by.csrf, ...built.form },
      headers: { Cookie: by.cookie },
      expectStatus,
    };
  };

/** The admin's own payment (large, for refunds) on the dashboard's merchant. */
const payment = (d: seed.OnDashboard) => seed.largePayment(d.ctx.merchant);

/** The merchant's webhook endpoint: the bench's receiver on 127.0.0.1, saved once (the rotate, state and test actions need one). */
const webhookForm = async () => ({ url: await seed.webhookReceiver(), events: ['TransactionStatusChanged'] });
let endpoint: Promise<unknown> | undefined;
function withEndpoint(d: seed.OnDashboard): Promise<unknown> {
  endpoint ??= (async () => {
    const { seedCall } = await import('./requests.ts');
    await seedCall(d.ctx, 'dashboardSaveWebhook', {
      form: { csrf: d.session.csrf, ...(await webhookForm()) },
      headers: { Cookie: d.session.cookie },
      expectStatus: 200,
    });
  })();
  return endpoint;
}

export const dashboardSamples = {
  // Invitations: a fresh one for each acceptance (single use); the page reads one.
  dashboardInvitePage: async (ctx) => {
    const { ctx: on } = await seed.onDashboard(ctx);
    return { pathParameters: { token: (await invitePageToken(on.merchant)).token } };
  },
  dashboardAcceptInvite: async (ctx) => {
    const { ctx: on } = await seed.onDashboard(ctx);
    const { token } = await seed.invitation(on.merchant);
    return {
      pathParameters: { token },
      form: { csrf: await seed.publicFormCsrf('dashboardAcceptInvite', token), password: seed.benchPassword, confirm: seed.benchPassword },
      expectStatus: 303,
      note: 'a fresh invitation: one scrypt, the user and the enrolment session',
    };
  },
  dashboardEnrolPage: async (ctx) => {
    const { ctx: on } = await seed.onDashboard(ctx);
    const enrolling = await enrollingOnce(on);
    return { headers: { Cookie: enrolling.cookie }, note: 'an enrolment session: the pending secret, its QR code' };
  },
  dashboardEnrol: async (ctx) => {
    const { ctx: on } = await seed.onDashboard(ctx);
    const enrolling = await seed.enrollingUser(on.merchant);
    const { totpCode } = await import('#shared/crypto/totp.ts');
    return {
      form: { csrf: enrolling.csrf, code: totpCode(enrolling.secret, Date.now()) },
      headers: { Cookie: enrolling.cookie },
      note: 'a fresh enrolling user: 2FA on, recovery codes, the full session',
    };
  },
  dashboardSignInPage: {},
  // A fresh enrolled user each time: its authenticator code is good once.
  dashboardSignIn: async (ctx) => {
    const { ctx: on } = await seed.onDashboard(ctx);
    const user = await seed.dashboardUser(on.merchant);
    const { totpCode } = await import('#shared/crypto/totp.ts');
    return {
      form: {
        csrf: await seed.publicFormCsrf('dashboardSignIn'),
        email: user.email,
        password: seed.benchPassword,
        code: totpCode(user.secret, Date.now()),
      },
      expectStatus: 303,
      note: 'password (one scrypt) and authenticator code: the full session',
    };
  },
  dashboardSignOut: action(
    async () => ({ form: {} }),
    303,
    (on) => seed.dashboardUser(on.merchant),
  ),
  dashboardHome: page(),
  dashboardPayments: page(),
  dashboardPayment: page(async (d) => ({ pathParameters: { id: (await payment(d)).paymentIntentId } })),
  dashboardMode: action(async () => ({ form: { mode: 'test' } })),
  dashboardRefund: action(async (d) => ({
    pathParameters: { id: (await payment(d)).paymentIntentId },
    form: { amount: '10', reason: 'Bench refund' },
  })),
  dashboardRefunds: page(),
  dashboardApproveRefund: action(async (d) => ({ pathParameters: { id: await seed.freshRefund(d.ctx) }, form: { confirm: '1' } })),
  dashboardRejectRefund: action(async (d) => ({
    pathParameters: { id: await seed.freshRefund(d.ctx) },
    form: { confirm: '1', reason: 'Bench rejection' },
  })),
  dashboardLinks: page(async (d) => {
    await seed.link(d.ctx);
    return {};
  }),
  dashboardCreateLink: action(async () => ({ form: { pricing: 'fixed', amount: '15', description: 'Bench link' } })),
  dashboardLink: page(async (d) => ({ pathParameters: { id: await seed.link(d.ctx) } })),
  dashboardDeactivateLink: action(async (d) => ({ pathParameters: { id: await seed.freshLink(d.ctx) }, form: {} })),
  dashboardReactivateLink: action(async (d) => ({ pathParameters: { id: await seed.freshLink(d.ctx, false) }, form: {} })),
  dashboardPayouts: page(),
  dashboardCreatePayout: action(async (d) => {
    await seed.fund(d.ctx.merchant, 313_00);
    return {
      form: {
        amount: '300',
        bankCode: 'MEEZAN',
        accountNumber: 'PK36SCBL0000001123450000',
        accountTitle: 'Bench Customer',
        description: 'Bench',
      },
    };
  }),
  dashboardApprovePayout: action(async (d) => ({ pathParameters: { id: await seed.freshPayout(d.ctx) }, form: { confirm: '1' } })),
  dashboardRejectPayout: action(async (d) => ({
    pathParameters: { id: await seed.freshPayout(d.ctx) },
    form: { confirm: '1', reason: 'Bench rejection' },
  })),
  dashboardSettlements: page(),
  dashboardRequestSettlement: action(async (d) => {
    await seed.fund(d.ctx.merchant, 1_00);
    const { amount: _, currency: __, ...bank } = seed.settlementBody;
    return { form: { amount: '1', method: 'bank', ...bank, confirm: '1' } };
  }),
  dashboardSettlement: page(async (d) => ({ pathParameters: { id: await seed.settlement(d.ctx) } })),
  dashboardApproveSettlement: action(async (d) => ({ pathParameters: { id: await seed.freshSettlement(d.ctx) }, form: { confirm: '1' } })),
  dashboardRejectSettlement: action(async (d) => ({
    pathParameters: { id: await seed.freshSettlement(d.ctx) },
    form: { confirm: '1', reason: 'Bench rejection' },
  })),
  dashboardBalance: page(),
  dashboardStatements: page(),
  dashboardStatementCsv: page(() => ({ pathParameters: { period: seed.lastMonth() }, query: { currency: 'PKR' } })),
  dashboardStatementPdf: page(() => ({ pathParameters: { period: seed.lastMonth() }, query: { currency: 'PKR' } })),
  dashboardPaymentsExport: page(),
  dashboardListExport: page(() => ({ pathParameters: { list: 'payments' } })),
  dashboardBalanceExport: page(),
  dashboardDevelopers: page(),
  dashboardCreateKey: action(async () => ({ form: { mode: 'test', scopes: ['read'] } }), 200),
  // The merchant's keys carry money-out scopes: rolling them is an admin's step-up, with a fresh
  // admin each time (an authenticator code is good once).
  dashboardRollKey: action(
    async (d) => {
      const { totpCode } = await import('#shared/crypto/totp.ts');
      return { form: { graceDays: '1', code: totpCode(d.session.secret, Date.now()) } };
    },
    200,
    (on) => seed.dashboardUser(on.merchant),
  ),
  dashboardRevokeKey: action(async (d) => {
    const { createKey } = await import('#shared/services/merchants.ts');
    return { form: { keyId: (await createKey(d.ctx.merchant.merchantId, 'test', ['read'])).keyId } };
  }),
  dashboardWebhooks: page(async (d) => {
    await withEndpoint(d);
    return {};
  }),
  dashboardSaveWebhook: action(async () => ({ form: await webhookForm() }), 200),
  dashboardRotateWebhookSecret: action(async (d) => {
    await withEndpoint(d);
    return { form: { overlapHours: '1' } };
  }, 200),
  dashboardWebhookState: action(async (d) => {
    await withEndpoint(d);
    return { form: { enabled: '1' } };
  }, 200),
  // A signed test event to the endpoint, delivered at once to the bench's receiver (it answers 204).
  dashboardWebhookTest: action(async (d) => {
    await withEndpoint(d);
    return { form: {}, expectText: 'delivered (HTTP 204)' };
  }, 200),
  dashboardEvent: page(async (d) => ({ pathParameters: { eventId: await seed.event(d.ctx) } })),
  // A fresh event each time (10 resends per event an hour), by the admin of a fresh merchant every 250 requests (300 an hour per merchant).
  dashboardResendEvent: async (ctx) => {
    const merchant = await seed.quotaMerchant('dashboard resend', ctx.iteration);
    const session = await seed.adminSession(merchant);
    return {
      pathParameters: { eventId: await seed.freshEvent(seed.as(ctx, merchant)) },
      form: { csrf: session.csrf },
      headers: { Cookie: session.cookie },
      expectStatus: 303,
      note: "a fresh paid checkout's event each time (resend quotas)",
    };
  },
  dashboardTeam: page(),
  dashboardTeamInvite: action(
    async () => ({ form: { email: `bench-${crypto.randomUUID().slice(0, 12)}@example.com`, role: 'viewer' } }),
    200,
  ),
  dashboardTeamRole: action(
    async (d) => ({ pathParameters: { userId: (await seed.invitation(d.ctx.merchant, 'viewer')).userId }, form: { role: 'finance' } }),
    200,
  ),
  dashboardTeamRemove: action(
    async (d) => ({ pathParameters: { userId: (await seed.invitation(d.ctx.merchant, 'viewer')).userId }, form: {} }),
    200,
  ),
  dashboardSettings: page(),
  dashboardSaveSettings: action(async () => ({ form: { payoutApprovals: 'merchant' } })),
} satisfies Partial<Record<RouteId, Sample>>;

let invitePage: ReturnType<typeof seed.invitation> | undefined;
const invitePageToken = (merchant: SampleContext['merchant']) => (invitePage ??= seed.invitation(merchant));
let enrolling: ReturnType<typeof seed.enrollingUser> | undefined;
const enrollingOnce = (on: SampleContext) => (enrolling ??= seed.enrollingUser(on.merchant));
