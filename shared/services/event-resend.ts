import type { Mode } from '#shared/domain/credentials.ts';
import { NotFoundError, RateLimited } from '#shared/domain/errors.ts';
import { transact, TransactionFailed, type TxItem } from '#shared/store/client.ts';
import { quotaWindow, quotaWrite, type Quota } from '#shared/store/quotas.ts';
import { prepareResend } from '#shared/webhooks/events.ts';

/** Resend limits (docs/security-and-limits.md), per merchant and mode, hourly fixed windows. */
export const resendLimits = { perEventPerHour: 10, perHour: 300 };
const resendQuotas = (eventId: string): Quota[] => [
  { subject: `resend:event:${eventId}`, limit: resendLimits.perEventPerHour, windowSeconds: 3600 },
  { subject: 'resend:all', limit: resendLimits.perHour, windowSeconds: 3600 },
];

/**
 * Queue a new round of delivery of one of the merchant's events (same event id, the full retry
 * schedule) in one transaction with both resend quotas and the caller's Idempotency-Key record.
 * `respond` turns the answer into the response and the idempotency write that records it.
 */
export async function resendEvent<R>(
  input: { merchantId: string; mode: Mode; eventId: string; now: Date },
  respond: (body: unknown) => { idempotency?: TxItem; response: R },
): Promise<R> {
  const { merchantId, mode, eventId, now } = input;
  const resend = await prepareResend(merchantId, mode, eventId, now);
  if (!resend) throw new NotFoundError(`No event ${eventId}.`);
  const { idempotency, response } = respond(resend.body);
  const quotas = resendQuotas(eventId);
  try {
    await transact([resend.write, ...quotas.map((q) => quotaWrite(mode, merchantId, q, now))], idempotency ? { idempotency } : {});
  } catch (error) {
    const hit = error instanceof TransactionFailed ? quotas.find((_, i) => error.failedAt(i + 1)) : undefined;
    if (!hit) throw error;
    throw new RateLimited(
      `At most ${hit.limit} resends ${hit.subject.startsWith('resend:event:') ? 'of one event' : 'per merchant and mode'} per hour; ` +
        'retry after the Retry-After seconds.',
      quotaWindow(hit, now).resetsInSeconds,
    );
  }
  return response;
}
