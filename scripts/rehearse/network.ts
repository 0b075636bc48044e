import dns, { type LookupAddress } from 'node:dns';
import { syncBuiltinESMExports } from 'node:module';
import net from 'node:net';
import { constants } from 'node:os';
import tls from 'node:tls';

/**
 * The rehearsal's network, as every function sandbox sees it (docs/deploy-rehearsal.md, "An https
 * receiver"). Installed by ./sandbox-preload.ts in each worker before the bundled handler loads,
 * the way a Lambda's network is given to it, not read by the shipped code:
 *   - DNS: the names of `names` resolve to their one address; `localhost` and IP literals as
 *     usual; `dns.lookup` (the resolver every connection uses) finds no other name, without a query.
 *   - Routing, fail closed: a socket connects only to a loopback address, or to an emulated
 *     address and port that `routes` sends to a port on 127.0.0.1. The route is taken before any
 *     socket is given an address: the socket is handed 127.0.0.1, never the emulated address. Any
 *     other destination (a public or private address, an emulated address on another port) is
 *     refused with ENETUNREACH and nothing is connected; a UDP datagram likewise reaches loopback only.
 * The shipped SSRF guard (shared/webhooks/http.ts) runs unchanged on top of it: it resolves the
 * webhook's name through `dns.lookup`, sees the emulated address (a public one by its rule) and lets
 * the connection go; the connection then reaches the receiver on 127.0.0.1.
 */
export interface NetworkMap {
  /** Each emulated name and the one address the rehearsal's DNS answers for it. */
  names: Record<string, string>;
  /** An emulated address and port, and the port on 127.0.0.1 its connections reach. */
  routes: { address: string; port: number; to: number }[];
}

/** Loopback: what a connection may reach without a route (127.0.0.0/8 and ::1). */
const loopback = new net.BlockList();
loopback.addSubnet('127.0.0.0', 8, 'ipv4');
loopback.addAddress('::1', 'ipv6');
export const isLoopback = (address: string): boolean => {
  const family = net.isIP(address);
  return family !== 0 && loopback.check(address, family === 4 ? 'ipv4' : 'ipv6');
};

const canonical = (address: string) => (net.isIPv6(address) ? new net.SocketAddress({ address, family: 'ipv6' }).address : address);

export class Unreachable extends Error {
  readonly code = 'ENETUNREACH';
  constructor(address: string, port: number) {
    super(`connect ENETUNREACH ${address}:${port} (the rehearsal's network routes only loopback and its emulated names)`);
  }
}

/**
 * Where a connection to `address`:`port` goes on the rehearsal's network: the loopback address
 * itself, the receiver's port on 127.0.0.1 for a routed emulated address, or refused.
 */
export function route(map: NetworkMap, address: string, port: number): { address: string; port: number } | Unreachable {
  if (isLoopback(address)) return { address, port };
  const to = map.routes.find((r) => canonical(r.address) === canonical(address) && r.port === port);
  return to ? { address: '127.0.0.1', port: to.to } : new Unreachable(address, port);
}

/** What the rehearsal's DNS answers for `hostname`: the emulated address, the system's answer (localhost, a literal), or none. */
export function resolveName(map: NetworkMap, hostname: string): string | 'system' | undefined {
  const name = hostname.toLowerCase().replace(/\.$/, '');
  if (Object.hasOwn(map.names, name)) return map.names[name];
  return name === 'localhost' || net.isIP(name) ? 'system' : undefined;
}

type LookupCallback = (error: NodeJS.ErrnoException | null, address?: string | LookupAddress[], family?: number) => void;
type LookupOptions = { family?: number | string; all?: boolean } | number | undefined;
type Lookup = (hostname: string, options: LookupOptions, callback: LookupCallback) => void;

const notFound = (hostname: string) =>
  Object.assign(new Error(`getaddrinfo ENOTFOUND ${hostname}`), { code: 'ENOTFOUND', syscall: 'getaddrinfo', hostname });

const familyOf = (options: LookupOptions) => {
  const family = typeof options === 'number' ? options : options?.family;
  return family === 'IPv4' ? 4 : family === 'IPv6' ? 6 : Number(family ?? 0);
};

/** Installs the rehearsal's network in this thread (idempotent per thread: a second call replaces nothing). */
export function installNetwork(map: NetworkMap): void {
  const marker = Symbol.for('svc.rehearsal.network');
  if ((globalThis as Record<symbol, unknown>)[marker]) return;
  (globalThis as Record<symbol, unknown>)[marker] = map;

  const systemLookup = dns.lookup;
  const systemPromiseLookup = dns.promises.lookup;
  const answer = (hostname: string, options: LookupOptions): LookupAddress[] | 'system' => {
    const resolved = resolveName(map, hostname);
    if (resolved === 'system') return 'system';
    const family = resolved === undefined ? 0 : net.isIP(resolved);
    const wanted = familyOf(options);
    if (resolved === undefined || (wanted !== 0 && wanted !== family)) throw notFound(hostname);
    return [{ address: resolved, family }];
  };
  const lookup = ((hostname: string, options: LookupOptions | LookupCallback, callback?: LookupCallback) => {
    const done = (typeof options === 'function' ? options : callback)!;
    const opts = typeof options === 'function' ? undefined : options;
    let found: LookupAddress[] | 'system';
    try {
      found = answer(hostname, opts);
    } catch (error) {
      return process.nextTick(done, error);
    }
    if (found === 'system') return (systemLookup as unknown as Lookup)(hostname, opts, done);
    const all = typeof opts === 'object' && opts.all;
    return all ? process.nextTick(done, null, found) : process.nextTick(done, null, found[0]!.address, found[0]!.family);
  }) as typeof dns.lookup;
  dns.lookup = lookup;
  dns.promises.lookup = (async (hostname: string, options?: LookupOptions) => {
    const found = answer(hostname, options);
    if (found === 'system') return (systemPromiseLookup as (h: string, o?: LookupOptions) => Promise<unknown>)(hostname, options);
    return typeof options === 'object' && options.all ? found : found[0];
  }) as typeof dns.promises.lookup;

  // Every TCP connection of the thread (net, tls, http, https, fetch) starts here.
  const connect = net.Socket.prototype.connect;
  const normalizeArgs = (net as unknown as { _normalizeArgs(args: unknown[]): [Record<string, any>, unknown] })._normalizeArgs;
  // Node's own calls pass arguments it normalized already (an array marked with its symbol).
  const normalize = (args: unknown[]) => (Array.isArray(args[0]) ? (args[0] as [Record<string, any>, unknown]) : normalizeArgs(args));
  net.Socket.prototype.connect = function (this: net.Socket, ...args: unknown[]) {
    const [options, callback] = normalize(args);
    const go = (o: Record<string, unknown>) => (connect as (...a: unknown[]) => net.Socket).call(this, o, callback);
    if (options.path) return go(options); // a pipe, as net decides (`!!path`; https passes `path: null`)
    const host = String(options.host ?? 'localhost');
    const port = Number(options.port);
    // A refusal goes through the socket's own lookup step: it fails the socket as a DNS failure would, and no address is used.
    const refuse = (error: Error) =>
      go({ ...options, host: 'unreachable.invalid', lookup: (_h: string, _o: unknown, done: LookupCallback) => done(error) });
    if (net.isIP(host)) {
      const to = route(map, host, port);
      return to instanceof Unreachable ? refuse(to) : go({ ...options, host: to.address, port: to.port });
    }
    const emulated = resolveName(map, host);
    const target = emulated && emulated !== 'system' ? route(map, emulated, port) : undefined;
    if (target instanceof Unreachable) return refuse(target);
    const resolve = (options.lookup ?? dns.lookup) as Lookup;
    // The connection's own lookup (the SSRF guard's, for a webhook) runs first; its answer is then routed.
    const routed: Lookup = (hostname, lookupOptions, done) =>
      resolve(hostname, lookupOptions, (error, address, family) => {
        if (error) return done(error);
        const list = Array.isArray(address) ? address : [{ address: address!, family: family! }];
        const mapped: LookupAddress[] = [];
        for (const a of list) {
          const to = route(map, a.address, port);
          if (to instanceof Unreachable) return done(to);
          if (target && to.port !== target.port) return done(new Unreachable(a.address, port));
          mapped.push({ address: to.address, family: net.isIP(to.address) });
        }
        if (Array.isArray(address)) return done(null, mapped);
        return done(null, mapped[0]!.address, mapped[0]!.family);
      });
    return go({ ...options, ...(target ? { port: target.port } : {}), lookup: routed });
  } as typeof net.Socket.prototype.connect;
  // The bundles import node:dns as an ES module: its named exports follow the patched module.
  syncBuiltinESMExports();

  // Below it, fail closed: a TCP handle asked to connect anywhere but loopback fails with ENETUNREACH (the routing above
  // hands handles 127.0.0.1 only; test/unit/rehearsal-network.test.ts shows nothing else reaches this point).
  const { TCP } = (
    process as unknown as { binding(name: 'tcp_wrap'): { TCP: { prototype: Record<string, (...args: any[]) => unknown> } } }
  ).binding('tcp_wrap');
  for (const method of ['connect', 'connect6']) {
    const original = TCP.prototype[method]!;
    TCP.prototype[method] = function (this: unknown, request: unknown, address: string, port: number) {
      return isLoopback(address) ? original.call(this, request, address, port) : -constants.errno.ENETUNREACH;
    };
  }
  // UDP too (node:dgram; the shipped tracing sends its documents to the X-Ray daemon's address when one is set): a datagram
  // sent to, or a socket connected to, anything but loopback fails with ENETUNREACH and nothing leaves the thread.
  const { UDP } = (
    process as unknown as { binding(name: 'udp_wrap'): { UDP: { prototype: Record<string, (...args: any[]) => unknown> } } }
  ).binding('udp_wrap');
  for (const method of ['send', 'send6']) {
    const original = UDP.prototype[method]!;
    // (request, buffers, count, port, address, hasCallback); a connected socket's send names no address (connect is fenced).
    UDP.prototype[method] = function (this: unknown, ...args: unknown[]) {
      return args.length < 6 || isLoopback(String(args[4])) ? original.apply(this, args) : -constants.errno.ENETUNREACH;
    };
  }
  for (const method of ['connect', 'connect6']) {
    const original = UDP.prototype[method]!;
    UDP.prototype[method] = function (this: unknown, address: string, port: number) {
      return isLoopback(address) ? original.call(this, address, port) : -constants.errno.ENETUNREACH;
    };
  }
}

/**
 * NODE_EXTRA_CA_CERTS for a worker thread: Node reads it once, when the process starts, so a
 * sandbox (a worker) given it in its environment adds the certificates itself, as Node would: to the
 * default trust of every TLS context made without its own `ca` (the bundled code passes none).
 */
export function trustExtraCaCerts(pem: string): void {
  const certificates = pem.match(/-----BEGIN CERTIFICATE-----[\s\S]+?-----END CERTIFICATE-----/g) ?? [];
  if (!certificates.length) return;
  const create = tls.createSecureContext;
  tls.createSecureContext = (options?: tls.SecureContextOptions) => {
    const context = create(options);
    if (!options?.ca) {
      const native = (context as unknown as { context: { addCACert(cert: string): void } }).context;
      for (const certificate of certificates) native.addCACert(certificate);
    }
    return context;
  };
}
