/**
 * Route definitions (functions/routes.ts, the one route table, lists them with their docs):
 * The merchant dashboard’s signed-in Lambda (routes.ts lambdaGroups.dashboardApp): its pages and actions.
 * A handler imports its own row from here, so its bundle holds that row only (no other route, no
 * summary, docs or examples: functions/route-docs.ts).
 */
import type { RouteDefinition } from '#shared/http/route.ts';

/**
 * The signed-in dashboard: every page touches the session and may move money (refunds, payouts,
 * settlements: the live providers), unseal merchants' secrets (webhook secrets), check a fresh
 * second-factor code before minting a money-out API key (step-up: the TOTP seal key), and check in
 * one transaction that another administrator remains (ConditionCheck items).
 */
const appPermissions = {
  table: 'readWrite',
  secrets: ['masterKey', 'publicPathsKey', 'liveProviders', 'totpKey'],
  conditionChecks: true,
  batchGets: true,
  queries: 'tableAndIndexes',
} as const satisfies RouteDefinition['permissions'];

export const dashboardHome = {
  id: 'dashboardHome',
  method: 'GET',
  path: '/dashboard',
  handler: 'functions/dashboard/home.ts',
  auth: 'session',
  permission: 'balances:read',
  lambda: 'dashboardApp',
  signature: false,
  permissions: appPermissions,
} as const satisfies RouteDefinition;

export const dashboardPayments = {
  id: 'dashboardPayments',
  method: 'GET',
  path: '/dashboard/payments',
  handler: 'functions/dashboard/payments.ts',
  auth: 'session',
  permission: 'payments:read',
  lambda: 'dashboardApp',
  signature: false,
  permissions: appPermissions,
} as const satisfies RouteDefinition;

export const dashboardPaymentsExport = {
  id: 'dashboardPaymentsExport',
  method: 'GET',
  path: '/dashboard/payments/export',
  handler: 'functions/dashboard/payments-export.ts',
  auth: 'session',
  permission: 'payments:read',
  lambda: 'dashboardApp',
  signature: false,
  permissions: appPermissions,
} as const satisfies RouteDefinition;

export const dashboardPayment = {
  id: 'dashboardPayment',
  method: 'GET',
  path: '/dashboard/payments/{id}',
  handler: 'functions/dashboard/payment.ts',
  auth: 'session',
  permission: 'payments:read',
  lambda: 'dashboardApp',
  signature: false,
  permissions: appPermissions,
} as const satisfies RouteDefinition;

export const dashboardRefund = {
  id: 'dashboardRefund',
  method: 'POST',
  path: '/dashboard/payments/{id}/refund',
  handler: 'functions/dashboard/refund.ts',
  auth: 'session',
  permission: 'refunds:create',
  lambda: 'dashboardApp',
  signature: false,
  permissions: appPermissions,
} as const satisfies RouteDefinition;

export const dashboardMode = {
  id: 'dashboardMode',
  method: 'POST',
  path: '/dashboard/mode',
  handler: 'functions/dashboard/mode.ts',
  auth: 'session',
  lambda: 'dashboardApp',
  signature: false,
  permissions: appPermissions,
} as const satisfies RouteDefinition;

export const dashboardTeam = {
  id: 'dashboardTeam',
  method: 'GET',
  path: '/dashboard/team',
  handler: 'functions/dashboard/team.ts',
  auth: 'session',
  permission: 'team:manage',
  lambda: 'dashboardApp',
  signature: false,
  permissions: appPermissions,
} as const satisfies RouteDefinition;

export const dashboardTeamInvite = {
  id: 'dashboardTeamInvite',
  method: 'POST',
  path: '/dashboard/team/invite',
  handler: 'functions/dashboard/team-invite.ts',
  auth: 'session',
  permission: 'team:manage',
  lambda: 'dashboardApp',
  signature: false,
  permissions: appPermissions,
} as const satisfies RouteDefinition;

export const dashboardDevelopers = {
  id: 'dashboardDevelopers',
  method: 'GET',
  path: '/dashboard/developers',
  handler: 'functions/dashboard/developers.ts',
  auth: 'session',
  permission: 'keys:manage',
  lambda: 'dashboardApp',
  signature: false,
  permissions: appPermissions,
} as const satisfies RouteDefinition;

export const dashboardRollKey = {
  id: 'dashboardRollKey',
  method: 'POST',
  path: '/dashboard/developers/keys/roll',
  handler: 'functions/dashboard/developers-roll.ts',
  auth: 'session',
  permission: 'keys:manage',
  lambda: 'dashboardApp',
  signature: false,
  permissions: appPermissions,
} as const satisfies RouteDefinition;

export const dashboardRevokeKey = {
  id: 'dashboardRevokeKey',
  method: 'POST',
  path: '/dashboard/developers/keys/revoke',
  handler: 'functions/dashboard/developers-revoke.ts',
  auth: 'session',
  permission: 'keys:manage',
  lambda: 'dashboardApp',
  signature: false,
  permissions: appPermissions,
} as const satisfies RouteDefinition;

export const dashboardPayouts = {
  id: 'dashboardPayouts',
  method: 'GET',
  path: '/dashboard/payouts',
  handler: 'functions/dashboard/payouts.ts',
  auth: 'session',
  permission: 'payments:read',
  lambda: 'dashboardApp',
  signature: false,
  permissions: appPermissions,
} as const satisfies RouteDefinition;

export const dashboardCreatePayout = {
  id: 'dashboardCreatePayout',
  method: 'POST',
  path: '/dashboard/payouts',
  handler: 'functions/dashboard/payout-create.ts',
  auth: 'session',
  permission: 'payouts:create',
  lambda: 'dashboardApp',
  signature: false,
  permissions: appPermissions,
} as const satisfies RouteDefinition;

export const dashboardApprovePayout = {
  id: 'dashboardApprovePayout',
  method: 'POST',
  path: '/dashboard/payouts/{id}/approve',
  handler: 'functions/dashboard/payout-approve.ts',
  auth: 'session',
  permission: 'payouts:approve',
  lambda: 'dashboardApp',
  signature: false,
  permissions: appPermissions,
} as const satisfies RouteDefinition;

export const dashboardRejectPayout = {
  id: 'dashboardRejectPayout',
  method: 'POST',
  path: '/dashboard/payouts/{id}/reject',
  handler: 'functions/dashboard/payout-reject.ts',
  auth: 'session',
  permission: 'payouts:approve',
  lambda: 'dashboardApp',
  signature: false,
  permissions: appPermissions,
} as const satisfies RouteDefinition;

export const dashboardCreateKey = {
  id: 'dashboardCreateKey',
  method: 'POST',
  path: '/dashboard/developers/keys',
  handler: 'functions/dashboard/developers-create-key.ts',
  auth: 'session',
  permission: 'keys:manage',
  lambda: 'dashboardApp',
  signature: false,
  permissions: appPermissions,
} as const satisfies RouteDefinition;

export const dashboardWebhooks = {
  id: 'dashboardWebhooks',
  method: 'GET',
  path: '/dashboard/developers/webhooks',
  handler: 'functions/dashboard/webhooks.ts',
  auth: 'session',
  permission: 'webhooks:manage',
  lambda: 'dashboardApp',
  signature: false,
  permissions: appPermissions,
} as const satisfies RouteDefinition;

export const dashboardSaveWebhook = {
  id: 'dashboardSaveWebhook',
  method: 'POST',
  path: '/dashboard/developers/webhooks',
  handler: 'functions/dashboard/webhooks-save.ts',
  auth: 'session',
  permission: 'webhooks:manage',
  lambda: 'dashboardApp',
  signature: false,
  permissions: appPermissions,
} as const satisfies RouteDefinition;

export const dashboardRotateWebhookSecret = {
  id: 'dashboardRotateWebhookSecret',
  method: 'POST',
  path: '/dashboard/developers/webhooks/rotate',
  handler: 'functions/dashboard/webhooks-rotate.ts',
  auth: 'session',
  permission: 'webhooks:manage',
  lambda: 'dashboardApp',
  signature: false,
  permissions: appPermissions,
} as const satisfies RouteDefinition;

export const dashboardWebhookState = {
  id: 'dashboardWebhookState',
  method: 'POST',
  path: '/dashboard/developers/webhooks/state',
  handler: 'functions/dashboard/webhooks-state.ts',
  auth: 'session',
  permission: 'webhooks:manage',
  lambda: 'dashboardApp',
  signature: false,
  permissions: appPermissions,
} as const satisfies RouteDefinition;

export const dashboardWebhookTest = {
  id: 'dashboardWebhookTest',
  method: 'POST',
  path: '/dashboard/developers/webhooks/test',
  handler: 'functions/dashboard/webhooks-test.ts',
  auth: 'session',
  permission: 'webhooks:manage',
  lambda: 'dashboardApp',
  signature: false,
  permissions: appPermissions,
} as const satisfies RouteDefinition;

export const dashboardEvent = {
  id: 'dashboardEvent',
  method: 'GET',
  path: '/dashboard/events/{eventId}',
  handler: 'functions/dashboard/event.ts',
  auth: 'session',
  permission: 'payments:read',
  lambda: 'dashboardApp',
  signature: false,
  permissions: appPermissions,
} as const satisfies RouteDefinition;

export const dashboardResendEvent = {
  id: 'dashboardResendEvent',
  method: 'POST',
  path: '/dashboard/events/{eventId}/resend',
  handler: 'functions/dashboard/event-resend.ts',
  auth: 'session',
  permission: 'webhooks:manage',
  lambda: 'dashboardApp',
  signature: false,
  permissions: appPermissions,
} as const satisfies RouteDefinition;

export const dashboardTeamRole = {
  id: 'dashboardTeamRole',
  method: 'POST',
  path: '/dashboard/team/{userId}/role',
  handler: 'functions/dashboard/team-role.ts',
  auth: 'session',
  permission: 'team:manage',
  lambda: 'dashboardApp',
  signature: false,
  permissions: appPermissions,
} as const satisfies RouteDefinition;

export const dashboardTeamRemove = {
  id: 'dashboardTeamRemove',
  method: 'POST',
  path: '/dashboard/team/{userId}/remove',
  handler: 'functions/dashboard/team-remove.ts',
  auth: 'session',
  permission: 'team:manage',
  lambda: 'dashboardApp',
  signature: false,
  permissions: appPermissions,
} as const satisfies RouteDefinition;

export const dashboardSettlements = {
  id: 'dashboardSettlements',
  method: 'GET',
  path: '/dashboard/settlements',
  handler: 'functions/dashboard/settlements.ts',
  auth: 'session',
  permission: 'payments:read',
  lambda: 'dashboardApp',
  signature: false,
  permissions: appPermissions,
} as const satisfies RouteDefinition;

export const dashboardRequestSettlement = {
  id: 'dashboardRequestSettlement',
  method: 'POST',
  path: '/dashboard/settlements',
  handler: 'functions/dashboard/settlement-request.ts',
  auth: 'session',
  permission: 'settlements:create',
  lambda: 'dashboardApp',
  signature: false,
  permissions: appPermissions,
} as const satisfies RouteDefinition;

export const dashboardSettlement = {
  id: 'dashboardSettlement',
  method: 'GET',
  path: '/dashboard/settlements/{id}',
  handler: 'functions/dashboard/settlement.ts',
  auth: 'session',
  permission: 'payments:read',
  lambda: 'dashboardApp',
  signature: false,
  permissions: appPermissions,
} as const satisfies RouteDefinition;

export const dashboardApproveSettlement = {
  id: 'dashboardApproveSettlement',
  method: 'POST',
  path: '/dashboard/settlements/{id}/approve',
  handler: 'functions/dashboard/settlement-approve.ts',
  auth: 'session',
  permission: 'settlements:approve',
  lambda: 'dashboardApp',
  signature: false,
  permissions: appPermissions,
} as const satisfies RouteDefinition;

export const dashboardRejectSettlement = {
  id: 'dashboardRejectSettlement',
  method: 'POST',
  path: '/dashboard/settlements/{id}/reject',
  handler: 'functions/dashboard/settlement-reject.ts',
  auth: 'session',
  permission: 'settlements:approve',
  lambda: 'dashboardApp',
  signature: false,
  permissions: appPermissions,
} as const satisfies RouteDefinition;

export const dashboardBalance = {
  id: 'dashboardBalance',
  method: 'GET',
  path: '/dashboard/balance',
  handler: 'functions/dashboard/balance.ts',
  auth: 'session',
  permission: 'balances:read',
  lambda: 'dashboardApp',
  signature: false,
  permissions: appPermissions,
} as const satisfies RouteDefinition;

export const dashboardRefunds = {
  id: 'dashboardRefunds',
  method: 'GET',
  path: '/dashboard/refunds',
  handler: 'functions/dashboard/refunds.ts',
  auth: 'session',
  permission: 'payments:read',
  lambda: 'dashboardApp',
  signature: false,
  permissions: appPermissions,
} as const satisfies RouteDefinition;

export const dashboardApproveRefund = {
  id: 'dashboardApproveRefund',
  method: 'POST',
  path: '/dashboard/refunds/{id}/approve',
  handler: 'functions/dashboard/refund-approve.ts',
  auth: 'session',
  permission: 'refunds:approve',
  lambda: 'dashboardApp',
  signature: false,
  permissions: appPermissions,
} as const satisfies RouteDefinition;

export const dashboardRejectRefund = {
  id: 'dashboardRejectRefund',
  method: 'POST',
  path: '/dashboard/refunds/{id}/reject',
  handler: 'functions/dashboard/refund-reject.ts',
  auth: 'session',
  permission: 'refunds:approve',
  lambda: 'dashboardApp',
  signature: false,
  permissions: appPermissions,
} as const satisfies RouteDefinition;

export const dashboardSettings = {
  id: 'dashboardSettings',
  method: 'GET',
  path: '/dashboard/settings',
  handler: 'functions/dashboard/settings.ts',
  auth: 'session',
  permission: 'settings:manage',
  lambda: 'dashboardApp',
  signature: false,
  permissions: appPermissions,
} as const satisfies RouteDefinition;

export const dashboardSaveSettings = {
  id: 'dashboardSaveSettings',
  method: 'POST',
  path: '/dashboard/settings',
  handler: 'functions/dashboard/settings-save.ts',
  auth: 'session',
  permission: 'settings:manage',
  lambda: 'dashboardApp',
  signature: false,
  permissions: appPermissions,
} as const satisfies RouteDefinition;

export const dashboardLinks = {
  id: 'dashboardLinks',
  method: 'GET',
  path: '/dashboard/links',
  handler: 'functions/dashboard/links.ts',
  auth: 'session',
  permission: 'payments:read',
  lambda: 'dashboardApp',
  signature: false,
  permissions: appPermissions,
} as const satisfies RouteDefinition;

export const dashboardCreateLink = {
  id: 'dashboardCreateLink',
  method: 'POST',
  path: '/dashboard/links',
  handler: 'functions/dashboard/link-create.ts',
  auth: 'session',
  permission: 'links:manage',
  lambda: 'dashboardApp',
  signature: false,
  permissions: appPermissions,
} as const satisfies RouteDefinition;

export const dashboardLink = {
  id: 'dashboardLink',
  method: 'GET',
  path: '/dashboard/links/{id}',
  handler: 'functions/dashboard/link.ts',
  auth: 'session',
  permission: 'payments:read',
  lambda: 'dashboardApp',
  signature: false,
  permissions: appPermissions,
} as const satisfies RouteDefinition;

export const dashboardDeactivateLink = {
  id: 'dashboardDeactivateLink',
  method: 'POST',
  path: '/dashboard/links/{id}/deactivate',
  handler: 'functions/dashboard/link-deactivate.ts',
  auth: 'session',
  permission: 'links:manage',
  lambda: 'dashboardApp',
  signature: false,
  permissions: appPermissions,
} as const satisfies RouteDefinition;

export const dashboardReactivateLink = {
  id: 'dashboardReactivateLink',
  method: 'POST',
  path: '/dashboard/links/{id}/reactivate',
  handler: 'functions/dashboard/link-reactivate.ts',
  auth: 'session',
  permission: 'links:manage',
  lambda: 'dashboardApp',
  signature: false,
  permissions: appPermissions,
} as const satisfies RouteDefinition;
