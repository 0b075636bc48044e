import type { Writable } from 'node:stream';
import type { APIGatewayProxyEvent, APIGatewayProxyResult, Context } from 'aws-lambda';
import type { LambdaGroupId } from '#shared/http/route.ts';
import type { DashboardHandler } from '#shared/http/dashboard.ts';
import { ensureStreamingRuntime } from '#shared/aws/response-stream.ts';

type Handler = (event: APIGatewayProxyEvent, context: Context) => Promise<APIGatewayProxyResult>;
type StreamHandler = (event: APIGatewayProxyEvent, responseStream: Writable, context: Context) => Promise<void>;

const notFound = { statusCode: 404, headers: { 'Content-Type': 'text/plain; charset=utf-8' }, body: 'Not found' };

/** The group's handlers by `METHOD /path template`, each checked to be a row of the group. */
function byRow<H>(group: LambdaGroupId, modules: readonly { handler: DashboardHandler }[]): Map<string, H> {
  const byKey = new Map<string, H>();
  for (const { handler } of modules) {
    if (handler.route.lambda !== group) throw new Error(`${handler.route.id} is not a row of group ${group}`);
    byKey.set(`${handler.route.method} ${handler.route.path}`, handler as unknown as H);
  }
  return byKey;
}

/**
 * A Lambda that serves several rows of the route table (the dashboard's areas,
 * functions/dashboard/routes.ts): API Gateway's event names the row by its method and path template
 * (`resource`), and the row's own handler module answers, exactly as it does on the local server.
 * Each handler carries its row (dashboardHandler), so the group is just its modules: infra builds
 * the group's module from its rows (infra/dashboard-lambdas.ts), one import per row.
 */
export function groupHandler(group: LambdaGroupId, modules: readonly { handler: DashboardHandler }[]): Handler {
  const byKey = byRow<Handler>(group, modules);
  return async (event, context) => {
    const handler = byKey.get(`${event.httpMethod} ${event.resource}`);
    if (!handler) return notFound;
    return handler(event, context);
  };
}

/** The same for a group whose rows stream (route.ts `streaming`): a streamified dispatcher of streamified handlers. */
export function streamGroupHandler(group: LambdaGroupId, modules: readonly { handler: DashboardHandler }[]): StreamHandler {
  ensureStreamingRuntime();
  const byKey = byRow<StreamHandler>(group, modules);
  return awslambda.streamifyResponse(async (event: APIGatewayProxyEvent, responseStream: Writable, context: Context) => {
    const handler = byKey.get(`${event.httpMethod} ${event.resource}`);
    if (handler) return handler(event, responseStream, context);
    const { body, ...metadata } = notFound;
    awslambda.HttpResponseStream.from(responseStream, metadata).end(body);
  }) as unknown as StreamHandler;
}
