import type { APIGatewayProxyEvent, APIGatewayProxyResult, Context } from 'aws-lambda';
import type { LambdaGroupId, RouteDefinition } from '#functions/routes.ts';

type Handler = (event: APIGatewayProxyEvent, context: Context) => Promise<APIGatewayProxyResult>;

/**
 * A Lambda that serves several rows of the route table (routes.ts lambdaGroups): API Gateway's
 * event names the row by its method and path template (`resource`), and the row's own handler
 * module answers, exactly as it does on the local server. `rows` are the group's definitions
 * (functions/routes/dashboard-*.ts), not the whole table, so the bundle holds no other route.
 */
export function groupHandler(
  group: LambdaGroupId,
  rows: Record<string, RouteDefinition>,
  modules: Record<string, { handler: Handler }>,
): Handler {
  const byKey = new Map<string, Handler>();
  for (const route of Object.values(rows)) {
    if (route.lambda !== group) throw new Error(`${route.id} is not a row of group ${group}`);
    const module = modules[route.handler];
    if (!module) throw new Error(`group ${group} lacks the module of ${route.id} (${route.handler})`);
    byKey.set(`${route.method} ${route.path}`, module.handler);
  }
  return async (event, context) => {
    const handler = byKey.get(`${event.httpMethod} ${event.resource}`);
    if (!handler) return { statusCode: 404, headers: { 'Content-Type': 'text/plain; charset=utf-8' }, body: 'Not found' };
    return handler(event, context);
  };
}
