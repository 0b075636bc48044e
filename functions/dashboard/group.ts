import type { APIGatewayProxyEvent, APIGatewayProxyResult, Context } from 'aws-lambda';
import type { LambdaGroupId } from '#shared/http/route.ts';
import type { DashboardHandler } from '#shared/http/dashboard.ts';

type Handler = (event: APIGatewayProxyEvent, context: Context) => Promise<APIGatewayProxyResult>;

/**
 * A Lambda that serves several rows of the route table (the dashboard's areas,
 * functions/dashboard/routes.ts): API Gateway's event names the row by its method and path template
 * (`resource`), and the row's own handler module answers, exactly as it does on the local server.
 * Each handler carries its row (dashboardHandler), so the group is just its modules: infra builds
 * the group's module from its rows (infra/dashboard-lambdas.ts), one import per row.
 */
export function groupHandler(group: LambdaGroupId, modules: readonly { handler: DashboardHandler }[]): Handler {
  const byKey = new Map<string, Handler>();
  for (const { handler } of modules) {
    if (handler.route.lambda !== group) throw new Error(`${handler.route.id} is not a row of group ${group}`);
    byKey.set(`${handler.route.method} ${handler.route.path}`, handler);
  }
  return async (event, context) => {
    const handler = byKey.get(`${event.httpMethod} ${event.resource}`);
    if (!handler) return { statusCode: 404, headers: { 'Content-Type': 'text/plain; charset=utf-8' }, body: 'Not found' };
    return handler(event, context);
  };
}
