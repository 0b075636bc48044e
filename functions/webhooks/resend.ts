import * as z from 'zod/mini';
import { routes } from '#functions/routes.ts';
import { signatureShape, verifyBodySignature } from '#shared/domain/body-signature.ts';
import { masterKey, open } from '#shared/crypto/seal.ts';
import { committedResponse, httpHandler } from '#shared/http/pipeline.ts';
import { problems } from '#shared/http/problem.ts';
import '#shared/http/schemas.ts';
import { transact, TransactionFailed } from '#shared/store/client.ts';
import { quotaWindow, quotaWrite, type Quota } from '#shared/store/quotas.ts';
import { secretAssociatedData } from '#shared/store/merchants.ts';
import { prepareResend } from '#shared/webhooks/events.ts';

/**
 * POST /Gateway/v{version}/Events/{eventId}/resend — queue a new round of delivery of an event
 * (same event id, the full retry schedule). No body is needed and none is signed; a body that does
 * carry `signature` is checked as CONTRACT §2 says for every POST. 202 with the resend id; an
 * Idempotency-Key makes a retried request queue one resend only.
 */
/** Resend limits (docs/security-and-limits.md), per merchant and mode, hourly fixed windows. */
export const resendLimits = { perEventPerHour: 10, perHour: 300 };
const resendQuotas = (eventId: string): Quota[] => [
  { subject: `resend:event:${eventId}`, limit: resendLimits.perEventPerHour, windowSeconds: 3600 },
  { subject: 'resend:all', limit: resendLimits.perHour, windowSeconds: 3600 },
];

export const handler = httpHandler(
  routes.resendEvent,
  {
    path: z.object({ eventId: z.string().check(z.minLength(1), z.maxLength(255)) }),
    // Strict like every body: `reason` is a free-text note for the merchant's own logs (signed with the rest, not stored).
    body: z.optional(z.strictObject({ reason: z.optional(z.string().check(z.maxLength(500, 'at most 500 characters'))), signature: z.optional(z.string()) })),
  },
  async (request) => {
    const { auth, path, body } = request;
    if (body?.signature !== undefined) {
      if (!signatureShape.test(body.signature)) {
        throw problems.badRequest('The signature field must be 32 lowercase hexadecimal characters.', { signature: ['must be 32 lowercase hexadecimal characters (MD5, see the signature recipe)'] }, 'invalid_signature');
      }
      const secret = open(await masterKey(), auth.secretSealed, secretAssociatedData(auth.keyId));
      if (!verifyBodySignature(body, body.signature, secret)) throw problems.signatureMismatch();
    }
    const now = new Date();
    const resend = await prepareResend(auth.merchantId, auth.mode, path.eventId, now);
    if (!resend) throw problems.notFound(`No event ${path.eventId}.`);
    const { idempotency, response } = committedResponse(request, 202, resend.body);
    const quotas = resendQuotas(path.eventId);
    try {
      await transact([resend.write, ...quotas.map((q) => quotaWrite(auth.mode, auth.merchantId, q, now))], idempotency ? { idempotency } : {});
    } catch (error) {
      const hit = error instanceof TransactionFailed ? quotas.find((_, i) => error.failedAt(i + 1)) : undefined;
      if (!hit) throw error;
      throw problems.tooManyRequests(
        `At most ${hit.limit} resends ${hit.subject.startsWith('resend:event:') ? 'of one event' : 'per merchant and mode'} per hour; retry after the Retry-After seconds.`,
        quotaWindow(hit, now).resetsInSeconds,
      );
    }
    return response;
  },
);
