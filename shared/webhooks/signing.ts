import { createHmac } from 'node:crypto';
import { computeSignature } from '../../sdk/node/src/webhooks.ts';

/**
 * The headers of one delivery attempt (docs/merchant-guide.md, Webhooks / docs/merchant-guide.md, Webhooks). The timestamp is the time of
 * the attempt, so a retry is signed afresh; the body is the same bytes every time.
 */
export const userAgent = 'Svc-Webhook/1.0';

export interface SigningInput {
  body: string;
  /** Unexpired endpoint secrets, newest first: one `v1=` each. */
  secrets: readonly string[];
  eventId: string;
  eventType: string;
  deliveryId: string;
  /** Unix seconds. */
  timestamp: number;
}

/**
 * Standard Webhooks (standardwebhooks.com) signature of one delivery: base64 HMAC-SHA256 of
 * `<webhook-id>.<webhook-timestamp>.<body>`, keyed with the bytes the base64 part of a `whsec_`
 * secret decodes to (docs/merchant-guide.md "Webhooks"). Our secrets are `whsec_` + base64 of 32
 * random bytes, so the same secret verifies with Standard Webhooks libraries and with Stripe's.
 */
export function standardWebhooksSignature(secret: string, eventId: string, timestamp: number, body: string): string {
  // What the standardwebhooks libraries do with the secret they are given: drop `whsec_`, base64-decode.
  const key = Buffer.from(secret.startsWith('whsec_') ? secret.slice('whsec_'.length) : secret, 'base64');
  return createHmac('sha256', key).update(`${eventId}.${timestamp}.`, 'utf8').update(body, 'utf8').digest('base64');
}

export function signedHeaders(input: SigningInput): Record<string, string> {
  const [current] = input.secrets;
  if (!current) throw new Error('no signing secret');
  const v1 = input.secrets.map((secret) => `v1=${computeSignature(input.body, input.timestamp, secret)}`).join(',');
  return {
    'Content-Type': 'application/json',
    'User-Agent': userAgent,
    'X-Svc-Signature-V2': `t=${input.timestamp},${v1}`,
    'X-Svc-Signature-Timestamp': String(input.timestamp),
    // Deprecated (docs/merchant-guide.md, Endpoints): HMAC of the body alone, with the newest secret only.
    'X-Svc-Signature': createHmac('sha256', current).update(input.body, 'utf8').digest('hex'),
    'X-Svc-Event-Type': input.eventType,
    'X-Svc-Event-Id': input.eventId,
    'X-Svc-Delivery-Id': input.deliveryId,
    // Standard Webhooks: one `v1,<base64>` per live secret, space separated, as the spec allows.
    'webhook-id': input.eventId,
    'webhook-timestamp': String(input.timestamp),
    'webhook-signature': input.secrets
      .map((secret) => `v1,${standardWebhooksSignature(secret, input.eventId, input.timestamp, input.body)}`)
      .join(' '),
  };
}
