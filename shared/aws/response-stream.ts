import type { Writable } from 'node:stream';

/**
 * Lambda response streaming (docs/scaling.md, CSV exports). The Node.js runtime defines the global
 * `awslambda` before it loads a handler: `streamifyResponse(fn)` marks a handler that takes
 * `(event, responseStream, context)`, and `HttpResponseStream.from(stream, metadata)` starts the
 * body API Gateway's STREAM mode expects: the metadata (statusCode, headers, cookies) as JSON, 8 zero
 * bytes, then the payload as it is written. Where no runtime defines it (the local server, the tests,
 * the rehearsal's sandboxes) this module defines the same two calls, so the one handler runs
 * everywhere; scripts/local/response-stream.ts reads such a stream back as API Gateway does.
 */
export const streamingHandlerMark = Symbol.for('aws.lambda.runtime.handler.streaming');
export const httpIntegrationContentType = 'application/vnd.awslambda.http-integration-response';
/** What separates the metadata JSON from the payload. */
export const preludeDelimiter = new Uint8Array(8);

type ResponseStream = Writable & { setContentType?: (type: string) => void };

const standIn = {
  streamifyResponse: <H extends object>(handler: H): H => Object.assign(handler, { [streamingHandlerMark]: 'response' }),
  HttpResponseStream: {
    from(stream: ResponseStream, metadata: Record<string, unknown>): ResponseStream {
      stream.setContentType?.(httpIntegrationContentType);
      stream.write(JSON.stringify(metadata));
      stream.write(preludeDelimiter);
      return stream;
    },
  },
};

/**
 * Installs the stand-in where the Lambda runtime did not define the calls (call before middy streamifies).
 * Other libraries may have made `awslambda` already (the AWS SDK's invoke store puts its own member there).
 */
export function ensureStreamingRuntime(): void {
  const global = globalThis as { awslambda?: Partial<typeof standIn> };
  global.awslambda ??= {};
  global.awslambda.streamifyResponse ??= standIn.streamifyResponse;
  global.awslambda.HttpResponseStream ??= standIn.HttpResponseStream;
}
