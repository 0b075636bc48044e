import * as routes from '#functions/routes/transactions.ts';
import { lookupHandler } from './lookup.ts';

/** GET /Gateway/v{version}/Transaction/by-ref/{reference} */
export const handler = lookupHandler(routes.transactionByRef);
