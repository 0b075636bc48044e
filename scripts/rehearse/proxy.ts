import { writeFileSync } from 'node:fs';
import { createServer, request as httpRequest, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { type Authorization, dynamoAuthorizations, keyPrefix, type RoleEvaluator, sqsAuthorizations, type TableSchema } from './iam.ts';

/**
 * The AWS endpoint every rehearsed function talks to (AWS_ENDPOINT_URL): in front of DynamoDB
 * Local (and its streams), the local SQS and the secrets, it tells the calling function by the
 * access key id of the request's signature (each function has its own), works out what AWS would
 * authorize (./iam.ts) and evaluates it against that function's role. A denial answers the
 * service's AccessDeniedException and is logged with function, action, resource and key; an
 * allowed call is forwarded and recorded (function, action, resource, key prefix). It also serves
 * the secrets: Secrets Manager's GetSecretValue and the Parameters and Secrets extension's
 * `/secretsmanager/get` (the functions' way, authenticated by the session token).
 */
export interface Principal {
  functionId: string;
  evaluator: RoleEvaluator;
}

export interface Denial {
  functionId: string;
  action: string;
  resource: string;
  keys: string[];
}

export interface UseRecord {
  functionId: string;
  action: string;
  resource: string;
  keyPrefix: string;
}

export interface ProxyOptions {
  region: string;
  dynamoEndpoint: string;
  sqsEndpoint: string;
  schema: TableSchema;
  /** By access key id; a key id starting with `operator` is the operator (not checked, as an admin's). */
  principals: Map<string, Principal>;
  /** Session token → access key id (the secrets extension's authentication). */
  tokens: Map<string, string>;
  secrets: Map<string, string>;
  usePath?: string;
  denialsPath?: string;
}

export interface RunningProxy {
  endpoint: string;
  denials: Denial[];
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

const accessKeyOf = (req: IncomingMessage) => /Credential=([^/]+)\//.exec(String(req.headers.authorization ?? ''))?.[1];

function forward(upstream: string, req: IncomingMessage, body: Buffer, res: ServerResponse): Promise<void> {
  const url = new URL(req.url ?? '/', upstream);
  return new Promise((resolve) => {
    const out = httpRequest(
      url,
      { method: req.method, headers: { ...req.headers, host: url.host, 'content-length': String(body.length) } },
      (answer) => {
        res.writeHead(answer.statusCode ?? 500, answer.headers);
        answer.pipe(res).on('finish', resolve);
      },
    );
    out.on('error', (error) => {
      res.writeHead(502).end(String(error));
      resolve();
    });
    out.end(body);
  });
}

export async function startProxy(options: ProxyOptions): Promise<RunningProxy> {
  const denials: Denial[] = [];
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
        const role = principal.evaluator.roleArn.split('/').pop();
        return (
          `User: arn:aws:sts::000000000000:assumed-role/${role}/${principal.functionId} is not authorized to perform: ` +
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
        const key = options.tokens.get(String(req.headers['x-aws-parameters-secrets-token'] ?? ''));
        const principal = key ? options.principals.get(key) : undefined;
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
      const parsed = body.length ? JSON.parse(body.toString('utf8')) : {};
      const accessKey = accessKeyOf(req) ?? '';
      const principal = options.principals.get(accessKey);
      const operator = accessKey.startsWith('operator');
      const jsonError = (status: number, type: string, message: string, extra: Record<string, string> = {}) =>
        res.writeHead(status, { 'content-type': 'application/x-amz-json-1.0', ...extra }).end(JSON.stringify({ __type: type, message }));
      if (!principal && !operator) return jsonError(400, 'UnrecognizedClientException', `unknown access key ${accessKey}`);

      if (service === 'secretsmanager') {
        if (operation !== 'GetSecretValue') return jsonError(400, 'InvalidRequestException', `${operation} is not served here`);
        const denied =
          principal &&
          authorize(principal, [{ action: 'secretsmanager:GetSecretValue', resource: parsed.SecretId, context: {}, keys: [] }]);
        if (denied) return jsonError(400, 'AccessDeniedException', denied);
        const value = secretValue(parsed.SecretId);
        if (!value) return jsonError(400, 'ResourceNotFoundException', 'Secrets Manager can’t find the specified secret.');
        return void res.writeHead(200, { 'content-type': 'application/x-amz-json-1.1' }).end(JSON.stringify(value));
      }
      if (service === 'DynamoDB_20120810' || service === 'DynamoDBStreams_20120810') {
        const denied = principal && authorize(principal, dynamoAuthorizations(operation, parsed, options.schema, options.region));
        if (denied) return jsonError(400, 'com.amazon.coral.service#AccessDeniedException', denied);
        return forward(options.dynamoEndpoint, req, body, res);
      }
      if (service === 'AmazonSQS') {
        const denied = principal && authorize(principal, sqsAuthorizations(operation, parsed, options.region));
        if (denied) return jsonError(403, 'com.amazon.coral.access#AccessDenied', denied, { 'x-amzn-query-error': 'AccessDenied;Sender' });
        return forward(options.sqsEndpoint, req, body, res);
      }
      return jsonError(400, 'UnknownOperationException', `unknown target ${target}`);
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
    use,
    checks,
    stop: async () => {
      save();
      server.closeAllConnections();
      await new Promise<void>((ok) => server.close(() => ok()));
    },
  };
}
