import { afterEach, describe, expect, it, vi } from 'vitest';
import { Logger } from '#shared/logger.ts';
import { captureJsonLines } from '../support/output.ts';

/**
 * shared/logger.ts writes the JSON lines Powertools Logger wrote before it (issue 26 dropped the
 * library for its bundle weight): the same keys, so log queries and the runbook's filters hold.
 */
describe('structured logger', () => {
  afterEach(() => {
    vi.restoreAllMocks();
    delete process.env._X_AMZN_TRACE_ID;
  });

  it('writes level, message, timestamp, service, the trace root, the appended keys and the attributes', () => {
    process.env._X_AMZN_TRACE_ID = 'Root=1-67891233-abcdef012345678912345678;Parent=53995c3f42cd8ad8;Sampled=1';
    const logger = new Logger({ serviceName: 'svc' });
    logger.setLogLevel('INFO');
    const lines = captureJsonLines();
    logger.appendKeys({ traceId: 't-1', route: 'queryBalance' });
    logger.info('request', { statusCode: 200 });
    logger.resetKeys();
    logger.warn('after', { big: 12n });
    vi.restoreAllMocks();
    expect(lines[0]).toEqual({
      level: 'INFO',
      message: 'request',
      timestamp: expect.stringMatching(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/),
      service: 'svc',
      xray_trace_id: '1-67891233-abcdef012345678912345678',
      traceId: 't-1',
      route: 'queryBalance',
      statusCode: 200,
    });
    expect(lines[1]).toMatchObject({ level: 'WARN', message: 'after', big: '12' });
    expect(lines[1]).not.toHaveProperty('traceId');
  });

  it('writes an Error as name, location, message, stack and cause, and drops circular references', () => {
    const logger = new Logger({ serviceName: 'svc' });
    logger.setLogLevel('INFO');
    const error = Object.assign(new Error('boom', { cause: new TypeError('inner') }), { code: 'E_BOOM' });
    const circular: Record<string, unknown> = { id: 'x' };
    circular.self = circular;
    const lines = captureJsonLines();
    logger.error('failed', { error, circular });
    vi.restoreAllMocks();
    expect(lines[0].error).toMatchObject({
      name: 'Error',
      message: 'boom',
      location: expect.stringMatching(/logger\.test\.ts:\d+$/),
      stack: expect.stringContaining('Error: boom'),
      cause: { name: 'TypeError', message: 'inner' },
      code: 'E_BOOM',
    });
    expect(lines[0].circular).toEqual({ id: 'x' });
  });

  it('writes nothing below its level', () => {
    const logger = new Logger({ serviceName: 'svc' });
    logger.setLogLevel('WARN');
    const lines = captureJsonLines();
    logger.info('hidden');
    logger.error('shown');
    vi.restoreAllMocks();
    expect(lines.map((l) => l.message)).toEqual(['shown']);
  });
});
