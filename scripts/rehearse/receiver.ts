import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import type { IncomingHttpHeaders } from 'node:http';
import { createServer } from 'node:https';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { NetworkMap } from './network.ts';

/**
 * The rehearsal's https webhook receiver (docs/deploy-rehearsal.md, "An https receiver"): a
 * merchant's endpoint as the deployed dispatcher meets one, at `https://webhooks.rehearsal.test/webhooks`.
 * It listens on 127.0.0.1 only; the name and its address exist only on the rehearsal's network
 * (./network.ts): `.test` is reserved (RFC 6761), and 3ffe::/16 (the 6bone's, returned in 2006,
 * RFC 3701) is global unicast that nobody announces, so the SSRF guard deems it public and no route
 * on the Internet leads there; the rehearsal routes its port 443 to this server. Its certificate is
 * signed by a CA made for this run (openssl, in a temporary directory removed at close; the CA's
 * key is deleted once the certificate is signed). The functions trust that CA through
 * NODE_EXTRA_CA_CERTS in their rehearsal environment only.
 */
export const receiverHostname = 'webhooks.rehearsal.test';
export const receiverAddress = '3ffe:0:0:1::1';

export interface ReceivedRequest {
  method: string;
  path: string;
  headers: IncomingHttpHeaders;
  /** The raw body, as a merchant's receiver must verify it. */
  body: Buffer;
  /** What the receiver answered. */
  status: number;
  at: Date;
}

export interface HttpsReceiver {
  url: string;
  hostname: string;
  /** The certificate of the CA that signed the receiver's (PEM file): the functions' NODE_EXTRA_CA_CERTS. */
  caFile: string;
  /** The receiver's routes on the rehearsal's network (./network.ts). */
  network: NetworkMap;
  /** Every request, in order of arrival. */
  received: ReceivedRequest[];
  /** How the receiver answers each request from now on (a failing endpoint: a 500 for some); without one, 200. */
  answerWith(answer?: (request: Omit<ReceivedRequest, 'status'>) => number): void;
  close(): Promise<void>;
}

function issueCertificates(dir: string): { caFile: string; key: Buffer; cert: Buffer } {
  const file = (name: string) => join(dir, name);
  const openssl = (...args: string[]) => execFileSync('openssl', args, { cwd: dir, stdio: ['ignore', 'ignore', 'pipe'] });
  const ec = ['-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:P-256', '-nodes'];
  openssl('req', '-x509', ...ec, '-keyout', file('ca.key'), '-out', file('ca.pem'), '-days', '2', '-subj', '/CN=Svc Gateway rehearsal CA');
  openssl('req', ...ec, '-keyout', file('receiver.key'), '-out', file('receiver.csr'), '-subj', `/CN=${receiverHostname}`);
  const extensions = [`subjectAltName=DNS:${receiverHostname}`, 'basicConstraints=critical,CA:FALSE', 'extendedKeyUsage=serverAuth'];
  writeFileSync(file('receiver.ext'), `${extensions.join('\n')}\n`);
  openssl(
    'x509',
    '-req',
    '-in',
    file('receiver.csr'),
    '-CA',
    file('ca.pem'),
    '-CAkey',
    file('ca.key'),
    '-CAcreateserial',
    '-days',
    '2',
    '-extfile',
    file('receiver.ext'),
    '-out',
    file('receiver.pem'),
  );
  rmSync(file('ca.key')); // nothing else is ever signed by it
  return { caFile: file('ca.pem'), key: readFileSync(file('receiver.key')), cert: readFileSync(file('receiver.pem')) };
}

export async function startHttpsReceiver(onRequest?: (request: ReceivedRequest) => void): Promise<HttpsReceiver> {
  const dir = mkdtempSync(join(tmpdir(), 'rehearsal-tls-'));
  try {
    const { caFile, key, cert } = issueCertificates(dir);
    const received: ReceivedRequest[] = [];
    let answer: ((request: Omit<ReceivedRequest, 'status'>) => number) | undefined;
    const server = createServer({ key, cert }, (req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (chunk: Buffer) => chunks.push(chunk));
      req.on('end', () => {
        const arrived = {
          method: req.method ?? '',
          path: req.url ?? '',
          headers: req.headers,
          body: Buffer.concat(chunks),
          at: new Date(),
        };
        const status = answer?.(arrived) ?? 200;
        const request = { ...arrived, status };
        received.push(request);
        onRequest?.(request);
        res.writeHead(status, { 'Content-Type': 'text/plain' }).end(status < 300 ? 'ok' : 'failing on purpose');
      });
    });
    await new Promise<void>((ok, fail) => server.once('error', fail).listen(0, '127.0.0.1', ok));
    const port = (server.address() as AddressInfo).port;
    return {
      url: `https://${receiverHostname}/webhooks`,
      hostname: receiverHostname,
      caFile,
      network: { names: { [receiverHostname]: receiverAddress }, routes: [{ address: receiverAddress, port: 443, to: port }] },
      received,
      answerWith: (next) => void (answer = next),
      close: () =>
        new Promise<void>((ok) => {
          server.closeAllConnections();
          server.close(() => {
            rmSync(dir, { recursive: true, force: true });
            ok();
          });
        }),
    };
  } catch (error) {
    rmSync(dir, { recursive: true, force: true });
    throw error;
  }
}
