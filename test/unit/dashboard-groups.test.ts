import type { APIGatewayProxyEvent, Context } from 'aws-lambda';
import { describe, expect, it } from 'vitest';
import * as signInRows from '#functions/routes/dashboard-sign-in.ts';
import { groupHandler } from '#functions/dashboard/group.ts';
import * as signIn from '#functions/dashboard/sign-in.ts';
import * as signInPage from '#functions/dashboard/sign-in-page.ts';

/**
 * The dashboard's rows share two Lambdas (routes.ts lambdaGroups). A group is built from its handler
 * modules alone (each handler carries its row), so no path is written twice; building it checks that
 * every row of the group has its module.
 */
describe('dashboard group Lambdas', () => {
  it('both groups are built: every dashboard row has its module, by the row its handler carries', async () => {
    for (const file of ['app-lambda.ts', 'sign-in-lambda.ts']) {
      const { handler } = await import(`../../functions/dashboard/${file}`);
      expect(typeof handler, file).toBe('function');
    }
  });

  it('refuses a group that lacks a row’s module, and answers 404 to a resource that is none of its rows', async () => {
    expect(() => groupHandler('dashboardSignIn', signInRows, [signIn, signInPage])).toThrow(/lacks the module of/);
    const only = groupHandler(
      'dashboardSignIn',
      { dashboardSignIn: signInRows.dashboardSignIn, dashboardSignInPage: signInRows.dashboardSignInPage },
      [signIn, signInPage],
    );
    const response = await only({ httpMethod: 'GET', resource: '/dashboard/nowhere' } as APIGatewayProxyEvent, {} as Context);
    expect(response.statusCode).toBe(404);
  });
});
