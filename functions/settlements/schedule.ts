import * as routes from '#functions/routes/settlements.ts';
import { httpHandler, ok } from '#shared/http/pipeline.ts';
import { settlementSchedule } from '#shared/services/settlement-schedule.ts';

/** GET /Gateway/v{version}/Settlements/schedule — the merchant's automatic settlement schedule. */
export const handler = httpHandler(routes.settlementSchedule, {}, async ({ auth }) =>
  ok(await settlementSchedule(auth.merchantId, auth.mode)),
);
