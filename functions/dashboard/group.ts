import type { APIGatewayProxyEvent, APIGatewayProxyResult, Context } from 'aws-lambda';
import type { LambdaGroupId, RouteDefinition } from '#functions/routes.ts';
import type { DashboardHandler } from '#shared/http/dashboard.ts';

type Handler = (event: APIGatewayProxyEvent, context: Context) => Promise<APIGatewayProxyResult>;

/**
 * A Lambda that serves several rows of the route table (routes.ts lambdaGroups): API Gateway's
 * event names the row by its method and path template (`resource`), and the row's own handler
 * module answers, exactly as it does on the local server. Each handler carries its row
 * (dashboardHandler), so the group is just its modules; `rows` are the group's definitions
 * (functions/routes/dashboard-*.ts, not the whole table, so the bundle holds no other route) and
 * every one of them must have its module.
 */
export function groupHandler(
  group: LambdaGroupId,
  rows: Record<string, RouteDefinition>,
  modules: readonly { handler: DashboardHandler }[],
): Handler {
  const key = (route: Pick<RouteDefinition, 'method' | 'path'>) => `${route.method} ${route.path}`;
  const byKey = new Map<string, Handler>();
  for (const { handler } of modules) {
    if (handler.route.lambda !== group) throw new Error(`${handler.route.id} is not a row of group ${group}`);
    byKey.set(key(handler.route), handler);
  }
  for (const route of Object.values(rows)) {
    if (route.lambda !== group) throw new Error(`${route.id} is not a row of group ${group}`);
    if (!byKey.has(key(route))) throw new Error(`group ${group} lacks the module of ${route.id} (${route.handler})`);
  }
  return async (event, context) => {
    const handler = byKey.get(`${event.httpMethod} ${event.resource}`);
    if (!handler) return { statusCode: 404, headers: { 'Content-Type': 'text/plain; charset=utf-8' }, body: 'Not found' };
    return handler(event, context);
  };
}
