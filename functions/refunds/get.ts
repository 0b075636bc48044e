import * as z from 'zod/mini';
import * as routes from '#functions/routes/refunds.ts';
import { httpHandler, ok } from '#shared/http/pipeline.ts';
import '#shared/http/schemas.ts';
import { refundFor } from '#shared/services/refund-requests.ts';

/** GET /Gateway/v{version}/Refunds/{id} — one refund of this merchant and mode (404 otherwise, 400 for a non-uuid). */
const path = z.object({
  id: z.string().check(z.regex(/^[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}$/, 'must be a uuid')),
});

export const handler = httpHandler(routes.getRefund, { path }, async ({ auth, path: p }) =>
  ok(await refundFor(auth.merchantId, auth.mode, p.id.toLowerCase())),
);
