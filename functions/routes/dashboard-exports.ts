/**
 * Route definitions (functions/routes.ts lists them with their docs): the merchant dashboard's
 * statements (issue 28 §3). The page and the CSV download are rows of the signed-in Lambda
 * (lambdaGroups.dashboardApp); the PDF download has its own Lambda, so the PDF writer
 * (shared/services/pdf-writer.ts) stays out of the dashboard's bundle.
 */
import type { RouteDefinition } from '#shared/http/route.ts';
import { dashboardHome } from './dashboard-app.ts';

const appPermissions = dashboardHome.permissions;

export const dashboardStatements = {
  id: 'dashboardStatements',
  method: 'GET',
  path: '/dashboard/statements',
  handler: 'functions/dashboard/statements.ts',
  auth: 'session',
  permission: 'balances:read',
  lambda: 'dashboardApp',
  signature: false,
  permissions: appPermissions,
} as const satisfies RouteDefinition;

export const dashboardStatementCsv = {
  id: 'dashboardStatementCsv',
  method: 'GET',
  path: '/dashboard/statements/{period}/csv',
  handler: 'functions/dashboard/statement-csv.ts',
  auth: 'session',
  permission: 'balances:read',
  lambda: 'dashboardApp',
  signature: false,
  permissions: appPermissions,
} as const satisfies RouteDefinition;

/** Its own Lambda: the session check (sessions are touched) and the checkpoints a statement writes the first time. */
export const dashboardStatementPdf = {
  id: 'dashboardStatementPdf',
  method: 'GET',
  path: '/dashboard/statements/{period}/pdf',
  handler: 'functions/dashboard/statement-pdf.ts',
  auth: 'session',
  permission: 'balances:read',
  signature: false,
  permissions: { table: 'readWrite', secrets: ['publicPathsKey'], queries: 'table' },
} as const satisfies RouteDefinition;

/** Every row of a list (payments, payouts, refunds, settlements, audit) as CSV, with the list's filters. */
export const dashboardListExport = {
  id: 'dashboardListExport',
  method: 'GET',
  path: '/dashboard/exports/{list}',
  handler: 'functions/dashboard/list-export.ts',
  auth: 'session',
  permission: 'payments:read',
  lambda: 'dashboardApp',
  signature: false,
  permissions: appPermissions,
} as const satisfies RouteDefinition;
