import { currentTraceHeader } from '#shared/aws/tracing.ts';

/**
 * The one structured JSON logger. Log only identifiers, statuses and timings: never API keys,
 * secret keys, webhook secrets, request bodies or card data.
 *
 * One JSON line per entry, in the shape Powertools Logger wrote (which this replaced: with its
 * metrics it was 34 kB of every Lambda's bundle, issue 26; docs/scaling.md, Lambda bundles), so
 * CloudWatch Logs Insights queries and the runbook's filters stay valid: `level`, `message`,
 * `timestamp` (ISO, UTC), `service`, `xray_trace_id` inside Lambda, then the keys appended for the
 * request (appendKeys), then the entry's own attributes. An Error anywhere in them is written as
 * { name, location, message, stack, cause }, a bigint as a string, a circular reference dropped.
 * The level: AWS_LAMBDA_LOG_LEVEL (Lambda's advanced logging controls), else POWERTOOLS_LOG_LEVEL,
 * else LOG_LEVEL, else INFO. WARN and above go to stderr, the rest to stdout (as console does).
 */
const levels = { TRACE: 6, DEBUG: 8, INFO: 12, WARN: 16, ERROR: 20, CRITICAL: 24, SILENT: 28 } as const;
type LogLevel = keyof typeof levels;
type Attributes = Record<string, unknown>;

const levelFromEnv = (): LogLevel => {
  for (const name of ['AWS_LAMBDA_LOG_LEVEL', 'POWERTOOLS_LOG_LEVEL', 'LOG_LEVEL']) {
    const value = process.env[name]?.toUpperCase();
    if (value && Object.hasOwn(levels, value)) return value as LogLevel;
  }
  return 'INFO';
};

/** `file:line` of the first frame of an error's stack, as Powertools' `location`. */
const locationOf = (stack: string | undefined) => /\(?([^\s()]+:\d+):\d+\)?\s*$/m.exec(stack?.split('\n')[1] ?? '')?.[1] ?? '';

function formatError(error: Error): Attributes {
  const { name, message, stack, cause } = error;
  const formatted: Attributes = {
    name,
    location: locationOf(stack),
    message,
    stack,
    cause: cause instanceof Error ? formatError(cause) : cause,
  };
  for (const key of Object.keys(error))
    if (!['name', 'message', 'stack', 'cause'].includes(key)) formatted[key] = (error as unknown as Attributes)[key];
  return formatted;
}

function replacer(): (this: unknown, key: string, value: unknown) => unknown {
  const ancestors: unknown[] = [];
  return function (this: unknown, _key, value) {
    const replaced = value instanceof Error ? formatError(value) : value;
    if (typeof replaced === 'bigint') return replaced.toString();
    if (typeof replaced === 'object' && replaced !== null) {
      while (ancestors.length > 0 && ancestors.at(-1) !== this) ancestors.pop();
      if (ancestors.includes(replaced)) return undefined;
      ancestors.push(replaced);
    }
    return replaced;
  };
}

export class Logger {
  private threshold: number = levels[levelFromEnv()];
  private keys: Attributes = {};

  constructor(private readonly options: { serviceName: string }) {}

  /** Keys written with every entry from now on (until resetKeys): the request's traceId, route, merchant. */
  appendKeys(keys: Attributes): void {
    Object.assign(this.keys, keys);
  }

  resetKeys(): void {
    this.keys = {};
  }

  setLogLevel(level: LogLevel): void {
    this.threshold = levels[level];
  }

  info(message: string, attributes?: Attributes): void {
    this.write('INFO', message, attributes);
  }
  warn(message: string, attributes?: Attributes): void {
    this.write('WARN', message, attributes);
  }
  error(message: string, attributes?: Attributes): void {
    this.write('ERROR', message, attributes);
  }

  private write(level: Exclude<LogLevel, 'TRACE' | 'CRITICAL' | 'SILENT'>, message: string, attributes: Attributes = {}): void {
    if (levels[level] < this.threshold) return;
    const trace = currentTraceHeader();
    const entry = {
      level,
      message,
      timestamp: new Date().toISOString(),
      service: this.options.serviceName,
      ...(trace ? { xray_trace_id: trace.root } : {}),
      ...this.keys,
      ...attributes,
    };
    const stream = levels[level] >= levels.WARN ? process.stderr : process.stdout;
    stream.write(`${JSON.stringify(entry, replacer())}\n`);
  }
}

export const logger = new Logger({ serviceName: process.env.POWERTOOLS_SERVICE_NAME ?? 'payment-gateway' });
