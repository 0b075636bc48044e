import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { startingGate } from '../../scripts/rehearse/gateway.ts';

/**
 * The rehearsal's API port while it starts (issue 42: "until it is ready, the rehearsal answers every
 * request at once (503 with a problem body), so scripts can poll it"): before `open` a request of any
 * method and path gets the 503 problem at once, body or not; from `open` the handler answers.
 */
let server: Server | undefined;
afterEach(async () => {
  server?.closeAllConnections();
  await new Promise((ok) => server?.close(ok) ?? ok(undefined));
});

async function serve(listener: Parameters<typeof createServer>[1]) {
  server = createServer(listener!);
  await new Promise<void>((ok) => server!.listen(0, '127.0.0.1', ok));
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}

describe('the rehearsal API while it starts', () => {
  it('answers 503 with a problem body and Retry-After at once, then serves once opened', async () => {
    const gate = startingGate();
    const base = await serve(gate.listener);
    const early = await fetch(`${base}/prod/Gateway/v1/Account/query-balance`, {
      method: 'POST',
      body: JSON.stringify({ currency: 'PKR' }),
      signal: AbortSignal.timeout(5_000), // a request that is held fails here instead of passing
    });
    expect(early.status).toBe(503);
    expect(early.headers.get('content-type')).toBe('application/problem+json');
    expect(early.headers.get('retry-after')).toBe('1');
    expect(await early.json()).toMatchObject({
      status: 503,
      title: 'Service Unavailable',
      code: 'service_unavailable',
      detail: expect.stringContaining('still starting'),
      traceId: expect.any(String),
    });
    const get = await fetch(`${base}/anything`, { signal: AbortSignal.timeout(5_000) });
    expect(get.status).toBe(503);

    gate.open((_req, res) => res.writeHead(200, { 'Content-Type': 'text/plain' }).end('ready'));
    const later = await fetch(`${base}/prod/Gateway/v1/Account/query-balance`, { method: 'POST', signal: AbortSignal.timeout(5_000) });
    expect(later.status).toBe(200);
    expect(await later.text()).toBe('ready');
  });
});
