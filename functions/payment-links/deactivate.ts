import * as z from 'zod/mini';
import * as routes from '#functions/routes/payment-links.ts';
import { commit, httpHandler } from '#shared/http/pipeline.ts';
import * as f from '#shared/http/schemas.ts';
import { changePaymentLinkActive } from '#shared/services/payment-links.ts';
import { linkIdPath as path } from './common.ts';

/**
 * POST /Gateway/v{version}/PaymentLinks/{id}/deactivate — Deactivates the link (signed: the body is
 * `{ "signature": … }`); answers with the link object as it is now. Repeating it changes nothing.
 */
const body = z.strictObject({ signature: f.signature });

export const handler = httpHandler(routes.deactivatePaymentLink, { body, path }, async (request) =>
  commit(request, 200, () => changePaymentLinkActive(request.auth.merchantId, request.auth.mode, request.path.id, false)),
);
