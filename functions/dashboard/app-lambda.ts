import { groupHandler } from './group.ts';
import * as home from './home.ts';
import * as mode from './mode.ts';
import * as payment from './payment.ts';
import * as payments from './payments.ts';
import * as paymentsExport from './payments-export.ts';
import * as refund from './refund.ts';
import * as team from './team.ts';
import * as teamInvite from './team-invite.ts';

/** The dashboard's signed-in Lambda (routes.ts lambdaGroups.dashboardApp). */
export const handler = groupHandler('dashboardApp', {
  'functions/dashboard/home.ts': home,
  'functions/dashboard/payments.ts': payments,
  'functions/dashboard/payments-export.ts': paymentsExport,
  'functions/dashboard/payment.ts': payment,
  'functions/dashboard/refund.ts': refund,
  'functions/dashboard/mode.ts': mode,
  'functions/dashboard/team.ts': team,
  'functions/dashboard/team-invite.ts': teamInvite,
});
