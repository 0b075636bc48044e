import * as z from 'zod/mini';
import type { RouteDefinition } from '#functions/routes.ts';
import { httpHandler, ok } from '#shared/http/pipeline.ts';
import { NotFoundError } from '#shared/domain/errors.ts';
import '#shared/http/schemas.ts';
import { lookupTransaction } from '#shared/services/transactions.ts';

/** GET …/Transaction/by-ref/{reference} and its alias: one lookup, two routes. */
export const lookupHandler = (route: RouteDefinition) =>
  httpHandler(route, { path: z.object({ reference: z.string().check(z.minLength(1), z.maxLength(255)) }) }, async ({ auth, path }) => {
    const transaction = await lookupTransaction(auth.merchantId, auth.mode, path.reference);
    if (!transaction) throw new NotFoundError(`No transaction with reference ${path.reference}.`);
    return ok(transaction);
  });
