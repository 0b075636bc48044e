import type { APIGatewayProxyEvent, APIGatewayProxyResult, Context } from 'aws-lambda';
import { routeList, type LambdaGroupId } from '#functions/routes.ts';

type Handler = (event: APIGatewayProxyEvent, context: Context) => Promise<APIGatewayProxyResult>;

/**
 * A Lambda that serves several rows of the route table (routes.ts lambdaGroups): API Gateway's
 * event names the row by its method and path template (`resource`), and the row's own handler
 * module answers, exactly as it does on the local server.
 */
export function groupHandler(group: LambdaGroupId, modules: Record<string, { handler: Handler }>): Handler {
  const byKey = new Map<string, Handler>();
  for (const route of routeList.filter((r) => r.lambda === group)) {
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
