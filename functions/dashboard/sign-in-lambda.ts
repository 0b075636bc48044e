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
export const handler = groupHandler('dashboardSignIn', rows, [invitePage, inviteAccept, enrolPage, enrol, signInPage, signIn, signOut]);
