import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { buildSync } from 'esbuild';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { isPublicAddress } from '#shared/domain/address-policy.ts';
import { LambdaFunction } from '../../scripts/rehearse/runtime.ts';
import { receiverAddress, startHttpsReceiver, type HttpsReceiver } from '../../scripts/rehearse/receiver.ts';

/**
 * The rehearsal's https receiver and network (scripts/rehearse/receiver.ts, network.ts; issue 42):
 * the shipped webhook code (shared/webhooks/http.ts and the acceptance check, bundled with esbuild as
 * the functions are), run in the rehearsal's Lambda runtime, reaches the receiver by its name over
 * verified TLS only with the rehearsal's network and CA; the guard itself is unchanged (without the
 * network the name does not resolve, loopback is refused either way); and the network connects
 * nothing but loopback and the receiver's route. Every sandbox here also carries a recorder below
 * the network (at the TCP handles, installed by the test's bundle after the network) that refuses
 * and records any handle asked for a non-loopback address: it must record none.
 */
const repoRoot = resolve(import.meta.dirname, '..', '..');
let assetDir = '';
let receiver: HttpsReceiver;
const functions: LambdaFunction[] = [];

const handlerSource = `
import net from 'node:net';
import { postWebhook } from './shared/webhooks/http.ts';
import { assertSafeWebhookUrl } from './shared/domain/webhook-url.ts';
const handles = [];
const { TCP } = process.binding('tcp_wrap');
for (const method of ['connect', 'connect6']) {
  const original = TCP.prototype[method];
  TCP.prototype[method] = function (request, address, port) {
    handles.push(address + ' ' + port);
    return address.startsWith('127.') || address === '::1' ? original.call(this, request, address, port) : -101;
  };
}
export const handler = async ({ url, raw }) => {
  if (raw) {
    const outcome = await new Promise((done) => {
      const socket = net.connect(raw);
      socket.on('connect', () => done({ connected: socket.remoteAddress + ' ' + socket.remotePort }));
      socket.on('error', (e) => done({ error: e.code }));
    });
    return { ...outcome, handles };
  }
  const accepted = await assertSafeWebhookUrl(url).then(() => 'accepted', (e) => e.message);
  const post = await postWebhook(url, '{"probe":true}', { 'Content-Type': 'application/json' }, { allowInsecure: false, timeoutMs: 5000 });
  return { accepted, post, handles };
};
`;

/**
 * A UDP probe: a recorder at the UDP handles (installed when the bundle loads, refusing and recording any datagram or
 * connect to a non-loopback address), then the rehearsal's network installed above it at the first invocation, then one
 * datagram sent: the recorder must see no non-loopback address (the network refused it first).
 */
const udpProbeSource = `
import dgram from 'node:dgram';
import { installNetwork } from './scripts/rehearse/network.ts';
const seen = [];
const { UDP } = process.binding('udp_wrap');
const local = (a) => String(a).startsWith('127.') || a === '::1';
for (const method of ['send', 'send6']) {
  const original = UDP.prototype[method];
  UDP.prototype[method] = function (...args) {
    if (args.length < 6) return original.apply(this, args);
    seen.push(args[4] + ' ' + args[3]);
    return local(args[4]) ? original.apply(this, args) : -101;
  };
}
for (const method of ['connect', 'connect6']) {
  const original = UDP.prototype[method];
  UDP.prototype[method] = function (address, port) {
    seen.push(address + ' ' + port);
    return local(address) ? original.call(this, address, port) : -101;
  };
}
export const handler = async ({ network, to, connect }) => {
  installNetwork(network);
  const error = await new Promise((done) => {
    const socket = dgram.createSocket(to.host.includes(':') ? 'udp6' : 'udp4');
    const finish = (e) => { socket.close(); done(e ? e.code : null); };
    socket.on('error', finish);
    if (connect) socket.connect(to.port, to.host, (e) => (e ? finish(e) : socket.send('probe', (sent) => finish(sent))));
    else socket.send('probe', to.port, to.host, (e) => finish(e));
  });
  return { error, seen: seen.splice(0) };
};
`;

type Outcome = { accepted?: string; post?: { statusCode: number | null; error: string | null; refused: boolean }; handles: string[] };
type RawOutcome = { connected?: string; error?: string; handles: string[] };

/** A function of the bundle, in the rehearsal's runtime: with the network and the CA, or without either. */
function lambda(options: { network: boolean; trust: boolean }) {
  const fn = new LambdaFunction(
    {
      id: 'Probe',
      assetDir,
      handler: 'index.handler',
      environment: {
        AWS_REGION: 'us-east-1',
        AWS_LAMBDA_FUNCTION_NAME: 'Probe',
        ...(options.trust ? { NODE_EXTRA_CA_CERTS: receiver.caFile } : {}),
      },
      timeoutSeconds: 20,
      memoryMb: 256,
      ...(options.network ? { network: receiver.network } : {}),
    },
    () => undefined,
  );
  functions.push(fn);
  return async <T = Outcome>(event: { url?: string; raw?: { host: string; port: number } }): Promise<T> => {
    const outcome = await fn.invoke(event);
    if (outcome.kind !== 'ok') throw new Error(JSON.stringify(outcome));
    return outcome.result as T;
  };
}

beforeAll(async () => {
  receiver = await startHttpsReceiver();
  assetDir = mkdtempSync(join(tmpdir(), 'rehearsal-network-'));
  buildSync({
    stdin: { contents: handlerSource, resolveDir: repoRoot, sourcefile: 'probe.ts', loader: 'ts' },
    bundle: true,
    platform: 'node',
    format: 'esm',
    target: 'node20',
    outfile: join(assetDir, 'index.mjs'),
    banner: { js: "import { createRequire } from 'module'; const require = createRequire(import.meta.url);" },
    logLevel: 'silent',
  });
  buildSync({
    stdin: { contents: udpProbeSource, resolveDir: repoRoot, sourcefile: 'udp-probe.ts', loader: 'ts' },
    bundle: true,
    platform: 'node',
    format: 'esm',
    target: 'node20',
    outfile: join(assetDir, 'udp.mjs'),
    banner: { js: "import { createRequire } from 'module'; const require = createRequire(import.meta.url);" },
    logLevel: 'silent',
  });
});
afterAll(async () => {
  await Promise.all(functions.map((f) => f.stop()));
  await receiver?.close();
  if (assetDir) rmSync(assetDir, { recursive: true, force: true });
});

const nonLoopback = (handles: string[]) => handles.filter((h) => !h.startsWith('127.') && !h.startsWith('::1 '));

describe('the rehearsal network and https receiver', { timeout: 60_000 }, () => {
  it('its address is one the shipped guard deems public (a route nobody announces: 3ffe::/16)', () => {
    expect(isPublicAddress(receiverAddress)).toBe(true);
  });

  it('a function on the network, trusting the rehearsal CA, has the name accepted and the POST delivered over verified TLS', async () => {
    const invoke = lambda({ network: true, trust: true });
    const before = receiver.received.length;
    const outcome = await invoke({ url: `${receiver.url}?probe=1` });
    expect(outcome.accepted).toBe('accepted');
    expect(outcome.post).toMatchObject({ statusCode: 200, error: null, refused: false });
    const arrived = receiver.received.slice(before);
    expect(arrived.map((r) => [r.method, r.path, r.body.toString()])).toEqual([['POST', '/webhooks?probe=1', '{"probe":true}']]);
    expect(arrived[0]!.headers.host).toBe('webhooks.rehearsal.test');
    expect(outcome.handles.length).toBeGreaterThan(0);
    expect(nonLoopback(outcome.handles)).toEqual([]);
  });

  it('without NODE_EXTRA_CA_CERTS the same function refuses the receiver’s certificate: nothing is delivered', async () => {
    const invoke = lambda({ network: true, trust: false });
    const before = receiver.received.length;
    const outcome = await invoke({ url: receiver.url });
    expect(outcome.accepted).toBe('accepted');
    expect(outcome.post?.error).toMatch(
      /^connection error: (UNABLE_TO_VERIFY_LEAF_SIGNATURE|SELF_SIGNED_CERT_IN_CHAIN|UNABLE_TO_GET_ISSUER_CERT)/,
    );
    expect(receiver.received.length).toBe(before);
  });

  it('the guard is the shipped one: off the network the name does not resolve; loopback is refused on it and off it', async () => {
    const off = lambda({ network: false, trust: true });
    const unknown = await off({ url: receiver.url });
    expect(unknown.accepted).toBe('does not resolve');
    expect(unknown.post?.error).toBe('connection error: ENOTFOUND');
    const on = lambda({ network: true, trust: true });
    const port = receiver.network.routes[0]!.to;
    for (const url of [`https://127.0.0.1:${port}/webhooks`, `https://localhost:${port}/webhooks`]) {
      for (const outcome of [await on({ url }), await off({ url })]) {
        expect(outcome.accepted, url).toMatch(/private, loopback/);
        expect(outcome.post, url).toMatchObject({ refused: true, statusCode: null });
      }
    }
  });

  it('fails closed: the address on another port, an address with no route, an unknown name, a private one: nothing connects', async () => {
    const invoke = lambda({ network: true, trust: true });
    const before = receiver.received.length;
    const posts = [
      [`https://[${receiverAddress}]:8443/webhooks`, 'connection error: ENETUNREACH'],
      ['https://[3ffe:0:0:1::2]/webhooks', 'connection error: ENETUNREACH'],
      [`https://${receiver.hostname}:444/webhooks`, 'connection error: ENETUNREACH'],
      ['https://elsewhere.rehearsal.test/webhooks', 'connection error: ENOTFOUND'],
    ];
    for (const [url, error] of posts) {
      const outcome = await invoke({ url });
      expect(outcome.post?.error, url).toBe(error);
      expect(nonLoopback(outcome.handles), url).toEqual([]);
    }
    // Raw sockets, around the guard: only the receiver's route connects (to 127.0.0.1), nothing else reaches a handle.
    const raws: [{ host: string; port: number }, string][] = [
      [{ host: '10.0.0.1', port: 443 }, 'ENETUNREACH'],
      [{ host: '3ffe:0:0:1::2', port: 443 }, 'ENETUNREACH'],
      [{ host: receiverAddress, port: 80 }, 'ENETUNREACH'],
    ];
    for (const [raw, error] of raws) {
      const outcome = await invoke<RawOutcome>({ raw });
      expect(outcome.error, raw.host).toBe(error);
      expect(nonLoopback(outcome.handles), raw.host).toEqual([]);
    }
    const routed = await invoke<RawOutcome>({ raw: { host: receiver.hostname, port: 443 } });
    expect(routed.connected).toBe(`127.0.0.1 ${receiver.network.routes[0]!.to}`);
    expect(nonLoopback(routed.handles)).toEqual([]);
    expect(receiver.received.length).toBe(before);
  });

  it('fails closed for UDP too: a datagram to a private or unrouted address leaves nothing; loopback is sent', async () => {
    const fn = new LambdaFunction(
      {
        id: 'UdpProbe',
        assetDir,
        handler: 'udp.handler',
        environment: { AWS_REGION: 'us-east-1', AWS_LAMBDA_FUNCTION_NAME: 'UdpProbe' },
        timeoutSeconds: 20,
        memoryMb: 256,
      },
      () => undefined,
    );
    functions.push(fn);
    const send = async (to: { host: string; port: number }, connect = false) => {
      const outcome = await fn.invoke({ network: receiver.network, to, connect });
      if (outcome.kind !== 'ok') throw new Error(JSON.stringify(outcome));
      return outcome.result as { error: string | null; seen: string[] };
    };
    for (const [to, connect] of [
      [{ host: '10.0.0.1', port: 2000 }, false],
      [{ host: '10.0.0.1', port: 2000 }, true],
      [{ host: '3ffe:0:0:1::2', port: 2000 }, false],
      [{ host: receiverAddress, port: 443 }, false],
    ] as const) {
      const outcome = await send(to, connect);
      expect(outcome.error, `${to.host} ${connect}`).toBe('ENETUNREACH');
      expect(nonLoopback(outcome.seen), `${to.host} ${connect}`).toEqual([]);
    }
    const local = await send({ host: '127.0.0.1', port: 9 });
    expect(local).toEqual({ error: null, seen: ['127.0.0.1 9'] });
  });
});
