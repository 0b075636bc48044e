import * as appRows from '#functions/routes/dashboard-app.ts';
import * as statementRows from '#functions/routes/dashboard-exports.ts';
import { groupHandler } from './group.ts';
import * as settlements from './settlements.ts';
import * as settlementRequest from './settlement-request.ts';
import * as settlement from './settlement.ts';
import * as teamRole from './team-role.ts';
import * as teamRemove from './team-remove.ts';
import * as developersCreateKey from './developers-create-key.ts';
import * as webhooks from './webhooks.ts';
import * as webhooksSave from './webhooks-save.ts';
import * as webhooksRotate from './webhooks-rotate.ts';
import * as webhooksState from './webhooks-state.ts';
import * as webhooksTest from './webhooks-test.ts';
import * as event from './event.ts';
import * as eventResend from './event-resend.ts';
import * as developers from './developers.ts';
import * as developersRevoke from './developers-revoke.ts';
import * as developersRoll from './developers-roll.ts';
import * as home from './home.ts';
import * as payoutApprove from './payout-approve.ts';
import * as payoutCreate from './payout-create.ts';
import * as payoutReject from './payout-reject.ts';
import * as payouts from './payouts.ts';
import * as mode from './mode.ts';
import * as payment from './payment.ts';
import * as payments from './payments.ts';
import * as paymentsExport from './payments-export.ts';
import * as refund from './refund.ts';
import * as team from './team.ts';
import * as teamInvite from './team-invite.ts';
import * as settlementApprove from './settlement-approve.ts';
import * as settlementReject from './settlement-reject.ts';
import * as refunds from './refunds.ts';
import * as refundApprove from './refund-approve.ts';
import * as refundReject from './refund-reject.ts';
import * as balance from './balance.ts';
import * as statements from './statements.ts';
import * as statementCsv from './statement-csv.ts';
import * as listExport from './list-export.ts';
import * as settings from './settings.ts';
import * as settingsSave from './settings-save.ts';
import * as links from './links.ts';
import * as linkCreate from './link-create.ts';
import * as link from './link.ts';
import * as linkDeactivate from './link-deactivate.ts';
import * as linkReactivate from './link-reactivate.ts';
import '#shared/providers/live/boot-refunds.ts';
import '#shared/providers/live/boot-payouts.ts';
import '#shared/providers/live/boot-wallet-presence.ts';

/** The dashboard's signed-in Lambda (routes.ts lambdaGroups.dashboardApp). */
const { dashboardStatementPdf: _ownLambda, ...statementAppRows } = statementRows;
export const handler = groupHandler('dashboardApp', { ...appRows, ...statementAppRows }, [
  statements,
  statementCsv,
  listExport,
  home,
  payments,
  paymentsExport,
  payment,
  refund,
  mode,
  team,
  teamInvite,
  developers,
  payouts,
  payoutCreate,
  payoutApprove,
  payoutReject,
  developersRoll,
  developersRevoke,
  developersCreateKey,
  webhooks,
  webhooksSave,
  webhooksRotate,
  webhooksState,
  webhooksTest,
  event,
  eventResend,
  teamRole,
  teamRemove,
  settlements,
  settlementRequest,
  settlement,
  settlementApprove,
  settlementReject,
  refunds,
  refundApprove,
  refundReject,
  balance,
  settings,
  settingsSave,
  links,
  linkCreate,
  link,
  linkDeactivate,
  linkReactivate,
]);
