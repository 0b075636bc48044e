import { randomBytes } from 'node:crypto';
import type { Socket } from 'node:dgram';

/**
 * X-Ray subsegments for the AWS SDK calls (DynamoDB, SQS), without the X-Ray SDK. Lambda's active
 * tracing (infra/gateway-function.ts, `Tracing.ACTIVE`) records each invocation's function segment
 * and hands the function its trace header; traceAwsClient adds one subsegment per SDK call under
 * that segment (name `DynamoDB` / `SQS`, namespace `aws`, operation, table or queue, request id,
 * HTTP status, error / fault / throttle flags) and passes the header on to the service, as the
 * X-Ray SDK's captureAWSv3Client did. Documents go as UDP datagrams to the X-Ray daemon Lambda
 * runs beside every traced function (AWS_XRAY_DAEMON_ADDRESS). The X-Ray SDK (with semver and
 * cls-hooked, about 110 kB minified) was most of each function's tracing cost for these few
 * fields (docs/scaling.md, Lambda bundles). Outside Lambda (no trace header) nothing is added to
 * a request and nothing is sent.
 */

interface TraceHeader {
  root: string;
  parent: string;
  sampled: boolean;
}

/** The invocation's trace header: Lambda's per-invocation store (Node.js 22+ runtimes), else _X_AMZN_TRACE_ID. */
export function currentTraceHeader(env: NodeJS.ProcessEnv = process.env): TraceHeader | undefined {
  const store = (globalThis as { awslambda?: { InvokeStore?: { getXRayTraceId?: () => string | undefined } } }).awslambda?.InvokeStore;
  const header = store?.getXRayTraceId?.() ?? env._X_AMZN_TRACE_ID;
  if (!header) return undefined;
  const fields = new Map(header.split(';').map((part) => part.trim().split('=') as [string, string]));
  const root = fields.get('Root');
  const parent = fields.get('Parent');
  if (!root || !parent) return undefined;
  return { root, parent, sampled: fields.get('Sampled') === '1' };
}

/** `host:port`, or the `tcp:host:port udp:host:port` form; the UDP address is the one used. */
export function daemonAddress(env: NodeJS.ProcessEnv = process.env): { host: string; port: number } | undefined {
  const value = env.AWS_XRAY_DAEMON_ADDRESS?.trim();
  if (!value) return undefined;
  const udp = value.split(/\s+/).find((part) => part.startsWith('udp:')) ?? value.split(/\s+/)[0]!;
  const address = udp.replace(/^(udp|tcp):/, '');
  const colon = address.lastIndexOf(':');
  const port = Number(address.slice(colon + 1));
  if (colon < 1 || !Number.isInteger(port) || port < 1 || port > 65535) return undefined;
  return { host: address.slice(0, colon), port };
}

let socket: Socket | undefined;

function emit(document: Record<string, unknown>): void {
  const address = daemonAddress();
  if (!address) return;
  try {
    // node:dgram is loaded here, at the first document, not when the module loads: outside Lambda
    // (no daemon) it is never loaded, and in Lambda it leaves the init phase (issue 26, module load).
    socket ??= process.getBuiltinModule('node:dgram').createSocket('udp4').unref();
    socket.send(`{"format":"json","version":1}\n${JSON.stringify(document)}`, address.port, address.host, () => undefined);
  } catch {
    // Tracing must never fail the call it observes.
  }
}

/** Test seam: close the socket (a test's daemon went away). */
export function closeTraceSocket(): void {
  socket?.close();
  socket = undefined;
}

interface SdkError {
  name?: string;
  message?: string;
  $metadata?: { httpStatusCode?: number; requestId?: string; attempts?: number };
  $retryable?: { throttling?: boolean };
}

interface SdkOutput {
  $metadata?: { httpStatusCode?: number; requestId?: string; attempts?: number };
}

/** The fields of the SDK's middleware interface used here (a structural type: no SDK import). */
interface TracedClient {
  config: { region: string | (() => Promise<string>) };
  middlewareStack: {
    remove(name: string): boolean;
    add(
      middleware: (
        next: (args: { input: object; request?: unknown }) => Promise<{ output: SdkOutput }>,
        context: { clientName?: string; commandName?: string },
      ) => (args: { input: object; request?: unknown }) => Promise<{ output: SdkOutput }>,
      options: { step: 'build'; name: string },
    ): void;
  };
}

const middlewareName = 'gatewayXRaySubsegments';
const seconds = () => Date.now() / 1000;

/** Adds one X-Ray subsegment per call of `client` (idempotent). */
export function traceAwsClient<C extends object>(client: C): C {
  const traced = client as unknown as TracedClient;
  traced.middlewareStack.remove(middlewareName);
  traced.middlewareStack.add(
    (next, context) => async (args) => {
      const trace = currentTraceHeader();
      if (!trace) return next(args);
      const id = randomBytes(8).toString('hex');
      const request = args.request as { headers?: Record<string, string> } | undefined;
      if (request?.headers) request.headers['X-Amzn-Trace-Id'] = `Root=${trace.root};Parent=${id};Sampled=${trace.sampled ? 1 : 0}`;
      if (!trace.sampled) return next(args);

      const started = seconds();
      const input = args.input as { TableName?: string; QueueUrl?: string };
      const subsegment = async (metadata: SdkOutput['$metadata'], error?: SdkError) => {
        const status = metadata?.httpStatusCode;
        const region = typeof traced.config.region === 'function' ? await traced.config.region() : traced.config.region;
        const operation = (context.commandName ?? 'Unknown').replace(/Command$/, '');
        const throttled = status === 429 || error?.$retryable?.throttling === true || /Throttl|ThroughputExceeded/.test(error?.name ?? '');
        emit({
          id,
          trace_id: trace.root,
          parent_id: trace.parent,
          type: 'subsegment',
          name: (context.clientName ?? 'AWS').replace(/Client$/, ''),
          namespace: 'aws',
          start_time: started,
          end_time: seconds(),
          aws: {
            operation,
            region,
            ...(metadata?.requestId ? { request_id: metadata.requestId } : {}),
            ...(metadata?.attempts ? { retries: metadata.attempts - 1 } : {}),
            ...(input.TableName ? { table_name: input.TableName } : {}),
            ...(input.QueueUrl ? { queue_url: input.QueueUrl } : {}),
          },
          ...(status ? { http: { response: { status } } } : {}),
          ...(throttled ? { throttle: true } : {}),
          ...(error && (status === undefined || status >= 500) ? { fault: true } : error ? { error: true } : {}),
          ...(error
            ? { cause: { exceptions: [{ id: randomBytes(8).toString('hex'), type: error.name, message: error.message, remote: true }] } }
            : {}),
        });
      };
      try {
        const result = await next(args);
        await subsegment(result.output.$metadata).catch(() => undefined);
        return result;
      } catch (error) {
        await subsegment((error as SdkError).$metadata, error as SdkError).catch(() => undefined);
        throw error;
      }
    },
    { step: 'build', name: middlewareName },
  );
  return client;
}
