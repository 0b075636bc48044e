/**
 * The merchant dashboard's route table (docs/dashboard.md): one line per page or action, grouped by
 * the Lambda that serves it. functions/routes.ts joins these rows into THE route table (CDK, the
 * local server, docs/api.md and the OpenAPI document read them there, with their docs in
 * functions/route-docs.ts); a handler imports its own Lambda's rows from here (never the whole table).
 *
 * A row is `id: [method, path under /dashboard, handler module in functions/dashboard/, access]`:
 * access is the role permission the signed-in user needs (shared/domain/dashboard-roles.ts),
 * `session` for any signed-in user, `none` for the public sign-in pages. Every row is served without a
 * body signature, by its Lambda's handler module (functions/dashboard/group.ts), which infra builds
 * from these rows (infra/dashboard-lambdas.ts): nothing else lists a Lambda's handler modules.
 */
import type { DashboardPermission } from '#shared/domain/dashboard-roles.ts';
import type { HttpMethod, LambdaGroupId, RouteDefinition } from '#shared/http/route.ts';

/** Live provider products whose adapters a Lambda installs (shared/providers/live/boot-*.ts). */
export type LiveBoot = 'refunds' | 'payouts' | 'settlements' | 'walletPresence';

export interface DashboardLambda {
  readonly id: LambdaGroupId;
  readonly summary: string;
  /** The boot modules its code needs (test/infra/code-grants.test.ts: installs exactly what it can ask for). */
  readonly live: readonly LiveBoot[];
  /** What its code may do in AWS: exactly its calls (test/infra/code-grants.test.ts). */
  readonly permissions: RouteDefinition['permissions'];
}

/**
 * The sign-in Lambda answers unauthenticated requests: like the hosted checkout it never reads the
 * master key, only the public-paths key (its forms' anti-CSRF tokens) and the TOTP seal key (it
 * checks codes, shared/crypto/seal.ts dashboardTotpKey). It is confined by `dynamodb:LeadingKeys`
 * to the dashboard's account items and the merchant's profile (the invitation page names the
 * company), and writes only the account items: never a merchant's profile, wallets or journals,
 * API keys, idempotency records, intents, settlements or refunds.
 */
const signInWrites = ['dashUser', 'dashEmail', 'dashInvite', 'dashSession', 'dashAudit', 'dashThrottle'] as const;

const signInPermissions = {
  table: 'readWrite',
  secrets: ['publicPathsKey', 'totpKey'],
  partitions: [...signInWrites, 'merchant'],
  writePartitions: signInWrites,
} as const satisfies RouteDefinition['permissions'];

/**
 * The signed-in Lambdas touch the session on every page (readWrite) and derive the forms' anti-CSRF
 * token (publicPathsKey). The rest is what each area's code calls: the Query of its lists on the table
 * and the indexes, BatchGetItem where a wallet's hold is placed (withFunds) or shards are read together,
 * ConditionCheck items where a team change checks that another administrator remains (and a resend its
 * hourly quota), the TOTP seal key where a fresh second-factor code is checked (minting a money-out
 * key), the master key where a merchant's secret is sealed or unsealed (API keys, webhook secrets),
 * and the live provider credentials where a live rail may be called.
 *
 * A signed-in area's grants (`own`: its secrets, reads and writes). Each area writes its own families only
 * (writePartitions): the audit log (AUDIT#) always, and what its commands change (a money command's events go to its
 * subject's partition with the feed entry and the event's pointer); a session's idle clock and mode through their own
 * narrow statement (infra sessionClockPolicy); never an API key but in the Developers area (managesKeys). A pure call
 * of literals, so a bundle keeps only its own area's grants.
 */
function signedInArea<const P extends Omit<RouteDefinition['permissions'], 'table' | 'queries'>>(own: P) {
  return { table: 'readWrite', queries: 'tableAndIndexes', ...own } as const;
}

// Each area's grants, apart from dashboardLambdas: a handler's bundle holds its own area's only.
// Home and the payments pages only read money: the mode switch and a refused page write their audit entries.
const paymentsPermissions = /* @__PURE__ */ signedInArea({
  indexPartitions: ['events', 'merchant', 'txn'],
  readPartitions: [
    'customerPayment',
    'dashAudit',
    'dashSession',
    'dashUser',
    'eventFeed',
    'eventPointer',
    'intent',
    'merchant',
    'orderRef',
    'refund',
    'settlement',
    'transactionReference',
  ],
  putsOnly: true,
  writePartitions: ['dashAudit'],
  secrets: ['publicPathsKey'],
  batchGets: true,
});
const refundsPermissions = /* @__PURE__ */ signedInArea({
  indexPartitions: ['merchant', 'txn'],
  readPartitions: [
    'approvals',
    'dashAudit',
    'dashSession',
    'dashUser',
    'eventFeed',
    'eventPointer',
    'idempotency',
    'intent',
    'merchant',
    'orderRef',
    'refund',
    'refundMaker',
    'sandboxReceipt',
    'settlement',
    'transactionReference',
  ],
  secrets: ['publicPathsKey', 'liveProviders'],
  batchGets: true,
  writePartitions: [
    'dashAudit',
    'idempotency',
    'merchant',
    'intent',
    'refund',
    'refundMaker',
    'approvals',
    'sandboxReceipt',
    'eventFeed',
    'eventPointer',
  ],
});
const linksPermissions = /* @__PURE__ */ signedInArea({
  indexPartitions: ['merchant'],
  readPartitions: [
    'dashAudit',
    'dashSession',
    'dashUser',
    'eventFeed',
    'eventPointer',
    'idempotency',
    'intent',
    'merchant',
    'paymentLink',
    'refund',
    'settlement',
  ],
  secrets: ['publicPathsKey', 'liveProviders'],
  batchGets: true,
  writePartitions: ['dashAudit', 'idempotency', 'merchant', 'paymentLink'],
});
const payoutsPermissions = /* @__PURE__ */ signedInArea({
  indexPartitions: ['merchant'],
  readPartitions: [
    'approvals',
    'bankFileLine',
    'customerPayment',
    'dashAudit',
    'dashSession',
    'dashUser',
    'eventFeed',
    'eventPointer',
    'idempotency',
    'intent',
    'merchant',
    'orderRef',
    'paymentLink',
    'payoutMaker',
    'refund',
    'sandboxReceipt',
    'settlement',
    'transactionReference',
  ],
  secrets: ['publicPathsKey', 'liveProviders'],
  batchGets: true,
  writePartitions: [
    'dashAudit',
    'idempotency',
    'merchant',
    'intent',
    'orderRef',
    'transactionReference',
    'customerPayment',
    'paymentLink',
    'payoutMaker',
    'approvals',
    'sandboxReceipt',
    'eventFeed',
    'eventPointer',
    'bankFileLine',
  ],
});
const settlementsPermissions = /* @__PURE__ */ signedInArea({
  indexPartitions: ['merchant'],
  readPartitions: [
    'approvals',
    'bankFileLine',
    'dashAudit',
    'dashSession',
    'dashUser',
    'eventFeed',
    'eventPointer',
    'idempotency',
    'intent',
    'merchant',
    'refund',
    'sandboxReceipt',
    'settlement',
    'settlementMaker',
  ],
  secrets: ['publicPathsKey', 'liveProviders'],
  batchGets: true,
  writePartitions: [
    'dashAudit',
    'idempotency',
    'merchant',
    'settlement',
    'settlementMaker',
    'approvals',
    'sandboxReceipt',
    'eventFeed',
    'eventPointer',
    'bankFileLine',
  ],
});
// The areas that only read money write nothing but the balance checkpoints a statement needs the first time (MERCHANT#)
// and the audit entry of a refused page (AUDIT#); their sessions' idle clock has its own narrow statement (infra sessionClockPolicy).
const balancePermissions = /* @__PURE__ */ signedInArea({
  indexPartitions: ['merchant'],
  readPartitions: ['dashAudit', 'dashSession', 'dashUser', 'eventFeed', 'eventPointer', 'intent', 'merchant', 'refund', 'settlement'],
  putsOnly: true,
  writePartitions: ['merchant', 'dashAudit'],
  secrets: ['publicPathsKey'],
});
const exportsPermissions = /* @__PURE__ */ signedInArea({
  indexPartitions: ['merchant'],
  readPartitions: [
    'customerPayment',
    'dashAudit',
    'dashSession',
    'dashUser',
    'eventFeed',
    'eventPointer',
    'intent',
    'merchant',
    'orderRef',
    'refund',
    'settlement',
    'transactionReference',
  ],
  putsOnly: true,
  writePartitions: ['dashAudit'],
  secrets: ['publicPathsKey'],
  batchGets: true,
});
// Keys (create, roll, revoke: managesKeys), the webhook endpoint and its secret (merchant profile), a destination's
// health, test events and resends (an event's home partition, the quota).
const developersPermissions = /* @__PURE__ */ signedInArea({
  indexPartitions: ['events', 'merchant'],
  readPartitions: [
    'apiKey',
    'apiKeyId',
    'dashAudit',
    'dashSession',
    'dashUser',
    'eventFeed',
    'eventPointer',
    'idempotency',
    'intent',
    'merchant',
    'quota',
    'refund',
    'settlement',
  ],
  managesKeys: true,
  writePartitions: [
    'dashAudit',
    'dashUser',
    'apiKey',
    'apiKeyId',
    'merchant',
    'idempotency',
    'quota',
    'intent',
    'refund',
    'settlement',
    'eventFeed',
    'eventPointer',
  ],
  secrets: ['masterKey', 'publicPathsKey', 'totpKey'],
  batchGets: true,
  conditionChecks: true,
});
// Invitations, roles and removals (users, their e-mail pointers, invitations), the approval settings (the merchant profile).
const teamPermissions = /* @__PURE__ */ signedInArea({
  indexPartitions: ['merchant'],
  readPartitions: [
    'apiKey',
    'dashAudit',
    'dashEmail',
    'dashInvite',
    'dashSession',
    'dashUser',
    'eventFeed',
    'eventPointer',
    'intent',
    'merchant',
    'refund',
    'settlement',
  ],
  secrets: ['publicPathsKey'],
  conditionChecks: true,
  writePartitions: ['dashAudit', 'dashUser', 'dashEmail', 'dashInvite', 'merchant'],
});

/**
 * The dashboard's Lambdas, by area. One Lambda per page would give someone clicking through the
 * dashboard a cold start on nearly every page and add a function, role, policy, log group and alarm
 * per row; one Lambda for every page bundled every area's services (571 kB, issue 26). An area's pages
 * share their services, views and grants.
 */
export const dashboardLambdas = {
  dashboardSignIn: {
    id: 'dashboardSignIn',
    summary: 'Merchant dashboard: invitation, password, 2FA enrolment, sign-in and sign-out pages.',
    live: [],
    permissions: signInPermissions,
  },
  dashboardPayments: {
    id: 'dashboardPayments',
    summary: 'Merchant dashboard: Home, the payments list, search and detail, the mode switch.',
    live: [],
    permissions: paymentsPermissions,
  },
  dashboardRefunds: {
    id: 'dashboardRefunds',
    summary: 'Merchant dashboard: refunds (request, list, approve, reject).',
    live: ['refunds'],
    permissions: refundsPermissions,
  },
  dashboardLinks: {
    id: 'dashboardLinks',
    summary: 'Merchant dashboard: payment links (list, create, detail with QR code, deactivate, reactivate).',
    // The link form offers the wallets only when a live wallet provider is configured.
    live: ['walletPresence'],
    permissions: linksPermissions,
  },
  dashboardPayouts: {
    id: 'dashboardPayouts',
    summary: 'Merchant dashboard: payouts (list, create, approve, reject).',
    live: ['payouts'],
    permissions: payoutsPermissions,
  },
  dashboardSettlements: {
    id: 'dashboardSettlements',
    summary: 'Merchant dashboard: settlements (list, request, detail, approve, reject).',
    live: ['settlements'],
    permissions: settlementsPermissions,
  },
  dashboardBalance: {
    id: 'dashboardBalance',
    summary: 'Merchant dashboard: the Balance page and the monthly statements (page and CSV).',
    live: [],
    permissions: balancePermissions,
  },
  dashboardExports: {
    id: 'dashboardExports',
    summary: 'Merchant dashboard: the CSV exports of the lists (every matching row, streamed).',
    live: [],
    permissions: exportsPermissions,
  },
  dashboardDevelopers: {
    id: 'dashboardDevelopers',
    summary: 'Merchant dashboard: API keys, the webhook endpoint and its events.',
    live: [],
    permissions: developersPermissions,
  },
  dashboardTeam: {
    id: 'dashboardTeam',
    summary: 'Merchant dashboard: the team (invite, roles, removal, audit log) and the approval settings.',
    live: [],
    permissions: teamPermissions,
  },
} as const satisfies { readonly [L in LambdaGroupId]: DashboardLambda & { readonly id: L } };

type Row = readonly [method: HttpMethod, path: '' | `/${string}`, module: string, access: DashboardPermission | 'session' | 'none'];

/** A row of this table as the route table holds it (its id and Lambda kept literal: RouteId, LambdaGroupId). */
export type DashboardRoute<Id extends string = string, L extends LambdaGroupId = LambdaGroupId> = RouteDefinition & {
  readonly id: Id;
  readonly lambda: L;
};

function lambdaRows<const L extends LambdaGroupId, const R extends Record<string, Row>>(
  lambda: L,
  permissions: RouteDefinition['permissions'],
  rows: R,
  streaming = false,
): { readonly [Id in keyof R & string]: DashboardRoute<Id, L> } {
  const out: Record<string, RouteDefinition> = {};
  for (const [id, [method, path, module, access]] of Object.entries(rows)) {
    out[id] = {
      id,
      method,
      path: `/dashboard${path}`,
      handler: `functions/dashboard/${module}.ts`,
      auth: access === 'none' ? 'none' : 'session',
      ...(access === 'none' || access === 'session' ? {} : { permission: access }),
      lambda,
      signature: false,
      permissions,
      ...(streaming ? { streaming: true as const } : {}),
    };
  }
  return out as { readonly [Id in keyof R & string]: DashboardRoute<Id, L> };
}

// Each Lambda's rows are one export (`/* @__PURE__ */`: a bundle keeps only the rows its handlers import).

export const signInRoutes = /* @__PURE__ */ lambdaRows('dashboardSignIn', signInPermissions, {
  dashboardInvitePage: ['GET', '/invite/{token}', 'invite-page', 'none'],
  dashboardAcceptInvite: ['POST', '/invite/{token}', 'invite-accept', 'none'],
  dashboardEnrolPage: ['GET', '/enrol', 'enrol-page', 'session'],
  dashboardEnrol: ['POST', '/enrol', 'enrol', 'session'],
  dashboardSignInPage: ['GET', '/sign-in', 'sign-in-page', 'none'],
  dashboardSignIn: ['POST', '/sign-in', 'sign-in', 'none'],
  dashboardSignOut: ['POST', '/sign-out', 'sign-out', 'session'],
});

export const paymentsRoutes = /* @__PURE__ */ lambdaRows('dashboardPayments', paymentsPermissions, {
  dashboardHome: ['GET', '', 'home', 'balances:read'],
  dashboardPayments: ['GET', '/payments', 'payments', 'payments:read'],
  dashboardPayment: ['GET', '/payments/{id}', 'payment', 'payments:read'],
  dashboardMode: ['POST', '/mode', 'mode', 'session'],
});

export const refundsRoutes = /* @__PURE__ */ lambdaRows('dashboardRefunds', refundsPermissions, {
  dashboardRefund: ['POST', '/payments/{id}/refund', 'refund', 'refunds:create'],
  dashboardRefunds: ['GET', '/refunds', 'refunds', 'payments:read'],
  dashboardApproveRefund: ['POST', '/refunds/{id}/approve', 'refund-approve', 'refunds:approve'],
  dashboardRejectRefund: ['POST', '/refunds/{id}/reject', 'refund-reject', 'refunds:approve'],
});

export const linksRoutes = /* @__PURE__ */ lambdaRows('dashboardLinks', linksPermissions, {
  dashboardLinks: ['GET', '/links', 'links', 'payments:read'],
  dashboardCreateLink: ['POST', '/links', 'link-create', 'links:manage'],
  dashboardLink: ['GET', '/links/{id}', 'link', 'payments:read'],
  dashboardDeactivateLink: ['POST', '/links/{id}/deactivate', 'link-deactivate', 'links:manage'],
  dashboardReactivateLink: ['POST', '/links/{id}/reactivate', 'link-reactivate', 'links:manage'],
});

export const payoutsRoutes = /* @__PURE__ */ lambdaRows('dashboardPayouts', payoutsPermissions, {
  dashboardPayouts: ['GET', '/payouts', 'payouts', 'payments:read'],
  dashboardCreatePayout: ['POST', '/payouts', 'payout-create', 'payouts:create'],
  dashboardApprovePayout: ['POST', '/payouts/{id}/approve', 'payout-approve', 'payouts:approve'],
  dashboardRejectPayout: ['POST', '/payouts/{id}/reject', 'payout-reject', 'payouts:approve'],
});

export const settlementsRoutes = /* @__PURE__ */ lambdaRows('dashboardSettlements', settlementsPermissions, {
  dashboardSettlements: ['GET', '/settlements', 'settlements', 'payments:read'],
  dashboardRequestSettlement: ['POST', '/settlements', 'settlement-request', 'settlements:create'],
  dashboardSettlement: ['GET', '/settlements/{id}', 'settlement', 'payments:read'],
  dashboardApproveSettlement: ['POST', '/settlements/{id}/approve', 'settlement-approve', 'settlements:approve'],
  dashboardRejectSettlement: ['POST', '/settlements/{id}/reject', 'settlement-reject', 'settlements:approve'],
});

export const balanceRoutes = /* @__PURE__ */ lambdaRows('dashboardBalance', balancePermissions, {
  dashboardBalance: ['GET', '/balance', 'balance', 'balances:read'],
  dashboardStatements: ['GET', '/statements', 'statements', 'balances:read'],
  dashboardStatementCsv: ['GET', '/statements/{period}/csv', 'statement-csv', 'balances:read'],
});

/**
 * The CSV exports stream (route.ts `streaming`: API Gateway's STREAM transfer mode, up to 15 minutes), so
 * they are a Lambda of their own: the payments list's (the Payments page links it), every row of a list
 * (payments, payouts, refunds, settlements, audit) with the list's filters, and the Balance page's (balances:read).
 */
export const exportsRoutes = /* @__PURE__ */ lambdaRows(
  'dashboardExports',
  exportsPermissions,
  {
    dashboardPaymentsExport: ['GET', '/payments/export', 'payments-export', 'payments:read'],
    dashboardListExport: ['GET', '/exports/{list}', 'list-export', 'payments:read'],
    dashboardBalanceExport: ['GET', '/balance/export', 'balance-export', 'balances:read'],
  },
  true,
);

export const developersRoutes = /* @__PURE__ */ lambdaRows('dashboardDevelopers', developersPermissions, {
  dashboardDevelopers: ['GET', '/developers', 'developers', 'keys:manage'],
  dashboardCreateKey: ['POST', '/developers/keys', 'developers-create-key', 'keys:manage'],
  dashboardRollKey: ['POST', '/developers/keys/roll', 'developers-roll', 'keys:manage'],
  dashboardRevokeKey: ['POST', '/developers/keys/revoke', 'developers-revoke', 'keys:manage'],
  dashboardWebhooks: ['GET', '/developers/webhooks', 'webhooks', 'webhooks:manage'],
  dashboardSaveWebhook: ['POST', '/developers/webhooks', 'webhooks-save', 'webhooks:manage'],
  dashboardRotateWebhookSecret: ['POST', '/developers/webhooks/rotate', 'webhooks-rotate', 'webhooks:manage'],
  dashboardWebhookState: ['POST', '/developers/webhooks/state', 'webhooks-state', 'webhooks:manage'],
  dashboardWebhookTest: ['POST', '/developers/webhooks/test', 'webhooks-test', 'webhooks:manage'],
  dashboardEvent: ['GET', '/events/{eventId}', 'event', 'payments:read'],
  dashboardResendEvent: ['POST', '/events/{eventId}/resend', 'event-resend', 'webhooks:manage'],
});

export const teamRoutes = /* @__PURE__ */ lambdaRows('dashboardTeam', teamPermissions, {
  dashboardTeam: ['GET', '/team', 'team', 'team:manage'],
  dashboardTeamInvite: ['POST', '/team/invite', 'team-invite', 'team:manage'],
  dashboardTeamRole: ['POST', '/team/{userId}/role', 'team-role', 'team:manage'],
  dashboardTeamRemove: ['POST', '/team/{userId}/remove', 'team-remove', 'team:manage'],
  dashboardSettings: ['GET', '/settings', 'settings', 'settings:manage'],
  dashboardSaveSettings: ['POST', '/settings', 'settings-save', 'settings:manage'],
});

/**
 * The statement PDF has a Lambda of its own (the PDF writer stays out of the Balance Lambda): the
 * session check (sessions are touched) and the checkpoints a statement writes the first time.
 */
export const dashboardStatementPdf = {
  id: 'dashboardStatementPdf',
  method: 'GET',
  path: '/dashboard/statements/{period}/pdf',
  handler: 'functions/dashboard/statement-pdf.ts',
  auth: 'session',
  permission: 'balances:read',
  signature: false,
  permissions: {
    readPartitions: ['dashAudit', 'dashSession', 'dashUser', 'merchant'],
    table: 'readWrite',
    secrets: ['publicPathsKey'],
    queries: 'table',
    putsOnly: true,
    writePartitions: ['merchant', 'dashAudit'],
  },
} as const satisfies RouteDefinition;
