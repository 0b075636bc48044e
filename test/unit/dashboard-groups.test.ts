import { resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import type { APIGatewayProxyEvent, Context } from 'aws-lambda';
import { describe, expect, it } from 'vitest';
import { groupHandler } from '#functions/dashboard/group.ts';
import * as signIn from '#functions/dashboard/sign-in.ts';
import * as signInPage from '#functions/dashboard/sign-in-page.ts';
import * as team from '#functions/dashboard/team.ts';
import { type LambdaGroupId, lambdaGroups, routeList } from '#functions/routes.ts';
import { groupModule, groupModuleSource } from '#infra/dashboard-lambdas.ts';
import { repoRoot } from '#infra/bundling.ts';

/**
 * The dashboard's rows are served by one Lambda per area (functions/dashboard/routes.ts). A group's
 * handler module is generated from its rows (infra/dashboard-lambdas.ts), so no file lists a group's
 * handlers by hand and no row can lack its module.
 */
describe('dashboard group Lambdas', () => {
  const groups = Object.keys(lambdaGroups) as LambdaGroupId[];

  it.each(groups)('%s: its module imports exactly its rows’ handlers and its live boot modules, and loads', async (group) => {
    const source = groupModuleSource(group);
    const imported = [...source.matchAll(/from '\.\.\/\.\.\/(functions\/dashboard\/[\w-]+\.ts)'/g)].map((m) => m[1]);
    const rows = routeList.filter((r) => r.lambda === group);
    expect(rows.length).toBeGreaterThan(1);
    expect(imported.sort()).toEqual([...rows.map((r) => r.handler), 'functions/dashboard/group.ts'].sort());
    const boots = [...source.matchAll(/import '\.\.\/\.\.\/shared\/providers\/live\/boot-([\w-]+)\.ts'/g)].map((m) => m[1]);
    const product = { refunds: 'refunds', payouts: 'payouts', settlements: 'settlements', walletPresence: 'wallet-presence' } as const;
    expect(boots).toEqual(lambdaGroups[group].live.map((p) => product[p]));
    const { handler } = await import(pathToFileURL(resolve(repoRoot, groupModule(group))).href);
    expect(typeof handler).toBe('function');
  });

  it('refuses a module of another group, dispatches by method and path template, and answers 404 to any other resource', async () => {
    expect(() => groupHandler('dashboardSignIn', [signIn, signInPage, team])).toThrow(
      /dashboardTeam is not a row of group dashboardSignIn/,
    );
    const only = groupHandler('dashboardSignIn', [signIn, signInPage]);
    const response = await only({ httpMethod: 'GET', resource: '/dashboard/nowhere' } as APIGatewayProxyEvent, {} as Context);
    expect(response.statusCode).toBe(404);
    const wrongMethod = await only({ httpMethod: 'DELETE', resource: '/dashboard/sign-in' } as APIGatewayProxyEvent, {} as Context);
    expect(wrongMethod.statusCode).toBe(404);
  });
});
