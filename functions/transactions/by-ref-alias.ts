import { routes } from '#functions/routes.ts';
import { lookupHandler } from './lookup.ts';

/** GET /Gateway/v{version}/Transaction/{reference} (alias of by-ref) */
export const handler = lookupHandler(routes.transactionByRefAlias);
