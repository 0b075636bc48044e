import * as z from 'zod/mini';
import * as routes from '#functions/routes/settlements.ts';
import { httpHandler, ok } from '#shared/http/pipeline.ts';
import '#shared/http/schemas.ts';
import { settlementFor } from '#shared/services/settlement-requests.ts';

/** GET /Gateway/v{version}/Settlements/{id} — one settlement of this merchant and mode (404 otherwise, 400 for a non-uuid). */
const path = z.object({
  id: z.string().check(z.regex(/^[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}$/, 'must be a uuid')),
});

export const handler = httpHandler(routes.getSettlement, { path }, async ({ auth, path: p }) =>
  ok(await settlementFor(auth.merchantId, auth.mode, p.id.toLowerCase())),
);
