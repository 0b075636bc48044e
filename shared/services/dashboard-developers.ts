import type { Mode } from '#shared/domain/credentials.ts';
import { deliveryStates, webhookEventTypes, type DeliveryState, type WebhookEventType } from '#shared/domain/events.ts';
import { NotFoundError, OperatorError, userRefusal } from '#shared/domain/errors.ts';
import { disableWebhook, enableWebhook, setWebhook } from '#shared/services/merchants.ts';
import { resendEvent } from '#shared/services/event-resend.ts';
import { transact } from '#shared/store/client.ts';
import { auditWrite } from '#shared/store/dashboard.ts';
import { getMerchant } from '#shared/store/merchants.ts';
import { destinationKey, getEndpointHealth } from '#shared/store/webhook-health.ts';
import { eventAttempts, eventsFeed } from '#shared/webhooks/events.ts';
import { rotateWebhookSecret } from '#shared/webhooks/secrets.ts';
import { auditEntry, type Signed } from './dashboard-auth.ts';
import { commitRequest } from '#shared/store/request.ts';

/**
 * The Developers page's webhook and API-key actions (docs/dashboard.md), through the services the
 * operator tool and the API use (setWebhook, rotateWebhookSecret, enableWebhook/disableWebhook,
 * eventsFeed, eventAttempts, resendEvent; API keys are minted in dashboard-keys.ts). Each action is scoped to the signed-in
 * user's merchant and the session's mode and writes its audit entry.
 */
export const audit = (signed: Signed, action: string, fields: { target?: string | null; detail?: string | null; mode?: Mode }, now: Date) =>
  transact([
    auditWrite(
      auditEntry(
        signed.user.merchantId,
        signed.actor,
        action,
        { mode: fields.mode ?? signed.session.mode, target: fields.target ?? null, detail: fields.detail ?? null },
        now,
      ),
    ),
  ]);

/** The operator tool's messages say `--flag`; the dashboard shows them as plain sentences. */
export const refusal = (error: unknown): never => {
  if (error instanceof OperatorError)
    throw userRefusal(
      'invalid',
      error.message.replace(/--(\w+)/g, '$1').replace(/^./, (c) => c.toUpperCase()),
    );
  throw error;
};

export interface DeliveryLogFilters {
  type?: WebhookEventType;
  deliveryState?: DeliveryState;
  startingAfter?: string;
}

/** ?type=&state=&after= → delivery log filters (400 for anything malformed). */
export function deliveryLogFilters(query: Record<string, string>): DeliveryLogFilters {
  const unknown = Object.keys(query).filter((k) => !['type', 'state', 'after'].includes(k));
  if (unknown.length) throw userRefusal('invalid', `Unknown filter: ${unknown.join(', ')}.`);
  const { type = '', state = '', after = '' } = query;
  if (type && !(webhookEventTypes as readonly string[]).includes(type)) throw userRefusal('invalid', 'Unknown event type.');
  if (state && !(deliveryStates as readonly string[]).includes(state)) throw userRefusal('invalid', 'Unknown delivery state.');
  if (after && !/^evt_[A-Za-z0-9_-]{1,80}$/.test(after)) throw userRefusal('invalid', 'That page link is not valid.');
  return {
    ...(type ? { type: type as WebhookEventType } : {}),
    ...(state ? { deliveryState: state as DeliveryState } : {}),
    ...(after ? { startingAfter: after } : {}),
  };
}

/** The mode's endpoint (URL, event types, secrets' expiry, health) and one page of its delivery log. */
export async function webhooksPage(merchantId: string, mode: Mode, filters: DeliveryLogFilters, now = new Date()) {
  const merchant = await getMerchant(merchantId);
  const endpoint = merchant?.webhooks[mode];
  const destination = endpoint?.url ? { merchantId, mode, url: endpoint.url } : undefined;
  const health = destination ? (await getEndpointHealth([destination])).get(destinationKey(destination)) : undefined;
  const log = await eventsFeed(merchantId, mode, { ...filters, limit: 25 }, now);
  if (log === 'invalid_cursor') throw userRefusal('invalid', 'That page link is not valid any more. Start from the first page.');
  return {
    endpoint: endpoint?.url
      ? {
          url: endpoint.url,
          events: endpoint.events ?? null,
          secrets: endpoint.secrets
            .filter((s) => s.expiresAt === null || Date.parse(s.expiresAt) > now.getTime())
            .map((s) => ({ expiresAt: s.expiresAt })),
          disabledAt: health?.disabledAt ?? null,
          disabledReason: health?.disabledReason ?? null,
          failingSince: health?.failingSince ?? null,
        }
      : null,
    log,
  };
}

/**
 * Home: the mode's endpoint health and where the latest events' deliveries stand, each kind of
 * trouble on its own: retrying (the gateway still tries), dead-lettered (retries used up: resend
 * them) and held (the endpoint is disabled: they go out when it is enabled again).
 */
export async function webhookHealth(merchantId: string, mode: Mode, now = new Date()) {
  const page = await webhooksPage(merchantId, mode, {}, now);
  const latest = page.log.items;
  const count = (state: DeliveryState) => latest.filter((e) => e.deliveryState === state).length;
  return {
    endpoint: page.endpoint,
    latest: latest.length,
    delivered: count('delivered'),
    troubles: (
      [
        ['retrying', 'retrying'],
        ['dead_lettered', 'dead-lettered'],
        ['endpoint_disabled', 'held (endpoint disabled)'],
      ] as const
    ).map(([state, label]) => ({ state, label, count: count(state) })),
  };
}

/** Set the endpoint's URL and event types; a new endpoint's signing secret is returned once. */
export async function saveWebhookEndpoint(signed: Signed, input: { url: string; events: string[] }, now = new Date()) {
  const url = input.url.trim();
  if (!url || url.length > 2048) throw userRefusal('invalid', 'Enter the https:// address of your webhook receiver.', 'url');
  const events = [...new Set(input.events)];
  if (events.length === 0) throw userRefusal('invalid', 'Choose at least one event type.', 'events');
  if (events.some((e) => !(webhookEventTypes as readonly string[]).includes(e)))
    throw userRefusal('invalid', 'Unknown event type.', 'events');
  const all = events.length === webhookEventTypes.length;
  const saved = await setWebhook(
    signed.user.merchantId,
    signed.session.mode,
    url,
    undefined,
    all ? null : (events as WebhookEventType[]),
  ).catch(refusal);
  await audit(signed, 'webhook.save', { target: url, detail: all ? 'every event type' : events.join(', ') }, now);
  return saved;
}

/** A new signing secret, shown once; the old ones keep signing for `overlapHours` (0-168). */
export async function rotateEndpointSecret(signed: Signed, overlapHours: number, now = new Date()) {
  if (!Number.isInteger(overlapHours) || overlapHours < 0 || overlapHours > 168)
    throw userRefusal('invalid', 'The old secret may keep signing for 0 to 168 hours.');
  const rotated = await rotateWebhookSecret(signed.user.merchantId, signed.session.mode, overlapHours * 3600, now).catch(refusal);
  await audit(signed, 'webhook.rotate-secret', { target: rotated.url, detail: `old secrets sign for ${overlapHours} h` }, now);
  return rotated;
}

export async function setEndpointEnabled(signed: Signed, enabled: boolean, now = new Date()) {
  const { merchantId } = signed.user;
  const mode = signed.session.mode;
  const result = await (enabled ? enableWebhook(merchantId, mode, undefined, now) : disableWebhook(merchantId, mode, now)).catch(refusal);
  await audit(signed, enabled ? 'webhook.enable' : 'webhook.disable', { target: result.url }, now);
  return result;
}

/** An event's delivery attempts (every round), or 404 for another merchant's or mode's event. */
export async function eventDeliveries(merchantId: string, mode: Mode, eventId: string) {
  const attempts = /^evt_[A-Za-z0-9_-]{1,80}$/.test(eventId) ? await eventAttempts(merchantId, mode, eventId) : undefined;
  if (!attempts) throw userRefusal('not_found', 'There is no such event in this mode.');
  return attempts;
}

/** Resend: a new delivery round of the event through the resend service (its hourly quotas apply). */
export async function resendFromDashboard(signed: Signed, eventId: string, now = new Date()) {
  const { merchantId } = signed.user;
  const mode = signed.session.mode;
  if (!/^evt_[A-Za-z0-9_-]{1,80}$/.test(eventId)) throw userRefusal('not_found', 'There is no such event in this mode.');
  const queued = await commitRequest(() => resendEvent({ merchantId, mode, eventId, now })).catch((error: unknown) => {
    throw error instanceof NotFoundError ? userRefusal('not_found', 'There is no such event in this mode.') : error;
  });
  await audit(signed, 'event.resend', { target: eventId, detail: queued.resendId }, now);
  return queued;
}
