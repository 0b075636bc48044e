import { randomUUID } from 'node:crypto';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { APIGatewayProxyEvent, APIGatewayProxyResult, Context } from 'aws-lambda';
import { routeList, type Route } from '#functions/routes.ts';
import { securityHeaders } from '#shared/http/middlewares.ts';
import { problemFor, problems, unknownEndpointDetail } from '#shared/http/problem.ts';
import { NotFoundError } from '#shared/domain/errors.ts';
import { defaultRateLimits, rateLimitSubject, windowCounter, type RateLimits } from '#shared/http/rate-limits.ts';
import { streamingTimeoutSeconds } from '#shared/http/route.ts';
import { loadHandler } from './modules.ts';
import { isStreamingHandler, readPrelude, ResponseStreamSink, sendStreamed } from './response-stream.ts';

/**
 * The local API Gateway: matches a request against the route table, turns it into the REST API
 * proxy event API Gateway would send, and calls the same handler module the route's Lambda runs; a
 * streaming row's handler (route.ts `streaming`) as the STREAM transfer mode does (./response-stream.ts).
 */
type LambdaHandler = (event: APIGatewayProxyEvent, context: Context) => Promise<APIGatewayProxyResult>;
type StreamingHandler = (event: APIGatewayProxyEvent, responseStream: ResponseStreamSink, context: Context) => Promise<void>;

/** A streamified handler's answer, sent on as it is written; until its metadata came, a failure is a 500. */
async function serveStreamed(res: ServerResponse, handler: StreamingHandler, event: APIGatewayProxyEvent, context: Context) {
  const sink = new ResponseStreamSink();
  // The client went away: the handler's writes fail, as Lambda's do when API Gateway closes the stream.
  res.on('close', () => {
    if (!res.writableFinished) sink.destroy();
  });
  handler(event, sink, context).then(
    () => (sink.writableEnded ? undefined : sink.end()),
    (error: unknown) => sink.destroy(error as Error),
  );
  const { metadata, body } = await readPrelude(sink);
  try {
    await sendStreamed(res, metadata, body);
  } catch (error) {
    // After the status went out, a failure can only cut the body short (as API Gateway does).
    console.error('local gateway: a streamed response failed', error);
    res.destroy();
  }
}

export interface CompiledRoute {
  route: Route;
  pattern: RegExp;
  params: string[];
  literalSegments: number;
}

export function compile(route: Route): CompiledRoute {
  const params: string[] = [];
  let literalSegments = 0;
  const source = route.path
    .split('/')
    .map((segment) => {
      // `v{version}`-style segments: a literal prefix followed by one parameter.
      const match = /^([^{]*)\{(\w+)\}$/.exec(segment);
      if (!match) {
        literalSegments++;
        return segment.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
      }
      params.push(match[2]!);
      return `${match[1]!.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}([^/]+)`;
    })
    .join('/');
  return { route, pattern: new RegExp(`^${source}/?$`), params, literalSegments };
}

/** The best match: literal segments beat parameters (`/Settlements/schedule` over `/Settlements/{id}`). */
export function matchRoute(compiled: CompiledRoute[], method: string, path: string) {
  let best: { route: Route; pathParameters: Record<string, string>; score: number } | undefined;
  for (const c of compiled) {
    if (c.route.method !== method) continue;
    const m = c.pattern.exec(path);
    if (!m) continue;
    if (!best || c.literalSegments > best.score) {
      // API Gateway answers 400 to a path parameter that is not valid percent-encoded UTF-8.
      let pathParameters: Record<string, string>;
      try {
        pathParameters = Object.fromEntries(c.params.map((name, i) => [name, decodeURIComponent(m[i + 1]!)]));
      } catch {
        return 'bad-escape' as const;
      }
      best = { route: c.route, pathParameters, score: c.literalSegments };
    }
  }
  return best;
}

const maxRawBody = 1024 * 1024; // API Gateway accepts more; the pipeline's own limit is 64 KiB.

async function readBody(req: IncomingMessage): Promise<Buffer | 'too-large'> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of req) {
    size += (chunk as Buffer).length;
    if (size > maxRawBody) return 'too-large';
    chunks.push(chunk as Buffer);
  }
  return Buffer.concat(chunks);
}

function send(res: ServerResponse, result: APIGatewayProxyResult) {
  res.writeHead(result.statusCode, (result.headers ?? {}) as Record<string, string>);
  res.end(result.isBase64Encoded ? Buffer.from(result.body, 'base64') : result.body);
}

function gatewayProblem(status: 400 | 404 | 413 | 429 | 500, detail: string, retryAfterSeconds = 1): APIGatewayProxyResult {
  const traceId = randomUUID();
  const problem =
    status === 400
      ? problems.badRequest(detail, { '(path)': [detail] })
      : status === 404
        ? problemFor(new NotFoundError(detail))
        : status === 413
          ? problems.tooLarge(maxRawBody)
          : status === 429
            ? problems.tooManyRequests(detail, retryAfterSeconds)
            : problems.internal();
  return {
    statusCode: status,
    headers: { 'Content-Type': 'application/problem+json', ...securityHeaders, ...problem.extensions.headers, 'Svc-Trace-Id': traceId },
    body: JSON.stringify(problem.body(traceId)),
  };
}

export function toProxyEvent(
  req: IncomingMessage,
  url: URL,
  route: Route,
  pathParameters: Record<string, string>,
  body: Buffer,
): APIGatewayProxyEvent {
  // As API Gateway's JSON event: every name (`__proto__` and `constructor` included) an own member.
  const collect = (pairs: Iterable<[string, string]>) => {
    const all = new Map<string, string[]>();
    for (const [k, v] of pairs) all.set(k, [...(all.get(k) ?? []), v]);
    return {
      single: Object.fromEntries([...all].map(([k, vs]) => [k, vs.at(-1)!])) as Record<string, string>,
      multi: Object.fromEntries(all) as Record<string, string[]>,
    };
  };
  const rawHeaders = req.rawHeaders.flatMap((name, i) => (i % 2 === 0 ? [[name, req.rawHeaders[i + 1]!] as [string, string]] : []));
  const { single: headers, multi: multiValueHeaders } = collect(rawHeaders);
  const { single: query, multi: multiQuery } = collect(url.searchParams);
  const hasQuery = Object.keys(query).length > 0;
  const requestId = randomUUID();
  return {
    resource: route.path,
    path: url.pathname,
    httpMethod: req.method ?? 'GET',
    headers,
    multiValueHeaders,
    queryStringParameters: hasQuery ? query : null,
    multiValueQueryStringParameters: hasQuery ? multiQuery : null,
    pathParameters: Object.keys(pathParameters).length ? pathParameters : null,
    stageVariables: null,
    body: body.length ? body.toString('utf8') : null,
    isBase64Encoded: false,
    requestContext: {
      accountId: 'local',
      apiId: 'local',
      authorizer: null,
      protocol: 'HTTP/1.1',
      httpMethod: req.method ?? 'GET',
      identity: {
        sourceIp: req.socket.remoteAddress ?? '127.0.0.1',
        userAgent: req.headers['user-agent'] ?? null,
      } as APIGatewayProxyEvent['requestContext']['identity'],
      path: url.pathname,
      stage: 'local',
      requestId,
      requestTimeEpoch: Date.now(),
      resourceId: route.id,
      resourcePath: route.path,
    },
  };
}

function lambdaContext(route: Route, requestId: string): Context {
  const deadline = Date.now() + (route.streaming ? streamingTimeoutSeconds : 30) * 1000;
  return {
    callbackWaitsForEmptyEventLoop: false,
    functionName: route.id,
    functionVersion: '$LATEST',
    invokedFunctionArn: `arn:aws:lambda:local:000000000000:function:${route.id}`,
    memoryLimitInMB: '512',
    awsRequestId: requestId,
    logGroupName: `/aws/lambda/${route.id}`,
    logStreamName: 'local',
    getRemainingTimeInMillis: () => deadline - Date.now(),
    done: () => undefined,
    fail: () => undefined,
    succeed: () => undefined,
  };
}

/** `rateLimits`: the per-key / per-IP limits WAF applies when deployed (false: none, for tests that flood). */
export function createLocalServer(routes: readonly Route[] = routeList, options: { rateLimits?: RateLimits | false } = {}): Server {
  const compiled = routes.map(compile);
  const limits = options.rateLimits ?? defaultRateLimits;
  const count = limits ? windowCounter(limits) : undefined;

  return createServer(async (req, res) => {
    try {
      const url = new URL(req.url ?? '/', 'http://localhost');
      const subject =
        count && rateLimitSubject(url.pathname, req.headers['svc-api-key'] as string | undefined, req.socket.remoteAddress ?? '127.0.0.1');
      const verdict = subject ? count!(subject) : undefined;
      if (verdict && !verdict.allowed) {
        const what = subject!.kind === 'perKey' ? 'this API key' : 'this client address';
        return send(
          res,
          gatewayProblem(429, `Too many requests for ${what}; retry after the Retry-After seconds.`, verdict.retryAfterSeconds),
        );
      }
      const match = matchRoute(compiled, req.method ?? 'GET', url.pathname);
      if (!match) return send(res, gatewayProblem(404, unknownEndpointDetail(url.pathname)));
      if (match === 'bad-escape') return send(res, gatewayProblem(400, 'The request path holds a malformed percent-escape.'));
      const body = await readBody(req);
      if (body === 'too-large') return send(res, gatewayProblem(413, 'too large'));
      const event = toProxyEvent(req, url, match.route, match.pathParameters, body);
      const handler = await loadHandler<LambdaHandler | StreamingHandler>(match.route.handler);
      const context = lambdaContext(match.route, event.requestContext.requestId);
      if (isStreamingHandler(handler)) return await serveStreamed(res, handler as StreamingHandler, event, context);
      send(res, await (handler as LambdaHandler)(event, context));
    } catch (error) {
      console.error('local gateway error', error);
      if (res.headersSent) res.destroy();
      else send(res, gatewayProblem(500, 'internal'));
    }
  });
}
