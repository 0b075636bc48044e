import * as routes from '#functions/routes/account.ts';
import { httpHandler, ok } from '#shared/http/pipeline.ts';
import * as z from 'zod/mini';
import { currencyCode, supportedCurrency } from '#shared/http/schemas.ts';
import { walletBalance } from '#shared/services/balance.ts';

/** POST /Gateway/v{version}/Account/query-balance — no body, no signature; `?currency=` optional. */
export const handler = httpHandler(
  routes.queryBalance,
  { query: z.object({ currency: z.optional(currencyCode) }) },
  async ({ auth, query }) =>
    ok(await walletBalance(auth.merchantId, auth.mode, supportedCurrency(query.currency ?? auth.merchantCurrency))),
);
