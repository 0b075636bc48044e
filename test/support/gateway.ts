import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll } from 'vitest';
import { signBody } from '#shared/domain/body-signature.ts';
import type { Route } from '#functions/routes.ts';
import { createMerchant } from '#shared/services/merchants.ts';
import { createLocalServer } from '../../scripts/local/server.ts';
import { checkResponse, registerTestOnlyRoutes, warmUpContract } from './contract.ts';

/**
 * Integration tests call the gateway as a merchant would: over HTTP, through the local API
 * Gateway emulation, with real keys and real signatures, against DynamoDB Local.
 */
export function useGateway(routes?: readonly Route[]) {
  const state = { baseUrl: '' };
  const server = createLocalServer(routes);
  if (routes) registerTestOnlyRoutes(routes);
  beforeAll(async () => {
    warmUpContract(); // reads the document here, not inside the first test's timed flow
    await new Promise<void>((ok) => server.listen(0, '127.0.0.1', ok));
    state.baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  afterAll(async () => {
    server.closeAllConnections();
    await new Promise((ok) => server.close(ok));
  });
  return state;
}

export type TestMerchant = Awaited<ReturnType<typeof createMerchant>>;

export function newMerchant(overrides: Parameters<typeof createMerchant>[0] = { name: 'Test Merchant' }) {
  return createMerchant(overrides);
}

export interface CallOptions {
  key?: string | null;
  body?: unknown;
  /** Sign the body with this secret key (adds the `signature` field). */
  secret?: string;
  headers?: Record<string, string>;
  raw?: string;
  /**
   * false: skip the contract check (test/support/contract.ts) for this one call. Only for tests
   * that send what no merchant could (for example a method the route table does not have).
   */
  contract?: boolean;
}

export async function call(baseUrl: string, method: string, path: string, options: CallOptions = {}) {
  const headers: Record<string, string> = { ...options.headers };
  if (options.key) headers['Svc-API-Key'] = options.key;
  let body = options.raw;
  if (options.body !== undefined) {
    const payload = options.secret
      ? { ...(options.body as object), signature: signBody(options.body as Record<string, unknown>, options.secret) }
      : options.body;
    body = JSON.stringify(payload);
    headers['Content-Type'] ??= 'application/json';
  }
  const response = await fetch(`${baseUrl}${path}`, { method, headers, body });
  const text = await response.text();
  // Every response is checked against the OpenAPI document: a status or field it does not list fails the test.
  if (options.contract !== false) checkResponse(method, path, response.status, response.headers.get('content-type'), text);
  let json: any;
  try {
    json = text ? JSON.parse(text) : undefined;
  } catch {
    json = undefined;
  }
  return { status: response.status, headers: response.headers, json, text };
}
