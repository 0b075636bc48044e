import { writeFileSync } from 'node:fs';
import { createServer, request as httpRequest, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Readable } from 'node:stream';
import { type Authorization, dynamoAuthorizations, keyPrefix, type RoleEvaluator, sqsAuthorizations, type TableSchema } from './iam.ts';
import { type Credentials, signRequest, verifySignature } from './sigv4.ts';

/**
 * The AWS endpoint every rehearsed function and the operator talk to (AWS_ENDPOINT_URL), and the
 * only way to the data: DynamoDB Local (and its streams) holds the table under credentials only
 * this proxy has (it is started without -sharedDb, so another access key sees an empty database),
 * the local SQS has no port at all (its request handler runs inside this proxy), and the secrets
 * are served here. Each request's SigV4 signature is verified with the secret of the identity its
 * access key id claims (./sigv4.ts: each function's generated role credentials, the operator's
 * keys): an unknown key, a wrong token or a signature that does not match is refused with the
 * service's own error before anything is evaluated. Then it works out what AWS would authorize
 * (./iam.ts) and evaluates it against that identity's policies (a function's role, the operator's
 * policy). A denial answers the service's AccessDeniedException and is logged with caller, action,
 * resource and key; an allowed call is sent on (to DynamoDB Local signed again with the proxy's
 * own credentials) and recorded (caller, action, resource, key prefix). It also serves Secrets
 * Manager's GetSecretValue and the Parameters and Secrets extension's `/secretsmanager/get` (the
 * functions' way, authenticated by the session token).
 */
export interface Principal {
  /** The function's logical id, or `operator`. */
  functionId: string;
  /** Whom AWS names in a denial: the function's assumed-role session, or the operator's IAM user. */
  callerArn: string;
  credentials: Credentials;
  evaluator: RoleEvaluator;
}

export interface Denial {
  functionId: string;
  action: string;
  resource: string;
  keys: string[];
}

/** A request refused before any evaluation: unknown key, wrong token or a signature that does not match. */
export interface Refusal {
  accessKeyId: string;
  target: string;
  code: string;
}

export interface UseRecord {
  functionId: string;
  action: string;
  resource: string;
  keyPrefix: string;
}

export interface ProxyOptions {
  region: string;
  /** DynamoDB Local, and the credentials it holds the table under (only this proxy has them). */
  dynamo: { endpoint: string; credentials: Credentials };
  /** The local SQS's request handler (local-aws-sqs createRequestHandler), served in this process. */
  sqs: (req: IncomingMessage, res: ServerResponse) => void;
  schema: TableSchema;
  /** By access key id: every function's role session and the operator. */
  principals: Map<string, Principal>;
  secrets: Map<string, string>;
  usePath?: string;
  denialsPath?: string;
}

export interface RunningProxy {
  endpoint: string;
  denials: Denial[];
  /** Requests whose signature was refused (never evaluated, never served). */
  refused: Refusal[];
  use: Map<string, UseRecord>;
  /** Time spent deciding, for the benchmark. */
  checks: { calls: number; totalMs: number };
  stop(): Promise<void>;
}

const readBody = async (req: IncomingMessage) => {
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks);
};

/** Sends a verified call on to DynamoDB Local, signed with the proxy's own credentials. */
async function forward(
  upstream: { endpoint: string; credentials: Credentials },
  region: string,
  req: IncomingMessage,
  body: Buffer,
  res: ServerResponse,
): Promise<void> {
  const url = new URL(req.url ?? '/', upstream.endpoint);
  const headers = await signRequest(
    {
      method: req.method ?? 'POST',
      url,
      headers: {
        'content-type': String(req.headers['content-type'] ?? 'application/x-amz-json-1.0'),
        'x-amz-target': String(req.headers['x-amz-target'] ?? ''),
        'content-length': String(body.length),
      },
      body,
    },
    upstream.credentials,
    { region, service: 'dynamodb' },
  );
  return new Promise((resolve) => {
    const out = httpRequest(url, { method: req.method, headers }, (answer) => {
      res.writeHead(answer.statusCode ?? 500, answer.headers);
      answer.pipe(res).on('finish', resolve);
    });
    out.on('error', (error) => {
      res.writeHead(502).end(String(error));
      resolve();
    });
    out.end(body);
  });
}

/** The signing name each API's requests are signed for (the service of the credential scope). */
const signingNames: Record<string, string> = {
  DynamoDB_20120810: 'dynamodb',
  DynamoDBStreams_20120810: 'dynamodb',
  AmazonSQS: 'sqs',
  secretsmanager: 'secretsmanager',
};
/** SQS's query error codes for a refused signature (its JSON protocol sends them in x-amzn-query-error). */
const sqsCodes = {
  UnrecognizedClientException: 'InvalidClientTokenId',
  InvalidSignatureException: 'SignatureDoesNotMatch',
  IncompleteSignatureException: 'IncompleteSignature',
} as const;

const accessKeyOf = (req: IncomingMessage) => /Credential=([^/]+)\//.exec(String(req.headers.authorization ?? ''))?.[1] ?? '';

export async function startProxy(options: ProxyOptions): Promise<RunningProxy> {
  const denials: Denial[] = [];
  const refused: Refusal[] = [];
  const use = new Map<string, UseRecord>();
  const checks = { calls: 0, totalMs: 0 };
  const save = () => {
    if (options.usePath) writeFileSync(options.usePath, JSON.stringify([...use.values()], null, 1));
    if (options.denialsPath) writeFileSync(options.denialsPath, JSON.stringify(denials, null, 1));
  };

  /** Undefined when allowed (and recorded), else the denial message. */
  const authorize = (principal: Principal, authorizations: Authorization[]): string | undefined => {
    const started = performance.now();
    try {
      for (const a of authorizations) {
        if (principal.evaluator.decide(a) === 'Allowed') continue;
        const denial = { functionId: principal.functionId, action: a.action, resource: a.resource, keys: a.keys };
        denials.push(denial);
        save();
        console.error(`[rehearsal] ACCESS DENIED ${denial.functionId} ${a.action} on ${a.resource} key ${a.keys.join(',') || '-'}`);
        return (
          `User: ${principal.callerArn} is not authorized to perform: ` +
          `${a.action} on resource: ${a.resource} because no identity-based policy allows the ${a.action} action`
        );
      }
      let added = false;
      for (const a of authorizations) {
        for (const prefix of a.keys.length ? [...new Set(a.keys.map(keyPrefix))] : ['']) {
          const record = { functionId: principal.functionId, action: a.action, resource: a.resource, keyPrefix: prefix };
          const id = JSON.stringify(record);
          if (use.has(id)) continue;
          use.set(id, record);
          added = true;
        }
      }
      if (added) save();
      return undefined;
    } finally {
      checks.calls++;
      checks.totalMs += performance.now() - started;
    }
  };

  const secretValue = (arn: string) => {
    const value = options.secrets.get(arn);
    return value === undefined ? undefined : { ARN: arn, Name: arn.split(':').pop(), SecretString: value, VersionId: 'rehearsal' };
  };

  const server: Server = createServer(async (req, res) => {
    try {
      const body = await readBody(req);
      const url = new URL(req.url ?? '/', 'http://127.0.0.1');
      // The Parameters and Secrets extension: GET /secretsmanager/get?secretId=<arn>, authenticated by the session token.
      if (url.pathname === '/secretsmanager/get') {
        const token = String(req.headers['x-aws-parameters-secrets-token'] ?? '');
        const principal = token ? [...options.principals.values()].find((p) => p.credentials.sessionToken === token) : undefined;
        if (!principal) return void res.writeHead(401).end('unknown session token');
        const arn = url.searchParams.get('secretId') ?? '';
        const denied = authorize(principal, [{ action: 'secretsmanager:GetSecretValue', resource: arn, context: {}, keys: [] }]);
        if (denied) return void res.writeHead(400).end(`AccessDeniedException: ${denied}`);
        const value = secretValue(arn);
        return void (value
          ? res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(value))
          : res.writeHead(400).end('ResourceNotFoundException'));
      }
      const target = String(req.headers['x-amz-target'] ?? '');
      const [service, operation = ''] = target.split('.');
      const signingName = signingNames[service ?? ''];
      const jsonError = (status: number, type: string, message: string, extra: Record<string, string> = {}) =>
        res.writeHead(status, { 'content-type': 'application/x-amz-json-1.0', ...extra }).end(JSON.stringify({ __type: type, message }));
      if (!signingName) return jsonError(400, 'UnknownOperationException', `unknown target ${target}`);
      const verdict = await verifySignature(
        { method: req.method ?? 'POST', url: req.url ?? '/', headers: req.headers, body },
        { region: options.region, service: signingName },
        (key) => options.principals.get(key)?.credentials,
      );
      if (!verdict.ok) {
        refused.push({ accessKeyId: accessKeyOf(req), target, code: verdict.code });
        if (service === 'AmazonSQS') {
          const code = sqsCodes[verdict.code];
          return jsonError(403, `com.amazon.coral.service#${verdict.code}`, verdict.message, { 'x-amzn-query-error': `${code};Sender` });
        }
        return jsonError(400, `com.amazon.coral.service#${verdict.code}`, verdict.message);
      }
      const principal = options.principals.get(verdict.accessKeyId)!;
      const parsed = body.length ? JSON.parse(body.toString('utf8')) : {};

      if (service === 'secretsmanager') {
        if (operation !== 'GetSecretValue') return jsonError(400, 'InvalidRequestException', `${operation} is not served here`);
        const denied = authorize(principal, [
          { action: 'secretsmanager:GetSecretValue', resource: parsed.SecretId, context: {}, keys: [] },
        ]);
        if (denied) return jsonError(400, 'AccessDeniedException', denied);
        const value = secretValue(parsed.SecretId);
        if (!value) return jsonError(400, 'ResourceNotFoundException', 'Secrets Manager can’t find the specified secret.');
        return void res.writeHead(200, { 'content-type': 'application/x-amz-json-1.1' }).end(JSON.stringify(value));
      }
      if (service === 'DynamoDB_20120810' || service === 'DynamoDBStreams_20120810') {
        const denied = authorize(principal, dynamoAuthorizations(operation, parsed, options.schema, options.region));
        if (denied) return jsonError(400, 'com.amazon.coral.service#AccessDeniedException', denied);
        return forward(options.dynamo, options.region, req, body, res);
      }
      const denied = authorize(principal, sqsAuthorizations(operation, parsed, options.region));
      if (denied) return jsonError(403, 'com.amazon.coral.access#AccessDenied', denied, { 'x-amzn-query-error': 'AccessDenied;Sender' });
      // The local SQS's handler, in this process: the request as it came, its body already read.
      const inner = Object.assign(Readable.from(body.length ? [body] : []), { headers: req.headers, method: req.method, url: req.url });
      return options.sqs(inner as unknown as IncomingMessage, res);
    } catch (error) {
      console.error('[rehearsal] proxy error', error);
      if (!res.headersSent) res.writeHead(500).end(String(error));
    }
  });
  await new Promise<void>((ok, fail) => server.once('error', fail).listen(0, '127.0.0.1', ok));
  const endpoint = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    endpoint,
    denials,
    refused,
    use,
    checks,
    stop: async () => {
      save();
      server.closeAllConnections();
      await new Promise<void>((ok) => server.close(() => ok()));
    },
  };
}
