import * as z from 'zod/mini';
import * as routes from '#functions/routes/providers.ts';
import { httpHandler, ok } from '#shared/http/pipeline.ts';
import '#shared/http/schemas.ts';
import { applyProviderCallback } from '#shared/services/deposits.ts';
import '#shared/providers/live/boot-wallets.ts';

/**
 * POST /providers/wallet/{provider}/callback — a wallet provider's signed notification about a
 * charge (not a merchant endpoint). Verified against the raw body and the stored charge; only the
 * provider's status inquiry, asked at once, decides.
 */
export const handler = httpHandler(
  routes.walletProviderCallback,
  { path: z.object({ provider: z.string().check(z.maxLength(40)) }) },
  async ({ path, headers, rawBody }) => {
    return ok(await applyProviderCallback(path.provider, headers, rawBody));
  },
);
