import { randomUUID } from 'node:crypto';
import type { Mode } from '#shared/domain/credentials.ts';
import { apiVersion } from '#shared/domain/events.ts';
import type { Merchant } from '#shared/domain/merchant.ts';
import { masterKey, open } from '#shared/crypto/seal.ts';
import { webhookSecretAssociatedData } from '#shared/store/merchants.ts';
import { insecureAllowed } from './dispatcher.ts';
import { deliveryErrorCategory } from './error-categories.ts';
import { postWebhook } from './http.ts';
import { newDeliveryId } from './messages.ts';
import { timeoutMs } from './policy.ts';
import { signedHeaders } from './signing.ts';

/** The type of a test event: never a real event type, so a receiver cannot mistake it for a status change. */
export const testEventType = 'WebhookTest';

/**
 * A test delivery to the mode's endpoint (the dashboard's "Send a test event"): a `WebhookTest`
 * envelope signed exactly like a real delivery (every live secret, same headers), posted once now
 * through the same SSRF-guarded client, and the answer reported. It is not an event of the feed:
 * nothing is stored, retried or counted against the endpoint's health.
 */
export async function sendTestEvent(merchant: Merchant, mode: Mode, now = new Date()) {
  const endpoint = merchant.webhooks[mode];
  if (!endpoint?.url) return { sent: false as const, reason: `no webhook endpoint is configured for ${mode} mode` };
  const live = endpoint.secrets.filter((s) => s.expiresAt === null || Date.parse(s.expiresAt) > now.getTime());
  if (live.length === 0) return { sent: false as const, reason: 'the endpoint has no live signing secret: rotate it' };
  const key = await masterKey();
  const secrets = live.map((s) => open(key, s.sealed, webhookSecretAssociatedData(merchant.merchantId, mode)));
  const eventId = `evt_test_${randomUUID().replaceAll('-', '')}`;
  const timestamp = Math.floor(now.getTime() / 1000);
  const body = JSON.stringify({
    id: eventId,
    type: testEventType,
    created: timestamp,
    livemode: mode === 'live',
    api_version: apiVersion,
    data: { message: 'A test event sent from the dashboard.' },
  });
  const headers = signedHeaders({ body, secrets, eventId, eventType: testEventType, deliveryId: newDeliveryId(), timestamp });
  const post = await postWebhook(endpoint.url, body, headers, { allowInsecure: insecureAllowed(merchant), timeoutMs: timeoutMs() });
  return {
    sent: true as const,
    eventId,
    url: endpoint.url,
    statusCode: post.statusCode,
    durationMs: post.durationMs,
    ok: post.error === null,
    error: deliveryErrorCategory(post.error),
  };
}
