import { allScopes, isMoneyOut, type Scope } from './scopes.ts';

/**
 * Merchant dashboard roles and what each may do (docs/dashboard.md). The one table every dashboard
 * page and action checks on the server before calling a service.
 */
export const dashboardRoles = ['admin', 'developer', 'finance', 'approver', 'viewer'] as const;
export type DashboardRole = (typeof dashboardRoles)[number];

export const dashboardPermissions = [
  'balances:read',
  'payments:read',
  'refunds:create',
  'refunds:approve',
  'payouts:create',
  'payouts:approve',
  'settlements:create',
  'settlements:approve',
  'keys:manage',
  'webhooks:manage',
  'team:manage',
  'audit:read',
  'settings:manage',
  'links:manage',
] as const;
export type DashboardPermission = (typeof dashboardPermissions)[number];

const rolePermissions: Readonly<Record<DashboardRole, readonly DashboardPermission[]>> = {
  admin: dashboardPermissions,
  // links:manage: create, deactivate and reactivate payment links: the roles that take payments (admin, finance),
  // and the developer, whose keys may carry the `payments` scope that creates links through the API.
  developer: ['balances:read', 'payments:read', 'keys:manage', 'webhooks:manage', 'links:manage'],
  finance: ['balances:read', 'payments:read', 'refunds:create', 'payouts:create', 'settlements:create', 'links:manage'],
  approver: ['balances:read', 'payments:read', 'refunds:approve', 'payouts:approve', 'settlements:approve'],
  viewer: ['balances:read', 'payments:read'],
};

export function isDashboardRole(value: unknown): value is DashboardRole {
  return typeof value === 'string' && (dashboardRoles as readonly string[]).includes(value);
}

export function can(role: DashboardRole, permission: DashboardPermission): boolean {
  return rolePermissions[role].includes(permission);
}

export function permissionsOf(role: DashboardRole): readonly DashboardPermission[] {
  return rolePermissions[role];
}

/**
 * The dashboard permission an API key scope stands for: a role may put a scope on a key only when
 * it holds that permission in the dashboard, and money-out scopes only as an admin (with step-up).
 */
const scopePermission: Readonly<Record<Scope, DashboardPermission>> = {
  payments: 'payments:read',
  read: 'payments:read',
  balance: 'balances:read',
  webhooks: 'webhooks:manage',
  refunds: 'refunds:create',
  payouts: 'payouts:create',
  settlements: 'settlements:create',
};

export const mayPutOnKey = (role: DashboardRole, scope: Scope): boolean =>
  can(role, scopePermission[scope]) && (!isMoneyOut(scope) || role === 'admin');

/** The scopes `role` may put on a key it mints (create or roll), in the order of allScopes. */
export const keyScopesOf = (role: DashboardRole): Scope[] => allScopes.filter((s) => mayPutOnKey(role, s));

/** Admins see every money-out key minted in the last this many days on the Home and Developers pages. */
export const mintNoticeDays = 14;
