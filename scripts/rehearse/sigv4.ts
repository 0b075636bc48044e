import { createHash, createHmac, type Hash, type Hmac, randomBytes, timingSafeEqual } from 'node:crypto';
import type { IncomingHttpHeaders } from 'node:http';
import { SignatureV4 } from '@smithy/signature-v4';

/**
 * AWS Signature Version 4 on the rehearsal's AWS endpoint (issue 42): every request must be signed
 * with the secret of the identity its access key id claims (a function's role credentials, the
 * operator's keys). The request is signed again with @smithy/signature-v4 (the signer the AWS SDK
 * itself uses) over the headers it says it signed, its date, region and service, with the claimed
 * identity's secret, and the two signatures are compared. Also checked, as AWS does: the session
 * token belongs to the key, the body's hash matches `x-amz-content-sha256` when sent, the date is
 * within 15 minutes, the scope names this region and the called service.
 */
export interface Credentials {
  accessKeyId: string;
  secretAccessKey: string;
  sessionToken?: string;
}

export type Verdict =
  | { ok: true; accessKeyId: string }
  | { ok: false; code: 'UnrecognizedClientException' | 'InvalidSignatureException' | 'IncompleteSignatureException'; message: string };

/** The hash and HMAC the signer takes (its `Checksum` constructor), from node:crypto. */
export class Sha256 {
  private hash: Hash | Hmac;
  constructor(private readonly secret?: string | ArrayBuffer | ArrayBufferView) {
    this.hash = this.fresh();
  }
  private fresh(): Hash | Hmac {
    if (this.secret === undefined) return createHash('sha256');
    const key = typeof this.secret === 'string' ? this.secret : Buffer.from(this.secret as ArrayBuffer);
    return createHmac('sha256', key);
  }
  update(data: string | Uint8Array): void {
    this.hash.update(data);
  }
  async digest(): Promise<Uint8Array> {
    return new Uint8Array(this.hash.digest());
  }
  reset(): void {
    this.hash = this.fresh();
  }
}

const base32 = 'ABCDEFGHIJKLMNOPQRSTUVWXYZ234567';
/** Credentials shaped as AWS issues them: a role's temporary ones (ASIA…, with a session token) or a user's (AKIA…). */
export function generateCredentials(kind: 'role' | 'user'): Credentials {
  const id = [...randomBytes(16)].map((b) => base32[b % 32]).join('');
  return {
    accessKeyId: `${kind === 'role' ? 'ASIA' : 'AKIA'}${id}`,
    secretAccessKey: randomBytes(30).toString('base64'),
    ...(kind === 'role' ? { sessionToken: randomBytes(48).toString('base64') } : {}),
  };
}

const incorrect =
  'The request signature we calculated does not match the signature you provided. ' +
  'Check your AWS Secret Access Key and signing method. Consult the service documentation for details.';
const invalidToken = 'The security token included in the request is invalid.';

const authorization = new RegExp(
  '^AWS4-HMAC-SHA256 Credential=([^/,\\s]+)/(\\d{8})/([^/]+)/([^/]+)/aws4_request,\\s*' +
    'SignedHeaders=([a-z0-9;-]+),\\s*Signature=([0-9a-f]{64})$',
);
const parseAuthorization = (header: string) => authorization.exec(header.trim());

const longDate = (d: string) => /^(\d{4})(\d{2})(\d{2})T(\d{2})(\d{2})(\d{2})Z$/.exec(d);

/**
 * Verifies one received request. `lookup` gives the credentials an access key id stands for;
 * `service` is the signing name the called API has (dynamodb, sqs, secretsmanager).
 */
export async function verifySignature(
  request: { method: string; url: string; headers: IncomingHttpHeaders; body: Buffer },
  expected: { region: string; service: string },
  lookup: (accessKeyId: string) => Credentials | undefined,
  now = Date.now(),
): Promise<Verdict> {
  const parsed = parseAuthorization(String(request.headers.authorization ?? ''));
  if (!parsed) {
    return { ok: false, code: 'IncompleteSignatureException', message: 'Authorization header requires a SigV4 signature.' };
  }
  const [, accessKeyId, day, region, service, signedHeaders, signature] = parsed as unknown as string[];
  const credentials = lookup(accessKeyId!);
  if (!credentials) return { ok: false, code: 'UnrecognizedClientException', message: invalidToken };
  const token = request.headers['x-amz-security-token'];
  if ((credentials.sessionToken ?? undefined) !== (token ?? undefined)) {
    return { ok: false, code: 'UnrecognizedClientException', message: invalidToken };
  }
  const date = String(request.headers['x-amz-date'] ?? '');
  const d = longDate(date);
  if (!d || date.slice(0, 8) !== day) return { ok: false, code: 'InvalidSignatureException', message: incorrect };
  const signingDate = new Date(Date.UTC(+d[1]!, +d[2]! - 1, +d[3]!, +d[4]!, +d[5]!, +d[6]!));
  if (Math.abs(now - signingDate.getTime()) > 15 * 60_000) {
    return { ok: false, code: 'InvalidSignatureException', message: `Signature expired: ${date} is now earlier or later than 15 minutes.` };
  }
  if (region !== expected.region || service !== expected.service) {
    return {
      ok: false,
      code: 'InvalidSignatureException',
      message: `Credential should be scoped to a valid region and service: '${expected.region}/${expected.service}'.`,
    };
  }
  const names = signedHeaders!.split(';');
  if (!names.includes('host')) return { ok: false, code: 'InvalidSignatureException', message: incorrect };
  const headers: Record<string, string> = {};
  for (const name of names) {
    const value = request.headers[name];
    if (value === undefined) return { ok: false, code: 'InvalidSignatureException', message: incorrect };
    headers[name] = Array.isArray(value) ? value.join(',') : value;
  }
  const bodyHash = request.headers['x-amz-content-sha256'];
  if (bodyHash !== undefined && bodyHash !== createHash('sha256').update(request.body).digest('hex')) {
    return {
      ok: false,
      code: 'InvalidSignatureException',
      message: 'The provided x-amz-content-sha256 header does not match what was computed.',
    };
  }
  const url = new URL(request.url, 'http://127.0.0.1');
  const query: Record<string, string | string[]> = {};
  for (const [k, v] of url.searchParams) {
    const had = query[k];
    query[k] = had === undefined ? v : [had].flat().concat(v);
  }
  const signer = new SignatureV4({ credentials, region, service: service!, sha256: Sha256, applyChecksum: false });
  const resigned = await signer.sign(
    { method: request.method, protocol: 'http:', hostname: url.hostname, path: url.pathname, query, headers, body: request.body },
    { signingDate, signableHeaders: new Set(names) },
  );
  const ours = /Signature=([0-9a-f]{64})/.exec(String(resigned.headers.authorization))?.[1] ?? '';
  const oursSigned = /SignedHeaders=([a-z0-9;-]+)/.exec(String(resigned.headers.authorization))?.[1];
  const same = ours.length === 64 && timingSafeEqual(Buffer.from(ours), Buffer.from(signature!)) && oursSigned === signedHeaders;
  return same ? { ok: true, accessKeyId: accessKeyId! } : { ok: false, code: 'InvalidSignatureException', message: incorrect };
}

/** Signs a request the rehearsal sends on (to DynamoDB Local) with its own credentials. */
export async function signRequest(
  request: { method: string; url: URL; headers: Record<string, string>; body: Buffer },
  credentials: Credentials,
  scope: { region: string; service: string },
): Promise<Record<string, string>> {
  const signer = new SignatureV4({ credentials, region: scope.region, service: scope.service, sha256: Sha256 });
  const query = Object.fromEntries(request.url.searchParams);
  const signed = await signer.sign({
    method: request.method,
    protocol: request.url.protocol,
    hostname: request.url.hostname,
    port: Number(request.url.port) || undefined,
    path: request.url.pathname,
    query,
    headers: { ...request.headers, host: request.url.host },
    body: request.body,
  });
  return signed.headers as Record<string, string>;
}
