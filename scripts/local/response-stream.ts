import { once } from 'node:events';
import type { ServerResponse } from 'node:http';
import { PassThrough } from 'node:stream';
import { preludeDelimiter, streamingHandlerMark } from '#shared/aws/response-stream.ts';

/**
 * API Gateway's STREAM transfer mode on this machine (the local server and the deploy rehearsal): a
 * streamified handler (shared/aws/response-stream.ts) writes its metadata (status, headers, cookies)
 * as JSON, 8 zero bytes, then the body; the metadata becomes the HTTP status and headers, and the
 * body is sent on as it comes (chunked), never gathered first.
 */
export const isStreamingHandler = (handler: unknown) =>
  typeof handler === 'function' && (handler as unknown as Record<symbol, unknown>)[streamingHandlerMark] === 'response';

/** The response stream Lambda hands a streamified handler: a writable with setContentType. */
export class ResponseStreamSink extends PassThrough {
  contentType: string | undefined;
  setContentType(type: string) {
    this.contentType = type;
  }
}

export interface StreamMetadata {
  statusCode?: number;
  headers?: Record<string, string>;
  multiValueHeaders?: Record<string, string[]>;
  cookies?: string[];
}

/** API Gateway wants the metadata within the first 16 KB of the stream. */
const maxPreludeBytes = 16 * 1024;

/** Splits a streamed response into its metadata and its body (the chunks after the 8 zero bytes). */
export async function readPrelude(chunks: AsyncIterable<Uint8Array>): Promise<{ metadata: StreamMetadata; body: AsyncIterable<Buffer> }> {
  const iterator = chunks[Symbol.asyncIterator]();
  let head = Buffer.alloc(0);
  for (;;) {
    const at = head.indexOf(preludeDelimiter);
    if (at >= 0) {
      const metadata = JSON.parse(head.subarray(0, at).toString('utf8')) as StreamMetadata;
      const rest = head.subarray(at + preludeDelimiter.length);
      async function* body() {
        if (rest.length) yield rest;
        for (let next = await iterator.next(); !next.done; next = await iterator.next()) yield Buffer.from(next.value);
      }
      return { metadata, body: body() };
    }
    if (head.length > maxPreludeBytes) throw new Error('streamed response: no metadata within its first 16 KB');
    const next = await iterator.next();
    if (next.done) throw new Error('streamed response ended without its metadata');
    head = Buffer.concat([head, Buffer.from(next.value)]);
  }
}

/** Sends a streamed response on: its status and headers, then each body chunk as it comes (waiting while the client is slow). */
export async function sendStreamed(res: ServerResponse, metadata: StreamMetadata, body: AsyncIterable<Buffer>): Promise<void> {
  const headers: Record<string, string | string[]> = { ...metadata.headers, ...metadata.multiValueHeaders };
  if (metadata.cookies?.length) headers['Set-Cookie'] = metadata.cookies;
  res.writeHead(metadata.statusCode ?? 200, headers);
  for await (const chunk of body) {
    if (res.destroyed) return;
    if (!res.write(chunk)) await Promise.race([once(res, 'drain'), once(res, 'close')]);
  }
  res.end();
}
