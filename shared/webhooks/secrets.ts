import { newWebhookSecret, type Mode } from '#shared/domain/credentials.ts';
import type { WebhookEndpoint } from '#shared/domain/merchant.ts';
import { masterKey, seal } from '#shared/crypto/seal.ts';
import { OperatorError } from '#shared/domain/errors.ts';
import { changeMerchant, webhookSecretAssociatedData } from '#shared/store/merchants.ts';

/**
 * Webhook signing secret rotation (docs/merchant-guide.md, Keys and modes): a new `whsec_` secret, shown once, signs every
 * delivery from now on; the previous secrets keep signing too until `overlapSeconds` have passed
 * (each delivery then carries one `v1=` per live secret), so the merchant can switch receivers
 * without a window in which deliveries fail. Overlap 0 retires the old secrets at once.
 */
export async function rotateWebhookSecret(merchantId: string, mode: Mode, overlapSeconds = 24 * 3600, now = new Date()) {
  if (!Number.isInteger(overlapSeconds) || overlapSeconds < 0) throw new OperatorError('--overlap must be a whole number of seconds >= 0');
  // Versioned read-modify-write: a concurrent rotation re-runs this on the item the winner wrote, so
  // the winner's secret becomes one of `previous` and every printed secret signs deliveries.
  const { endpoint, secret, previous } = await changeMerchant(
    merchantId,
    async (merchant) => {
      const endpoint = merchant.webhooks[mode];
      if (!endpoint) throw new OperatorError(`merchant ${merchantId} has no ${mode} webhook endpoint: set one with \`merchant webhook\``);
      const until = new Date(now.getTime() + overlapSeconds * 1000).toISOString();
      const live = endpoint.secrets.filter((s) => s.expiresAt === null || Date.parse(s.expiresAt) > now.getTime());
      const previous =
        overlapSeconds === 0
          ? []
          : live.map((s) => ({ sealed: s.sealed, expiresAt: s.expiresAt !== null && s.expiresAt < until ? s.expiresAt : until }));
      const secret = newWebhookSecret();
      const rotated: WebhookEndpoint = {
        url: endpoint.url,
        secrets: [{ sealed: seal(await masterKey(), secret, webhookSecretAssociatedData(merchantId, mode)), expiresAt: null }, ...previous],
      };
      return { patch: { webhooks: { ...merchant.webhooks, [mode]: rotated } }, result: { endpoint, secret, previous } };
    },
    now,
  );
  return { merchantId, mode, url: endpoint.url, webhookSecret: secret, previousSecrets: previous.map((s) => ({ expiresAt: s.expiresAt })) };
}
