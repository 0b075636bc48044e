import * as z from 'zod/mini';
import { routes } from '#functions/routes.ts';
import { signatureShape, verifyBodySignature } from '#shared/domain/body-signature.ts';
import { masterKey, open } from '#shared/crypto/seal.ts';
import { committedResponse, httpHandler } from '#shared/http/pipeline.ts';
import { problems } from '#shared/http/problem.ts';
import '#shared/http/schemas.ts';
import { transact } from '#shared/store/client.ts';
import { secretAssociatedData } from '#shared/store/merchants.ts';
import { prepareResend } from '#shared/webhooks/events.ts';

/**
 * POST /Gateway/v{version}/Events/{eventId}/resend — queue a new round of delivery of an event
 * (same event id, the full retry schedule). No body is needed and none is signed; a body that does
 * carry `signature` is checked as CONTRACT §2 says for every POST. 202 with the resend id; an
 * Idempotency-Key makes a retried request queue one resend only.
 */
export const handler = httpHandler(
  routes.resendEvent,
  {
    path: z.object({ eventId: z.string().check(z.minLength(1), z.maxLength(255)) }),
    body: z.optional(z.looseObject({ signature: z.optional(z.string()) })),
  },
  async (request) => {
    const { auth, path, body } = request;
    if (body?.signature !== undefined) {
      if (!signatureShape.test(body.signature)) {
        throw problems.badRequest('The signature field must be 32 lowercase hexadecimal characters.', { signature: ['must be 32 lowercase hexadecimal characters (MD5, see the signature recipe)'] });
      }
      const secret = open(await masterKey(), auth.secretSealed, secretAssociatedData(auth.keyId));
      if (!verifyBodySignature(body, body.signature, secret)) throw problems.unauthorized('signature mismatch');
    }
    const resend = await prepareResend(auth.merchantId, auth.mode, path.eventId);
    if (!resend) throw problems.notFound(`No event ${path.eventId}.`);
    const { idempotency, response } = committedResponse(request, 202, resend.body);
    await transact([resend.write], idempotency ? { idempotency } : {});
    return response;
  },
);
