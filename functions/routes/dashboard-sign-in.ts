/**
 * Route definitions (functions/routes.ts, the one route table, lists them with their docs):
 * The merchant dashboard’s sign-in Lambda (routes.ts lambdaGroups.dashboardSignIn): invitation,
 * password, 2FA enrolment, sign-in and sign-out.
 * A handler imports its own row from here, so its bundle holds that row only (no other route, no
 * summary, docs or examples: functions/route-docs.ts).
 */
import type { RouteDefinition } from '#shared/http/route.ts';

/**
 * The sign-in group answers unauthenticated requests: like the hosted checkout it never reads the
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

// The merchant dashboard (docs/dashboard.md): server-rendered pages, session cookie, CSRF token on every form.
export const dashboardInvitePage = {
  id: 'dashboardInvitePage',
  method: 'GET',
  path: '/dashboard/invite/{token}',
  handler: 'functions/dashboard/invite-page.ts',
  auth: 'none',
  lambda: 'dashboardSignIn',
  signature: false,
  permissions: signInPermissions,
} as const satisfies RouteDefinition;

export const dashboardAcceptInvite = {
  id: 'dashboardAcceptInvite',
  method: 'POST',
  path: '/dashboard/invite/{token}',
  handler: 'functions/dashboard/invite-accept.ts',
  auth: 'none',
  lambda: 'dashboardSignIn',
  signature: false,
  permissions: signInPermissions,
} as const satisfies RouteDefinition;

export const dashboardEnrolPage = {
  id: 'dashboardEnrolPage',
  method: 'GET',
  path: '/dashboard/enrol',
  handler: 'functions/dashboard/enrol-page.ts',
  auth: 'session',
  lambda: 'dashboardSignIn',
  signature: false,
  permissions: signInPermissions,
} as const satisfies RouteDefinition;

export const dashboardEnrol = {
  id: 'dashboardEnrol',
  method: 'POST',
  path: '/dashboard/enrol',
  handler: 'functions/dashboard/enrol.ts',
  auth: 'session',
  lambda: 'dashboardSignIn',
  signature: false,
  permissions: signInPermissions,
} as const satisfies RouteDefinition;

export const dashboardSignInPage = {
  id: 'dashboardSignInPage',
  method: 'GET',
  path: '/dashboard/sign-in',
  handler: 'functions/dashboard/sign-in-page.ts',
  auth: 'none',
  lambda: 'dashboardSignIn',
  signature: false,
  permissions: signInPermissions,
} as const satisfies RouteDefinition;

export const dashboardSignIn = {
  id: 'dashboardSignIn',
  method: 'POST',
  path: '/dashboard/sign-in',
  handler: 'functions/dashboard/sign-in.ts',
  auth: 'none',
  lambda: 'dashboardSignIn',
  signature: false,
  permissions: signInPermissions,
} as const satisfies RouteDefinition;

export const dashboardSignOut = {
  id: 'dashboardSignOut',
  method: 'POST',
  path: '/dashboard/sign-out',
  handler: 'functions/dashboard/sign-out.ts',
  auth: 'session',
  lambda: 'dashboardSignIn',
  signature: false,
  permissions: signInPermissions,
} as const satisfies RouteDefinition;
