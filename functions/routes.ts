/**
 * THE route table. One row per endpoint: method, path, handler file, what it may touch and what
 * the request pipeline demands. The CDK stack (one Lambda per row, least-privilege grants), the
 * local server (scripts/local/server.ts), the API docs (docs/api.md) and the OpenAPI document
 * (shared/openapi/, served and written to docs/openapi.json by `npm run docs`) all read this
 * table. It imports no handler code, so infra can load it cheaply. The rows are defined in
 * functions/routes/ (one module per area, one export per row: what a handler imports, so its Lambda
 * bundle holds its own row only), the dashboard's in its compact table functions/dashboard/routes.ts,
 * all documented in functions/route-docs.ts; this module joins them.
 */
import type { Route, RouteDefinition } from '#shared/http/route.ts';
import { routeDocs } from './route-docs.ts';
import * as account from './routes/account.ts';
import * as settlements from './routes/settlements.ts';
import * as refunds from './routes/refunds.ts';
import * as payment from './routes/payment.ts';
import * as pay from './routes/pay.ts';
import * as paymentLinks from './routes/payment-links.ts';
import * as transactions from './routes/transactions.ts';
import * as statements from './routes/statements.ts';
import * as webhooks from './routes/webhooks.ts';
import * as providers from './routes/providers.ts';
import * as reference from './routes/reference.ts';
import * as dashboard from './dashboard/routes.ts';

export { allScopes, keyHasScope, type Scope } from '#shared/domain/scopes.ts';
export {
  streamingTimeoutSeconds,
  supportedVersions,
  type HttpMethod,
  type LambdaGroupId,
  type Route,
  type RouteDefinition,
  type RouteDoc,
  type SecretName,
} from '#shared/http/route.ts';

/**
 * Rows that share one Lambda: the merchant dashboard's pages and actions are rows of this table like
 * every endpoint (docs, local server, API Gateway methods), written in their own compact table
 * (functions/dashboard/routes.ts) and served by one Lambda per area of the dashboard (its pages share
 * their services, views and grants). Each group's handler module is built from its rows
 * (infra/dashboard-lambdas.ts): it dispatches an event to the row's own handler by method and path template.
 */
export const lambdaGroups = dashboard.dashboardLambdas;

/**
 * Every row, in the order of docs/api.md and the OpenAPI document: its definition (functions/routes/,
 * what handlers import) with its summary and docs (functions/route-docs.ts, what only the table reads).
 */
const definitions = [
  account.queryBalance,
  settlements.settlementSchedule,
  settlements.createSettlement,
  settlements.getSettlement,
  settlements.listSettlements,
  refunds.createRefund,
  refunds.getRefund,
  refunds.listRefunds,
  payment.initiateCheckout,
  pay.checkoutPage,
  pay.checkoutCard,
  pay.checkoutCardReturn,
  pay.checkoutWallet,
  pay.checkoutOtp,
  pay.checkoutCancel,
  paymentLinks.createPaymentLink,
  paymentLinks.listPaymentLinks,
  paymentLinks.getPaymentLink,
  paymentLinks.deactivatePaymentLink,
  paymentLinks.reactivatePaymentLink,
  paymentLinks.paymentLinkPage,
  paymentLinks.paymentLinkPay,
  paymentLinks.paymentLinkQr,
  transactions.listTransactions,
  transactions.transactionByRef,
  transactions.transactionByRefAlias,
  transactions.listBalanceTransactions,
  statements.statementCsv,
  statements.statementPdf,
  webhooks.transactionEvents,
  webhooks.eventAttempts,
  webhooks.listEvents,
  webhooks.resendEvent,
  payment.deposit,
  providers.walletProviderCallback,
  payment.withdraw,
  reference.openApiDocument,
  reference.docsPage,
  reference.docsFile,
  ...Object.values(dashboard.signInRoutes),
  ...Object.values(dashboard.paymentsRoutes),
  ...Object.values(dashboard.refundsRoutes),
  ...Object.values(dashboard.linksRoutes),
  ...Object.values(dashboard.payoutsRoutes),
  ...Object.values(dashboard.settlementsRoutes),
  ...Object.values(dashboard.balanceRoutes),
  ...Object.values(dashboard.exportsRoutes),
  dashboard.dashboardStatementPdf,
  ...Object.values(dashboard.developersRoutes),
  ...Object.values(dashboard.teamRoutes),
] as const;

type Documented<D extends RouteDefinition> = D & Pick<Route, 'summary' | 'doc'>;
type Table<D extends readonly RouteDefinition[]> = { readonly [R in D[number] as R['id']]: Documented<R> };

function table<const D extends readonly RouteDefinition[]>(
  rows: D,
  docs: Record<D[number]['id'], Pick<Route, 'summary' | 'doc'>>,
): Table<D> {
  const out: Record<string, Route> = {};
  for (const row of rows) {
    if (out[row.id]) throw new Error(`route id ${row.id} appears twice in functions/routes.ts`);
    out[row.id] = { ...row, ...docs[row.id as D[number]['id']] };
  }
  const orphans = Object.keys(docs).filter((id) => !out[id]);
  if (orphans.length) throw new Error(`functions/route-docs.ts documents no route: ${orphans.join(', ')}`);
  return out as Table<D>;
}

export type RouteId = (typeof definitions)[number]['id'];
export const routes = table(definitions, routeDocs);

export const routeList: readonly Route[] = Object.values(routes);
