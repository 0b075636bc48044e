import type { TestMerchant } from './gateway.ts';
import { call } from './gateway.ts';

/** Hosted checkout helpers: create a session as a merchant, and drive the page as a browser without one. */
let seq = 0;
export const orderId = () => `CHK${Date.now()}${seq++}`;

export const checkoutBody = (over: Record<string, unknown> = {}) => ({
  amount: 1500,
  description: 'Blue shirt',
  orderRef: { orderRef: orderId() },
  ...over,
});

export function createCheckout(
  baseUrl: string,
  m: TestMerchant,
  body: Record<string, unknown>,
  options: { mode?: 'test' | 'live'; headers?: Record<string, string> } = {},
) {
  const keys = m[options.mode ?? 'test'];
  return call(baseUrl, 'POST', '/Gateway/v1/Payment/initiate-checkout', {
    key: keys.apiKey,
    secret: keys.secretKey,
    body,
    ...(options.headers ? { headers: options.headers } : {}),
  });
}

/** The page path of a checkoutUrl, on the test server (checkoutUrl carries PUBLIC_BASE_URL's host). */
export const pagePath = (checkoutUrl: string) => new URL(checkoutUrl).pathname;

export async function getPage(baseUrl: string, path: string) {
  const response = await fetch(`${baseUrl}${path}`, { redirect: 'manual' });
  const html = await response.text();
  const csrf = /name="csrf" value="([^"]+)"/.exec(html)?.[1];
  return { status: response.status, headers: response.headers, html, csrf, location: response.headers.get('location') };
}

/** A form post as the page's own form makes it (same-origin, form-urlencoded). */
export async function postForm(baseUrl: string, path: string, fields: Record<string, string>, headers: Record<string, string> = {}) {
  const response = await fetch(`${baseUrl}${path}`, {
    method: 'POST',
    redirect: 'manual',
    headers: { 'Content-Type': 'application/x-www-form-urlencoded', 'Sec-Fetch-Site': 'same-origin', ...headers },
    body: new URLSearchParams(fields).toString(),
  });
  return { status: response.status, headers: response.headers, html: await response.text(), location: response.headers.get('location') };
}
