import { balanceTransactionIdPattern, balanceTransactionTypes, type BalanceTransactionType } from '#shared/domain/balance-transaction.ts';
import type { Mode } from '#shared/domain/credentials.ts';
import { userRefusal } from '#shared/domain/errors.ts';
import { listBalanceTransactions } from './balance-transactions.ts';

/**
 * The dashboard's Balance page (docs/dashboard.md, Balance): the balance transactions of the API
 * (GET /BalanceTransactions, the same service and filters), 25 per page, with the running balance,
 * and the movements a settlement covers on its page.
 */
export interface BalanceFilters {
  type?: string;
  source?: string;
  settlement?: string;
  payout?: string;
  /** YYYY-MM-DD, inclusive. */
  from?: string;
  to?: string;
  /** The last id of the previous page. */
  after?: string;
}

export const balanceFilterNames = ['type', 'source', 'settlement', 'payout', 'from', 'to', 'after'] as const;

/** The Balance page's filters from its query string (its export's too); an unknown name refuses the link. */
export function balanceFiltersOf(query: Record<string, string>): BalanceFilters {
  const names: readonly string[] = balanceFilterNames;
  if (Object.keys(query).some((k) => !names.includes(k))) throw userRefusal('invalid', 'That page link is not valid.');
  return Object.fromEntries(Object.entries(query).filter(([, v]) => v));
}

const uuid = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
const day = /^\d{4}-\d{2}-\d{2}$/;

/** One page of the Balance page; a filter that cannot be valid is refused with what to change. */
export async function balancePage(merchantId: string, mode: Mode, f: BalanceFilters, limit = 25) {
  if (f.type && !(balanceTransactionTypes as readonly string[]).includes(f.type))
    throw userRefusal('invalid', 'Choose a type from the list.', 'type');
  for (const k of ['settlement', 'payout'] as const)
    if (f[k] && !uuid.test(f[k])) throw userRefusal('invalid', `The ${k} id is a uuid (copy it from its page).`, k);
  for (const k of ['from', 'to'] as const)
    if (f[k] && (!day.test(f[k]) || Number.isNaN(Date.parse(f[k])))) throw userRefusal('invalid', 'Dates are YYYY-MM-DD.', k);
  if (f.from && f.to && f.from > f.to) throw userRefusal('invalid', '“From” must not be after “To”.', 'from');
  if (f.after && !balanceTransactionIdPattern.test(f.after))
    throw userRefusal('invalid', 'That page link is not valid any more. Start from the first page.');
  const page = await listBalanceTransactions(merchantId, mode, {
    ...(f.type ? { type: f.type as BalanceTransactionType } : {}),
    ...(f.source ? { sourceId: f.source.trim() } : {}),
    ...(f.settlement ? { settlement: f.settlement.toLowerCase() } : {}),
    ...(f.payout ? { payout: f.payout.toLowerCase() } : {}),
    ...(f.from ? { from: `${f.from}T00:00:00.000Z` } : {}),
    ...(f.to ? { to: `${f.to}T23:59:59.999Z` } : {}),
    ...(f.after ? { startingAfter: f.after } : {}),
    limit,
  });
  if (page === 'unknown_settlement') throw userRefusal('not_found', 'There is no such settlement in this mode.');
  if (page === 'unknown_payout') throw userRefusal('not_found', 'There is no such payout in this mode.');
  if (page === 'invalid_cursor') throw userRefusal('invalid', 'That page link is not valid any more. Start from the first page.');
  return page;
}

export type BalancePage = Awaited<ReturnType<typeof balancePage>>;
