import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

/**
 * What every provider emulator shares: a plain node:http server on 127.0.0.1 (random port), a
 * body reader, and injectable faults per endpoint:
 *   '5xx'    answer 503 without processing
 *   'drop'   process the request, then close the connection without an answer (a timeout after
 *            processing: the caller cannot know the outcome)
 *   'slow'   process, then answer after `slowMs`
 */
export type Fault = '5xx' | 'drop' | 'slow';

export interface Emulator {
  readonly url: string;
  /** The next request to `path` meets `fault` (once). */
  failNext(path: string, fault: Fault): void;
  /** How many requests reached each path (processed or not). */
  hits(path: string): number;
  /**
   * The last requests that reached a path (headers and body as sent, after the emulator's `keep`), oldest first:
   * tests read what the adapters sent. At most `keptPerPath` per path.
   */
  received(path: string): readonly Exchange[];
  close(): Promise<void>;
}

export interface Exchange {
  path: string;
  headers: IncomingMessage['headers'];
  body: string;
}
/** `drop`: the request was processed, but the connection is closed without an answer (as the 'drop' fault). */
export type Answer = { status: number; json?: unknown; text?: string; contentType?: string; drop?: boolean };
export type Handler = (exchange: Exchange) => Promise<Answer> | Answer;

/** How many requests per path an emulator keeps for received() (bounded: `npm start` runs it for hours). */
export const keptPerPath = 50;

export async function startEmulator(
  name: string,
  handle: Handler,
  options: { slowMs?: number; keep?: (exchange: Exchange) => Exchange } = {},
): Promise<Emulator> {
  const faults = new Map<string, Fault>();
  const counts = new Map<string, number>();
  const log = new Map<string, Exchange[]>();
  const server: Server = createServer((req: IncomingMessage, res: ServerResponse) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const path = (req.url ?? '/').split('?')[0]!;
      const exchange: Exchange = { path, headers: req.headers, body: Buffer.concat(chunks).toString('utf8') };
      counts.set(path, (counts.get(path) ?? 0) + 1);
      const kept = [...(log.get(path) ?? []), options.keep ? options.keep(exchange) : exchange];
      log.set(path, kept.slice(-keptPerPath));
      const fault = faults.get(path);
      faults.delete(path);
      if (fault === '5xx') {
        res.writeHead(503, { 'content-type': 'text/plain' }).end(`${name}: service unavailable`);
        return;
      }
      Promise.resolve()
        .then(() => handle(exchange))
        .then(
          (answer) => {
            if (fault === 'drop' || answer.drop) {
              res.destroy();
              return;
            }
            const send = () => {
              if (answer.json !== undefined)
                res.writeHead(answer.status, { 'content-type': 'application/json' }).end(JSON.stringify(answer.json));
              else res.writeHead(answer.status, { 'content-type': answer.contentType ?? 'text/plain' }).end(answer.text ?? '');
            };
            if (fault === 'slow') setTimeout(send, options.slowMs ?? 2_000);
            else send();
          },
          (error: unknown) =>
            res.writeHead(500, { 'content-type': 'text/plain' }).end(`${name}: ${error instanceof Error ? error.message : String(error)}`),
        );
    });
  });
  await new Promise<void>((ok) => server.listen(0, '127.0.0.1', ok));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    url,
    failNext: (path, fault) => void faults.set(path, fault),
    hits: (path) => counts.get(path) ?? 0,
    received: (path) => log.get(path) ?? [],
    close: async () => {
      server.closeAllConnections();
      await new Promise((ok) => server.close(ok));
    },
  };
}

/**
 * Posts a notification to the gateway; like a real provider it tries again (10 times, backing off
 * from 200 ms) until the gateway answers 2xx. The inquiry stays authoritative.
 */
export async function notify(url: string | undefined, body: string, contentType: string): Promise<void> {
  if (!url) return;
  for (let attempt = 1; attempt <= 10; attempt++) {
    try {
      const r = await fetch(url, { method: 'POST', headers: { 'content-type': contentType }, body, signal: AbortSignal.timeout(5_000) });
      if (r.ok) return;
    } catch {
      // tried again below; the gateway's reconciler asks the inquiry API anyway
    }
    await new Promise((ok) => setTimeout(ok, 200 * attempt));
  }
}

export const parseBody = (exchange: Exchange): Record<string, string> => {
  const type = String(exchange.headers['content-type'] ?? '');
  if (type.includes('application/x-www-form-urlencoded')) return Object.fromEntries(new URLSearchParams(exchange.body));
  try {
    const parsed = JSON.parse(exchange.body) as unknown;
    return parsed && typeof parsed === 'object' ? (parsed as Record<string, string>) : {};
  } catch {
    return {};
  }
};

const decodeHtml = (t: string) =>
  t.replace(/&(amp|lt|gt|quot|#39|#(\d+));/g, (_, name: string, code?: string) =>
    code ? String.fromCharCode(Number(code)) : ({ amp: '&', lt: '<', gt: '>', quot: '"', '#39': "'" } as Record<string, string>)[name]!,
  );

/**
 * The browser's side of the pages that post on (a checkout page to the card issuer, the issuer's
 * page back to the gateway): the forms of an HTML page, with their action and hidden fields in order.
 * The live card tests and the bench play the customer's browser with it.
 */
export function readForms(html: string): { action: string; fields: Record<string, string> }[] {
  return [...html.matchAll(/<form method="post" action="([^"]*)"[^>]*>([\s\S]*?)<\/form>/g)].map((m) => ({
    action: decodeHtml(m[1]!),
    fields: Object.fromEntries(
      [...m[2]!.matchAll(/<input type="hidden" name="([^"]*)" value="([^"]*)">/g)].map((i) => [decodeHtml(i[1]!), decodeHtml(i[2]!)]),
    ),
  }));
}
