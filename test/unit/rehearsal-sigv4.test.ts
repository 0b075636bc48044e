import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { DynamoDBClient, ListTablesCommand } from '@aws-sdk/client-dynamodb';
import { GetSecretValueCommand, SecretsManagerClient } from '@aws-sdk/client-secrets-manager';
import { GetQueueAttributesCommand, SQSClient } from '@aws-sdk/client-sqs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Credentials, generateCredentials, signRequest, verifySignature } from '../../scripts/rehearse/sigv4.ts';

/**
 * The rehearsal's SigV4 check (scripts/rehearse/sigv4.ts, issue 42): requests the AWS SDK signs with
 * an identity's own credentials pass; a request whose signature does not match the identity its
 * access key id claims is refused (another identity's secret, a wrong secret, a changed body, a
 * wrong session token, an unknown key, a stale date, another service's scope).
 */
const region = 'us-east-1';
const alice = generateCredentials('role');
const bob = generateCredentials('role');
const operator = generateCredentials('user');
const known = new Map([alice, bob, operator].map((c) => [c.accessKeyId, c]));
const services: Record<string, string> = { DynamoDB_20120810: 'dynamodb', AmazonSQS: 'sqs', secretsmanager: 'secretsmanager' };
const verdicts: Awaited<ReturnType<typeof verifySignature>>[] = [];

let server: Server;
let endpoint = '';
beforeAll(async () => {
  server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', async () => {
      const service = services[String(req.headers['x-amz-target']).split('.')[0]!] ?? '';
      const verdict = await verifySignature(
        { method: req.method!, url: req.url!, headers: req.headers, body: Buffer.concat(chunks) },
        { region, service },
        (key) => known.get(key),
      );
      verdicts.push(verdict);
      if (verdict.ok) return void res.writeHead(200, { 'content-type': 'application/x-amz-json-1.0' }).end('{}');
      res
        .writeHead(400, { 'content-type': 'application/x-amz-json-1.0' })
        .end(JSON.stringify({ __type: `com.amazon.coral.service#${verdict.code}`, message: verdict.message }));
    });
  });
  await new Promise<void>((ok) => server.listen(0, '127.0.0.1', ok));
  endpoint = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(() => new Promise((ok) => server.close(ok)));

const dynamo = (credentials: Credentials) => new DynamoDBClient({ endpoint, region, credentials, maxAttempts: 1 });
const last = () => verdicts.at(-1)!;

describe('rehearsal SigV4 verification', () => {
  it('accepts what the AWS SDK signs with the identity’s own credentials (DynamoDB, SQS, Secrets Manager; role and user)', async () => {
    await dynamo(alice).send(new ListTablesCommand({}));
    expect(last()).toEqual({ ok: true, accessKeyId: alice.accessKeyId });
    await new SQSClient({ endpoint, region, credentials: bob, maxAttempts: 1 }).send(
      new GetQueueAttributesCommand({ QueueUrl: `${endpoint}/000000000000/WebhookQueue`, AttributeNames: ['All'] }),
    );
    expect(last()).toEqual({ ok: true, accessKeyId: bob.accessKeyId });
    await new SecretsManagerClient({ endpoint, region, credentials: operator, maxAttempts: 1 }).send(
      new GetSecretValueCommand({ SecretId: 'arn:aws:secretsmanager:us-east-1:000000000000:secret:x' }),
    );
    expect(last()).toEqual({ ok: true, accessKeyId: operator.accessKeyId });
  });

  it('refuses a call that claims one identity and is signed with another’s secret, or a wrong one', async () => {
    const posing = { ...alice, secretAccessKey: bob.secretAccessKey };
    await expect(dynamo(posing).send(new ListTablesCommand({}))).rejects.toMatchObject({
      name: 'InvalidSignatureException',
      message: expect.stringContaining('does not match the signature you provided'),
    });
    await expect(dynamo({ ...operator, secretAccessKey: 'guessed' }).send(new ListTablesCommand({}))).rejects.toMatchObject({
      name: 'InvalidSignatureException',
    });
  });

  it('refuses an unknown key and a session token that is not the key’s', async () => {
    await expect(dynamo(generateCredentials('role')).send(new ListTablesCommand({}))).rejects.toMatchObject({
      name: 'UnrecognizedClientException',
    });
    await expect(dynamo({ ...alice, sessionToken: bob.sessionToken }).send(new ListTablesCommand({}))).rejects.toMatchObject({
      name: 'UnrecognizedClientException',
    });
    await expect(
      dynamo({ accessKeyId: alice.accessKeyId, secretAccessKey: alice.secretAccessKey }).send(new ListTablesCommand({})),
    ).rejects.toMatchObject({ name: 'UnrecognizedClientException' });
  });

  const signed = async (credentials: Credentials, body: string, service = 'dynamodb') => {
    const url = new URL(`${endpoint}/`);
    const headers = await signRequest(
      {
        method: 'POST',
        url,
        headers: { 'content-type': 'application/x-amz-json-1.0', 'x-amz-target': 'DynamoDB_20120810.GetItem' },
        body: Buffer.from(body),
      },
      credentials,
      { region, service },
    );
    return { method: 'POST', url: '/', headers, body: Buffer.from(body) };
  };

  it('refuses a body changed after signing, and accepts it unchanged', async () => {
    const body = JSON.stringify({ TableName: 'T', Key: { PK: { S: 'MERCHANT#1' } } });
    const request = await signed(alice, body);
    const lookup = (key: string) => known.get(key);
    expect(await verifySignature(request, { region, service: 'dynamodb' }, lookup)).toEqual({ ok: true, accessKeyId: alice.accessKeyId });
    const changed = { ...request, body: Buffer.from(body.replace('MERCHANT#1', 'MERCHANT#2')) };
    expect(await verifySignature(changed, { region, service: 'dynamodb' }, lookup)).toMatchObject({
      ok: false,
      code: 'InvalidSignatureException',
    });
    const headerChanged = { ...request, headers: { ...request.headers, 'x-amz-target': 'DynamoDB_20120810.DeleteItem' } };
    expect(await verifySignature(headerChanged, { region, service: 'dynamodb' }, lookup)).toMatchObject({ ok: false });
  });

  it('refuses a stale date and a scope of another service or region', async () => {
    const request = await signed(alice, '{}');
    const lookup = (key: string) => known.get(key);
    const later = Date.now() + 16 * 60_000;
    expect(await verifySignature(request, { region, service: 'dynamodb' }, lookup, later)).toMatchObject({
      ok: false,
      message: expect.stringContaining('Signature expired'),
    });
    const sqsScoped = await signed(alice, '{}', 'sqs');
    expect(await verifySignature(sqsScoped, { region, service: 'dynamodb' }, lookup)).toMatchObject({ ok: false });
    expect(await verifySignature(request, { region: 'eu-west-1', service: 'dynamodb' }, lookup)).toMatchObject({ ok: false });
    expect(
      await verifySignature({ ...request, headers: { ...request.headers, authorization: '' } }, { region, service: 'dynamodb' }, lookup),
    ).toMatchObject({ ok: false, code: 'IncompleteSignatureException' });
  });
});
