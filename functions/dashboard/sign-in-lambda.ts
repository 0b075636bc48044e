import * as rows from '#functions/routes/dashboard-sign-in.ts';
import { groupHandler } from './group.ts';
import * as enrol from './enrol.ts';
import * as enrolPage from './enrol-page.ts';
import * as inviteAccept from './invite-accept.ts';
import * as invitePage from './invite-page.ts';
import * as signIn from './sign-in.ts';
import * as signInPage from './sign-in-page.ts';
import * as signOut from './sign-out.ts';

/** The dashboard's sign-in Lambda (routes.ts lambdaGroups.dashboardSignIn). */
export const handler = groupHandler('dashboardSignIn', rows, {
  'functions/dashboard/invite-page.ts': invitePage,
  'functions/dashboard/invite-accept.ts': inviteAccept,
  'functions/dashboard/enrol-page.ts': enrolPage,
  'functions/dashboard/enrol.ts': enrol,
  'functions/dashboard/sign-in-page.ts': signInPage,
  'functions/dashboard/sign-in.ts': signIn,
  'functions/dashboard/sign-out.ts': signOut,
});
