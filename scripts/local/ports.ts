import { createServer } from 'node:net';
import type { LocalConfig } from './config.ts';

/** A port `npm start` binds, what binds it, and the variable that moves it. */
interface StackPort {
  port: number;
  host: string;
  what: string;
  variable: string;
}

/** The ports of the local stack (the provider emulators take free ones), with the variable a busy one is moved by. */
export function stackPorts(config: LocalConfig, env: NodeJS.ProcessEnv = process.env): StackPort[] {
  const derived = (own: string, offset: number) => (env[own] ? own : `PORT (it is PORT+${offset}) or ${own}`);
  return [
    { port: config.port, host: config.host, what: 'the API server', variable: 'PORT' },
    { port: config.dynamoPort, host: '127.0.0.1', what: 'DynamoDB Local', variable: derived('DYNAMODB_PORT', 5000) },
    { port: config.sqsPort, host: '127.0.0.1', what: 'local SQS', variable: derived('SQS_PORT', 6324) },
  ];
}

/** A setting `npm start` cannot use, said in one line (no stack trace). */
export class StartError extends Error {
  override name = 'StartError';
}

/** Every port is a whole number the stack can bind (PORT=abc would otherwise surface as a listen error far away). */
export function checkPortNumbers(config: LocalConfig, env: NodeJS.ProcessEnv = process.env): void {
  const named: [string, number, string | undefined][] = [
    ['PORT', config.port, env.PORT],
    ['WEBHOOK_PORT', config.webhookPort, env.WEBHOOK_PORT],
    ['DYNAMODB_PORT', config.dynamoPort, env.DYNAMODB_PORT],
    ['SQS_PORT', config.sqsPort, env.SQS_PORT],
  ];
  for (const [variable, port, given] of named)
    if (!Number.isInteger(port) || port < 1 || port > 65535)
      throw new StartError(
        given === undefined
          ? `${variable} would be ${port}, past 65535: set PORT lower (or ${variable} itself)`
          : `${variable} must be a port number from 1 to 65535, not ${JSON.stringify(given)}`,
      );
}

/** Whether something already listens on host:port (tried by binding it for a moment). */
function portInUse(port: number, host: string): Promise<false | string> {
  return new Promise((done) => {
    const probe = createServer();
    probe.once('error', (error: NodeJS.ErrnoException) => done(error.code ?? error.message));
    probe.listen({ port, host, exclusive: true }, () => probe.close(() => done(false)));
  });
}

/** The one line a busy port gets: which port, what needs it, and the variable that moves it. */
export const busyPortLine = (p: StackPort, code = 'EADDRINUSE') =>
  code === 'EADDRINUSE'
    ? `port ${p.port} on ${p.host} (${p.what}) is already in use: stop what holds it, or set ${p.variable} to a free port`
    : `port ${p.port} on ${p.host} (${p.what}) cannot be used (${code}): set ${p.variable} to another port`;

/** Refuses to start (StartError, one line) when a port of the stack is busy, before any child process runs. */
export async function assertPortsFree(ports: readonly StackPort[]): Promise<void> {
  for (const p of ports) {
    const busy = await portInUse(p.port, p.host);
    if (busy) throw new StartError(busyPortLine(p, busy));
  }
}
