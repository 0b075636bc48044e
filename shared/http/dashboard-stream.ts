import type { RouteDefinition } from './route.ts';
import { ensureStreamingRuntime } from '#shared/aws/response-stream.ts';
import { dashboardHandler, type DashboardHandler, type DashboardRequest, type DashboardResult } from './dashboard.ts';

/**
 * A dashboard row whose download is streamed (route.ts `streaming`: the CSV exports). The same
 * pipeline as every dashboard page (session, role, audit of a refusal), streamified
 * (`middy({ streamifyResponse: true })`): everything it refuses is refused before the first byte, as
 * a whole page; a `stream` result then goes out as it is written, its status and headers first
 * (shared/aws/response-stream.ts). Once the body has started, only the body can say what went wrong
 * (shared/services/csv-export.ts ends the file with a line saying so).
 */
export function dashboardStreamHandler(
  route: RouteDefinition,
  fn: (request: DashboardRequest) => Promise<DashboardResult>,
): DashboardHandler {
  if (!route.streaming) throw new Error(`${route.id} is not a streaming row (route.ts streaming)`);
  ensureStreamingRuntime();
  return dashboardHandler(route, fn, {}, { streamifyResponse: true });
}
