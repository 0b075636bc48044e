import { randomUUID } from 'node:crypto';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { pathToFileURL } from 'node:url';
import { Worker } from 'node:worker_threads';
import { buildSync } from 'esbuild';
import type { NetworkMap } from './network.ts';

/**
 * A Lambda runtime on this machine: each function's bundled asset (cdk.out/asset.*) runs in worker
 * threads of its own, each with exactly the environment the template gives the function plus what
 * Lambda adds (region, the role's credentials, the handler, memory), so no two functions share a
 * module, a client or a variable. A sandbox is started at the first invocation (a cold start) and
 * kept; one invocation at a time per sandbox, up to `maxSandboxes` per function. An invocation past
 * the function's timeout ends its sandbox, as Lambda does. The heap is capped at the function's
 * memory setting. Output lines go to `onLine` (logs and EMF metrics).
 */
export interface FunctionSpec {
  id: string;
  /** Directory of the bundled asset and the template's Handler (`index.handler`). */
  assetDir: string;
  handler: string;
  environment: Record<string, string>;
  timeoutSeconds: number;
  memoryMb: number;
  /** The network the sandbox sees (./network.ts): without it, the machine's. */
  network?: NetworkMap;
}

export type InvokeOutcome =
  | { kind: 'ok'; result: unknown; durationMs: number }
  | { kind: 'error'; errorType: string; errorMessage: string; durationMs: number }
  | { kind: 'timeout'; durationMs: number };

/**
 * The sandbox's code: loads the handler module once when it starts (Lambda's Init phase, which the
 * function's timeout does not count), says it is ready, then answers one invocation per message. A
 * streamified handler (awslambda.streamifyResponse, defined here as the Node.js runtime does) sends
 * each write of its response stream as a `chunk` message, then the end.
 */
const sandboxSource = `
const { parentPort, workerData } = require('node:worker_threads');
const { Writable } = require('node:stream');
// What the Node.js runtime defines before it loads a handler: response streaming's two calls.
const streamingMark = Symbol.for('aws.lambda.runtime.handler.streaming');
globalThis.awslambda = Object.assign(globalThis.awslambda ?? {}, {
  streamifyResponse: (fn) => Object.assign(fn, { [streamingMark]: 'response' }),
  HttpResponseStream: {
    from(stream, metadata) {
      stream.setContentType('application/vnd.awslambda.http-integration-response');
      stream.write(JSON.stringify(metadata));
      stream.write(new Uint8Array(8));
      return stream;
    },
  },
});
// The runtime's preload (./sandbox-preload.ts, bundled): the rehearsal's network and NODE_EXTRA_CA_CERTS, before the handler.
{
  const preload = { exports: {} };
  new Function('require', 'module', 'exports', workerData.preload)(require, preload, preload.exports);
}
let handler;
import(workerData.module).then(
  (m) => {
    handler = m[workerData.exportName];
    const initError = 'handler ' + workerData.exportName + ' is not a function';
    parentPort.postMessage(typeof handler === 'function' ? { ready: true } : { initError });
  },
  (error) => parentPort.postMessage({ initError: String(error?.message ?? error) }),
);
parentPort.on('message', async ({ event, requestId, deadline }) => {
  const context = {
    callbackWaitsForEmptyEventLoop: false,
    functionName: workerData.id,
    functionVersion: '$LATEST',
    invokedFunctionArn: workerData.arn,
    memoryLimitInMB: String(workerData.memoryMb),
    awsRequestId: requestId,
    logGroupName: '/aws/lambda/' + workerData.id,
    logStreamName: 'rehearsal',
    getRemainingTimeInMillis: () => Math.max(0, deadline - Date.now()),
    done() {}, fail() {}, succeed() {},
  };
  try {
    if (handler[streamingMark] !== 'response') return parentPort.postMessage({ ok: true, result: await handler(event, context) });
    // A streamified handler: each write goes to the caller as it is made (InvokeWithResponseStream).
    const stream = new Writable({
      write(chunk, _encoding, done) {
        parentPort.postMessage({ chunk });
        done();
      },
    });
    stream.setContentType = () => undefined;
    await handler(event, stream, context);
    if (!stream.writableEnded) stream.end();
    parentPort.postMessage({ ok: true, result: undefined });
  } catch (error) {
    parentPort.postMessage({ ok: false, errorType: error?.name ?? 'Error', errorMessage: String(error?.message ?? error) });
  }
});
`;

let preloadSource: string | undefined;
/** ./sandbox-preload.ts as one CommonJS script (bundled once per process; a worker thread cannot load TypeScript). */
function sandboxPreload(): string {
  preloadSource ??= buildSync({
    entryPoints: [join(import.meta.dirname, 'sandbox-preload.ts')],
    bundle: true,
    platform: 'node',
    format: 'cjs',
    target: 'node20',
    write: false,
  }).outputFiles[0]!.text;
  return preloadSource;
}

function moduleOf(spec: FunctionSpec): { module: string; exportName: string } {
  const dot = spec.handler.lastIndexOf('.');
  const base = join(spec.assetDir, spec.handler.slice(0, dot));
  const file = ['.mjs', '.js', '.cjs'].map((ext) => base + ext).find(existsSync);
  if (!file) throw new Error(`${spec.id}: no module for handler ${spec.handler} in ${spec.assetDir}`);
  return { module: pathToFileURL(file).href, exportName: spec.handler.slice(dot + 1) };
}

interface Sandbox {
  worker: Worker;
  busy: boolean;
  /** Settles when the handler module is loaded (a cold start's Init phase): an error when it failed. */
  ready: Promise<string | undefined>;
}

export class LambdaFunction {
  private sandboxes: Sandbox[] = [];
  private waiting: (() => void)[] = [];
  private stopped = false;
  readonly coldStarts: number[] = [];

  constructor(
    readonly spec: FunctionSpec,
    private readonly onLine: (fn: string, line: string) => void,
    private readonly maxSandboxes = 2,
  ) {}

  private start(): Sandbox {
    const { module, exportName } = moduleOf(this.spec);
    const worker = new Worker(sandboxSource, {
      eval: true,
      env: this.spec.environment,
      stdout: true,
      stderr: true,
      resourceLimits: { maxOldGenerationSizeMb: this.spec.memoryMb },
      workerData: {
        id: this.spec.id,
        arn: `arn:aws:lambda:${this.spec.environment.AWS_REGION}:000000000000:function:${this.spec.id}`,
        memoryMb: this.spec.memoryMb,
        module,
        exportName,
        preload: sandboxPreload(),
        network: this.spec.network,
      },
    });
    for (const stream of [worker.stdout, worker.stderr]) {
      createInterface({ input: stream }).on('line', (line) => this.onLine(this.spec.id, line));
    }
    const ready = new Promise<string | undefined>((settle) => {
      const onReady = (m: { ready?: boolean; initError?: string }) => {
        if (!m.ready && m.initError === undefined) return;
        worker.off('message', onReady);
        settle(m.initError);
      };
      worker.on('message', onReady);
      worker.once('exit', (code) => settle(`sandbox exited (${code}) during Init`));
    });
    const sandbox = { worker, busy: false, ready };
    worker.on('exit', () => {
      this.sandboxes = this.sandboxes.filter((s) => s !== sandbox);
    });
    this.sandboxes.push(sandbox);
    return sandbox;
  }

  private async acquire(): Promise<Sandbox> {
    for (let i = 0; i < 10_000; i++) {
      if (this.stopped) throw new Error('the rehearsal is stopping');
      const idle = this.sandboxes.find((s) => !s.busy);
      if (idle) return idle;
      if (this.sandboxes.length < this.maxSandboxes) return this.start();
      await new Promise<void>((ok) => this.waiting.push(ok));
    }
    throw new Error(`${this.spec.id}: no sandbox became free`);
  }

  /** `onChunk`: a streamified handler's writes, as they are made (InvokeWithResponseStream); its outcome's result is then undefined. */
  async invoke(event: unknown, onChunk?: (chunk: Uint8Array) => void): Promise<InvokeOutcome> {
    const sandbox = await this.acquire();
    sandbox.busy = true;
    const initError = await sandbox.ready;
    if (initError !== undefined) {
      this.sandboxes = this.sandboxes.filter((s) => s !== sandbox);
      void sandbox.worker.terminate();
      sandbox.busy = false;
      this.waiting.shift()?.();
      return { kind: 'error', errorType: 'Runtime.InitError', errorMessage: initError, durationMs: 0 };
    }
    // The timeout counts from here, as Lambda's does: a cold start's Init phase is not part of it.
    const started = Date.now();
    const timeoutMs = this.spec.timeoutSeconds * 1000;
    try {
      return await new Promise<InvokeOutcome>((resolve) => {
        const timer = setTimeout(() => {
          cleanup();
          // Lambda ends a sandbox whose invocation timed out: out of the pool at once, so the next
          // invocation cold-starts a new one instead of reaching this one while it exits.
          this.sandboxes = this.sandboxes.filter((s) => s !== sandbox);
          void sandbox.worker.terminate();
          resolve({ kind: 'timeout', durationMs: Date.now() - started });
        }, timeoutMs);
        const onMessage = (m: { ok: boolean; result?: unknown; errorType?: string; errorMessage?: string; chunk?: Uint8Array }) => {
          if (m.chunk) return onChunk?.(m.chunk);
          cleanup();
          const durationMs = Date.now() - started;
          resolve(
            m.ok
              ? { kind: 'ok', result: m.result, durationMs }
              : { kind: 'error', errorType: m.errorType!, errorMessage: m.errorMessage!, durationMs },
          );
        };
        const onExit = (code: number) => {
          cleanup();
          resolve({
            kind: 'error',
            errorType: 'Runtime.ExitError',
            errorMessage: `sandbox exited (${code})`,
            durationMs: Date.now() - started,
          });
        };
        const cleanup = () => {
          clearTimeout(timer);
          sandbox.worker.off('message', onMessage);
          sandbox.worker.off('exit', onExit);
        };
        sandbox.worker.on('message', onMessage);
        sandbox.worker.on('exit', onExit);
        sandbox.worker.postMessage({ event, requestId: randomUUID(), deadline: started + timeoutMs });
      });
    } finally {
      sandbox.busy = false;
      this.waiting.shift()?.();
    }
  }

  async stop(): Promise<void> {
    this.stopped = true;
    for (const wake of this.waiting.splice(0)) wake();
    await Promise.all(this.sandboxes.map((s) => s.worker.terminate()));
  }
}
