import { getMerchant } from '#shared/store/merchants.ts';
import { sendTestEvent } from '#shared/webhooks/test-event.ts';
import { userRefusal } from '#shared/domain/errors.ts';
import type { Signed } from './dashboard-auth.ts';
import { audit } from './dashboard-developers.ts';

// Its own module: the test delivery brings the webhook HTTP client (connect-time address checks, ipaddr.js), which
// only the Webhooks page's Lambda needs (the Home page reads the endpoint's health from dashboard-developers.ts).

/** One signed `WebhookTest` delivery now; the answer is shown, nothing is stored but the audit entry. */
export async function sendEndpointTestEvent(signed: Signed, now = new Date()) {
  const merchant = await getMerchant(signed.user.merchantId);
  if (!merchant) throw userRefusal('not_found', 'Unknown merchant.');
  const result = await sendTestEvent(merchant, signed.session.mode, now);
  if (!result.sent) throw userRefusal('invalid', `No test event sent: ${result.reason}.`);
  await audit(
    signed,
    'webhook.test',
    {
      target: result.url,
      detail: result.ok ? `HTTP ${result.statusCode}` : `failed: ${result.error}${result.statusCode ? ` (HTTP ${result.statusCode})` : ''}`,
    },
    now,
  );
  return result;
}
