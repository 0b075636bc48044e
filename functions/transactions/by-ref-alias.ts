import * as routes from '#functions/routes/transactions.ts';
import { lookupHandler } from './lookup.ts';

/** GET /Gateway/v{version}/Transaction/{reference} (alias of by-ref) */
export const handler = lookupHandler(routes.transactionByRefAlias);
