import { randomUUID } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { PassThrough } from 'node:stream';
import type { APIGatewayProxyResult } from 'aws-lambda';
import { HttpProblem } from '#shared/http/problem.ts';
import { readPrelude, sendStreamed } from '../local/response-stream.ts';
import type { InvokeOutcome } from './runtime.ts';
import { resourcesOf, type StackTemplate } from './template.ts';

/**
 * What API Gateway answers itself in front of the rehearsal's functions: its gateway responses, as
 * the templates customize them, and a Lambda proxy integration's failures.
 */
export type GatewayAnswer = (type: string, usualStatus: number) => APIGatewayProxyResult;

/** API Gateway's own bodies for the responses the templates do not customize. */
const defaultMessages: Record<string, string> = {
  INTEGRATION_TIMEOUT: 'Endpoint request timed out',
  MISSING_AUTHENTICATION_TOKEN: 'Missing Authentication Token',
};

/**
 * A gateway response of `type` (MISSING_AUTHENTICATION_TOKEN, INTEGRATION_TIMEOUT, …) whose status
 * is `usualStatus` when nothing customizes it. As API Gateway: the template's response of that type
 * if it has one, else its DEFAULT_4XX or DEFAULT_5XX, whose status code, when set, replaces the
 * status of every response it stands in for (the gateway response types guide: "changing the
 * status code of this fallback gateway response changes the status codes of all other 5XX
 * responses to the new value").
 */
export function gatewayResponses(stacks: StackTemplate[]): GatewayAnswer {
  const byType = new Map(
    resourcesOf(stacks, 'AWS::ApiGateway::GatewayResponse').map(({ resource }) => [resource.Properties.ResponseType, resource.Properties]),
  );
  return (type, usualStatus) => {
    const own = byType.get(type);
    const g = own ?? byType.get(usualStatus >= 500 ? 'DEFAULT_5XX' : 'DEFAULT_4XX');
    const requestId = randomUUID();
    const headers: Record<string, string> = {};
    for (const [name, value] of Object.entries<string>(g?.ResponseParameters ?? {})) {
      headers[name.replace('gatewayresponse.header.', '')] = value === 'context.requestId' ? requestId : value.replace(/^'|'$/g, '');
    }
    const fallbackBody = JSON.stringify({ message: defaultMessages[type] ?? (usualStatus >= 500 ? 'Internal server error' : null) });
    const body = String(g?.ResponseTemplates?.['application/json'] ?? fallbackBody).replaceAll('$context.requestId', requestId);
    return { statusCode: g?.StatusCode ? Number(g.StatusCode) : usualStatus, headers, body };
  };
}

/**
 * A MOCK integration's answer, as API Gateway gives it (no function runs): its integration response's status, the
 * headers its response parameters map ('literal' or context.requestId) and its template with `$context.requestId`
 * substituted. Only the one default integration response the templates hold (infra/route-stack.ts addDoubledPrefixAnswer).
 */
export function mockAnswer(integration: {
  IntegrationResponses?: { StatusCode: string; ResponseParameters?: Record<string, string>; ResponseTemplates?: Record<string, string> }[];
}): APIGatewayProxyResult {
  const answer = integration.IntegrationResponses?.[0];
  if (!answer) throw new Error('a MOCK integration without an integration response');
  const requestId = randomUUID();
  const headers: Record<string, string> = {};
  for (const [name, value] of Object.entries(answer.ResponseParameters ?? {})) {
    headers[name.replace('method.response.header.', '')] = value === 'context.requestId' ? requestId : value.replace(/^'|'$/g, '');
  }
  const body = String(answer.ResponseTemplates?.['application/json'] ?? '').replaceAll('$context.requestId', requestId);
  return { statusCode: Number(answer.StatusCode), headers, body };
}

/** The path pattern of a resource path with a greedy `{name+}` parameter (a MOCK method's: ANY method). */
export const greedyPathPattern = (path: string): RegExp =>
  new RegExp(
    `^${path
      .split('/')
      .map((segment) =>
        /^\{\w+\+\}$/.test(segment) ? '.+' : /^\{\w+\}$/.test(segment) ? '[^/]+' : segment.replace(/[.*+?^${}()|[\]\\]/g, '\\$&'),
      )
      .join('/')}/?$`,
  );

/** A function as the API's methods invoke it (./runtime.ts LambdaFunction). */
export interface Invocable {
  spec: { id: string };
  invoke(event: unknown, onChunk?: (chunk: Uint8Array) => void): Promise<InvokeOutcome>;
}

/**
 * A Lambda proxy integration's answer, as API Gateway gives it: past the integration's timeout
 * (`TimeoutInMillis`, 29 s by default) INTEGRATION_TIMEOUT (504); a function error, a function past
 * its own Timeout (Lambda's "Task timed out", its sandbox ended) or an answer that is no proxy
 * result, a 502 (DEFAULT_5XX); else the function's answer.
 */
export async function invokeBehindGateway(
  fn: Invocable,
  event: unknown,
  integrationTimeoutMs: number,
  answer: GatewayAnswer,
  log: (line: string) => void = console.error,
): Promise<APIGatewayProxyResult> {
  let timer: NodeJS.Timeout | undefined;
  const integrationTimeout = new Promise<'integration-timeout'>((ok) => {
    timer = setTimeout(() => ok('integration-timeout'), integrationTimeoutMs);
  });
  const outcome = await Promise.race([fn.invoke(event), integrationTimeout]);
  clearTimeout(timer);
  if (outcome === 'integration-timeout') {
    log(`[rehearsal] ${fn.spec.id}: no answer within the integration timeout (${integrationTimeoutMs} ms)`);
    return answer('INTEGRATION_TIMEOUT', 504);
  }
  if (outcome.kind !== 'ok') {
    log(`[rehearsal] ${fn.spec.id} ${outcome.kind === 'timeout' ? 'timed out (Task timed out)' : `failed: ${outcome.errorMessage}`}`);
    return answer('DEFAULT_5XX', 502);
  }
  const result = outcome.result as APIGatewayProxyResult | undefined;
  if (!result || typeof result.statusCode !== 'number') {
    log(`[rehearsal] ${fn.spec.id}: malformed Lambda proxy response`);
    return answer('DEFAULT_5XX', 502);
  }
  return result;
}

/**
 * A Lambda proxy integration in the STREAM transfer mode (an integration URI ending in
 * `/response-streaming-invocations`): the function is invoked with its response stream, and once its
 * metadata (status, headers) and the 8-byte delimiter came, they and every later write go to the
 * client as they come (scripts/local/response-stream.ts). Before the metadata, as the buffered mode:
 * past the integration's timeout a 504; the function failing, timing out or ending without metadata,
 * a 502. After it, a failure can only cut the body short.
 */
export async function streamBehindGateway(
  fn: Invocable,
  event: unknown,
  integrationTimeoutMs: number,
  answer: GatewayAnswer,
  res: ServerResponse,
  log: (line: string) => void = console.error,
): Promise<void> {
  const send = (r: APIGatewayProxyResult) => res.writeHead(r.statusCode, (r.headers ?? {}) as Record<string, string>).end(r.body);
  const body = new PassThrough();
  const invocation = fn
    .invoke(event, (chunk) => body.write(chunk))
    .then((outcome) => {
      if (outcome.kind === 'ok') body.end();
      else body.destroy(new Error(outcome.kind === 'timeout' ? 'Task timed out' : outcome.errorMessage));
      return outcome;
    });
  let timer: NodeJS.Timeout | undefined;
  const integrationTimeout = new Promise<'integration-timeout'>((ok) => {
    timer = setTimeout(() => ok('integration-timeout'), integrationTimeoutMs);
  });
  const started = await Promise.race([readPrelude(body).catch((error: Error) => error), integrationTimeout]);
  clearTimeout(timer);
  if (started === 'integration-timeout') {
    log(`[rehearsal] ${fn.spec.id}: no response metadata within the integration timeout (${integrationTimeoutMs} ms)`);
    return void send(answer('INTEGRATION_TIMEOUT', 504));
  }
  if (started instanceof Error) {
    log(`[rehearsal] ${fn.spec.id}: streamed response failed before its metadata: ${started.message}`);
    return void send(answer('DEFAULT_5XX', 502));
  }
  try {
    await sendStreamed(res, started.metadata, started.body);
  } catch (error) {
    log(`[rehearsal] ${fn.spec.id}: streamed response cut short: ${(error as Error).message}`);
    res.destroy();
  }
  await invocation;
}

type Listener = (req: IncomingMessage, res: ServerResponse) => void;

/**
 * The API's port while the rehearsal starts: it listens first (its address is the base URL every
 * function is given), and until `open` every request is answered at once with a 503 problem and
 * `Retry-After: 1`, never held, so a script can poll it; from `open`, each goes to `handler`.
 */
export function startingGate(): { listener: Listener; open(handler: Listener): void } {
  let serve: Listener | undefined;
  return {
    listener(req, res) {
      if (serve) return serve(req, res);
      req.resume(); // the body is not read: drained so the connection can be reused
      const body = new HttpProblem(503, 'The deploy rehearsal is still starting: retry in a moment.').body(randomUUID());
      res
        .writeHead(503, { 'Content-Type': 'application/problem+json', 'Retry-After': '1', 'Cache-Control': 'no-store' })
        .end(JSON.stringify(body));
    },
    open(handler) {
      serve = handler;
    },
  };
}
