import type { APIGatewayProxyEvent } from 'aws-lambda';
import { describe, expect, it } from 'vitest';
import { servingBaseUrl } from '#functions/reference/site.ts';

/** The developer site shows the base URL of the gateway serving it (issue 38 §4), as API Gateway and the local server call it. */
const event = (e: { path: string; headers?: Record<string, string>; requestContext?: object }) =>
  ({ headers: {}, ...e, requestContext: { path: e.path, ...e.requestContext } }) as unknown as APIGatewayProxyEvent;

describe('servingBaseUrl', () => {
  it('is the execute-api URL with its stage prefix, https, behind API Gateway', () => {
    const host = 'abc123.execute-api.eu-west-1.amazonaws.com';
    const e = event({
      path: '/docs/quick-start',
      headers: { Host: host, 'X-Forwarded-Proto': 'https' },
      requestContext: { domainName: host, path: '/prod/docs/quick-start' },
    });
    expect(servingBaseUrl(e)).toBe(`https://${host}/prod`);
  });

  it('is a custom domain without prefix, and the local server by its Host header', () => {
    const custom = event({ path: '/docs', headers: { 'x-forwarded-proto': 'https' }, requestContext: { domainName: 'pay.example.com' } });
    expect(servingBaseUrl(custom)).toBe('https://pay.example.com');
    expect(servingBaseUrl(event({ path: '/docs', headers: { host: '127.0.0.1:4321' } }))).toBe('http://127.0.0.1:4321');
  });

  it('falls back to PUBLIC_BASE_URL for a host of any other shape (never reflected into the page)', () => {
    expect(servingBaseUrl(event({ path: '/docs', headers: { host: 'evil"><script>' } }))).toBe(
      (process.env.PUBLIC_BASE_URL ?? 'http://localhost:3000').replace(/\/+$/, ''),
    );
  });
});
