import { createHash } from 'node:crypto';
import {
  balanceMovement,
  balanceTransactionId,
  balanceTransactionTypes,
  type BalanceMovement,
  type BalanceTransactionType,
} from '#shared/domain/balance-transaction.ts';
import type { Mode } from '#shared/domain/credentials.ts';
import { BusinessRuleError } from '#shared/domain/errors.ts';
import type { Journal } from '#shared/domain/ledger.ts';
import { checkWindow, foldWindow, type Balances, type Discrepancy } from '#shared/domain/ledger-invariants.ts';
import { fromMinor, type Currency } from '#shared/domain/money.ts';
import { journalPagesBetween, type BalanceCheckpoint } from '#shared/store/balance-checkpoints.ts';
import { getMerchant } from '#shared/store/merchants.ts';
import { listWalletCurrencies } from '#shared/store/wallets.ts';
import { ensureCheckpoint, journalsToWallet, latestFinalBoundary, LedgerRefusal, settleMs, walletTooBusy } from './balance-checkpoints.ts';
import { csvOf } from './csv-export.ts';

/**
 * Monthly statements (docs/merchant-guide.md, Statements): per merchant, mode, currency and UTC
 * calendar month, the opening balance (the balance checkpoint at the month's first instant), every
 * balance transaction of the month grouped by type with a subtotal per type, the totals (fees
 * included) and the closing balance (the checkpoint at the next month's first instant).
 *
 * It is only ever given when it adds up: opening plus the month's journals must equal closing
 * under the ledger verifier's own rules (checkWindow: zero-sum, wallet-fold, negative), the month's
 * journal count and fee lines must equal the difference of the two checkpoints' counters; anything
 * else is refused (409 ledger_unbalanced), never sent.
 *
 * Its digest is SHA-256 over its canonical CSV (`statementColumns`, every row below, `\r\n` line
 * ends): the CSV file is that text plus one trailer line `# sha256=<hex> ...`; the PDF prints the
 * same digest. A closed month's rows never change, so the digest of a statement received later
 * must match the one the gateway gives now. The current month is given to date, marked provisional
 * (`period_to_date` in its first row, its closing row dated with the instant it runs to): from the month's first
 * instant up to the moment it is made, today's movements included, so it grows until the month closes and is final
 * an hour after. Its days are checked like a closed month's up to the latest final day boundary, and from there
 * against the live wallet read at the same moment as the journals.
 */
export const statementColumns = [
  'section',
  'type',
  'id',
  'createdAt',
  'sourceType',
  'sourceId',
  'count',
  'amount',
  'fee',
  'net',
  'availableChange',
  'pendingChange',
  'availableBalance',
  'pendingBalance',
] as const;
type Row = Partial<Record<(typeof statementColumns)[number], string | number>>;

export const statementPeriodPattern = /^(\d{4})-(0[1-9]|1[0-2])$/;

/** Journals one statement may hold (its CSV stays well under the 4 MB of one buffered response). */
export const statementMaxMovements = 15_000;

/** A month with more movements than one statement holds: refused whole (never a partial statement). */
export class StatementTooLarge extends BusinessRuleError {
  constructor(period: string) {
    super(
      `The ${period} statement would hold more than ${statementMaxMovements.toLocaleString('en-US')} movements, more than one ` +
        'statement carries, so nothing was sent (never a partial statement). List the month with GET /BalanceTransactions ' +
        '(a created range) instead.',
      'export_too_large',
    );
  }
}

export interface Totals {
  count: number;
  amount: number;
  fee: number;
  net: number;
  availableChange: number;
  pendingChange: number;
}

export interface Statement {
  merchantId: string;
  merchantName: string;
  mode: Mode;
  currency: Currency;
  period: string;
  from: string;
  /**
   * Exclusive: the month's end; for a provisional statement the instant it runs to (its closing balance's): the
   * moment it was made, or the month's end for a month ended less than an hour before.
   */
  to: string;
  /**
   * final: a closed month, its rows never change. provisional: the current month to date, up to `to` (today's
   * movements so far included), more to come; its digest covers its rows all the same.
   */
  status: 'final' | 'provisional';
  /** Minor units. */
  opening: { available: number; pending: number };
  closing: { available: number; pending: number };
  byType: {
    type: BalanceTransactionType;
    totals: Totals;
    movements: (BalanceMovement & { availableAfter: number; pendingAfter: number })[];
  }[];
  totals: Totals;
  /** The canonical CSV of the rows (what the digest covers) and its SHA-256, hex. */
  csv: string;
  digest: string;
}

const sum = (ms: readonly BalanceMovement[]): Totals => ({
  count: ms.length,
  amount: ms.reduce((a, m) => a + m.amountMinor, 0),
  fee: ms.reduce((a, m) => a + m.feeMinor, 0),
  net: ms.reduce((a, m) => a + m.netMinor, 0),
  availableChange: ms.reduce((a, m) => a + m.availableChangeMinor, 0),
  pendingChange: ms.reduce((a, m) => a + m.pendingChangeMinor, 0),
});

/** The month's first instant and the next month's (UTC day boundaries, as checkpoints are keyed). */
export function periodBounds(period: string): { from: string; to: string } {
  const m = statementPeriodPattern.exec(period);
  if (!m) throw new RangeError(`not a period: ${period}`);
  const year = Number(m[1]);
  const month = Number(m[2]);
  const from = new Date(Date.UTC(year, month - 1, 1)).toISOString();
  const to = new Date(Date.UTC(year, month, 1)).toISOString();
  return { from, to };
}

/** The SHA-256 of a statement's canonical CSV, hex: what its trailer, PDF and Statement-Digest header carry. */
export const statementDigest = (canonicalCsv: string) => createHash('sha256').update(canonicalCsv, 'utf8').digest('hex');

function canonicalRows(s: Omit<Statement, 'csv' | 'digest'>): Row[] {
  const money = (minor: number) => fromMinor(minor, s.currency);
  const totalsRow = (section: string, type: string, t: Totals): Row => ({
    section,
    type,
    count: t.count,
    amount: money(t.amount),
    fee: money(t.fee),
    net: money(t.net),
    availableChange: money(t.availableChange),
    pendingChange: money(t.pendingChange),
  });
  // A provisional statement says so in its first row (and its closing row says when); a closed month's rows are as ever.
  const provisional = s.status === 'provisional';
  return [
    {
      section: 'statement',
      type: s.mode,
      id: s.merchantId,
      createdAt: s.from,
      sourceType: provisional ? 'period_to_date' : 'period',
      sourceId: s.period,
    },
    { section: 'opening', availableBalance: money(s.opening.available), pendingBalance: money(s.opening.pending) },
    ...s.byType.flatMap(({ type, totals, movements }) => [
      ...movements.map(
        (m): Row => ({
          section: 'movement',
          type,
          id: balanceTransactionId(m.createdAt, m.journalId),
          createdAt: m.createdAt,
          sourceType: m.source.type,
          sourceId: m.source.id,
          count: 1,
          amount: money(m.amountMinor),
          fee: money(m.feeMinor),
          net: money(m.netMinor),
          availableChange: money(m.availableChangeMinor),
          pendingChange: money(m.pendingChangeMinor),
          availableBalance: money(m.availableAfter),
          pendingBalance: money(m.pendingAfter),
        }),
      ),
      totalsRow('subtotal', type, totals),
    ]),
    totalsRow('total', 'all', s.totals),
    {
      section: 'closing',
      ...(provisional ? { createdAt: s.to, sourceType: 'provisional' } : {}),
      availableBalance: money(s.closing.available),
      pendingBalance: money(s.closing.pending),
    },
  ];
}

/**
 * A month's statement, checked. Final for a month that ended over an hour ago (its closing balance the checkpoint at
 * the next month's first instant). Otherwise provisional, the month to date: from the month's first instant up to
 * `now` (today's movements included), or to the month's end for a month that ended less than an hour ago. Its final
 * days are checked as a closed month's are (checkpoint to checkpoint); the rest, from the latest final day boundary
 * on, against the live wallet read at the same moment as its journals (journalsToWallet). Refuses (422
 * statement_period_open) a month not begun, (409 ledger_unbalanced) books that do not add up.
 */
export async function buildStatement(
  merchantId: string,
  mode: Mode,
  currency: Currency,
  period: string,
  now = new Date(),
): Promise<Statement> {
  const { from, to: monthEnd } = periodBounds(period);
  const at = now.toISOString();
  if (from >= at)
    throw new BusinessRuleError(`The ${period} statement is given from the month's first instant (UTC) on.`, 'statement_period_open');
  const final = latestFinalBoundary(now);
  const status: Statement['status'] = monthEnd > final ? 'provisional' : 'final';
  let to = status === 'final' || monthEnd < at ? monthEnd : at;
  // The month's final part, [from, closedTo): checkpoint to checkpoint.
  const closedTo = status === 'final' ? monthEnd : final;
  const discrepancies: Discrepancy[] = [];
  const journals: Journal[] = [];
  let opening: Balances;
  let closing: Balances;
  if (from < closedTo) {
    const end = await ensureCheckpoint(merchantId, mode, currency, closedTo, { now });
    const start = await ensureCheckpoint(merchantId, mode, currency, from, { now });
    for await (const page of journalPagesBetween(merchantId, mode, currency, from, closedTo)) {
      journals.push(...page);
      if (journals.length > statementMaxMovements) throw new StatementTooLarge(period);
    }
    discrepancies.push(...checkedWindow(merchantId, mode, currency, period, start, end, journals));
    opening = start.balances;
    closing = end.balances;
  } else {
    // The month's first hour: its opening balance is not final either (the previous day's checkpoint and its journals).
    opening = closing = (await ensureCheckpoint(merchantId, mode, currency, final, { now })).balances;
  }
  // Since the latest final boundary: the journals and the live wallet read as one moment; a wallet that never pauses
  // long enough (a journal committed between every two reads) gives the month through that boundary instead.
  const live =
    status === 'provisional'
      ? await journalsToWallet(merchantId, mode, currency, final, 2 * statementMaxMovements, () => new StatementTooLarge(period))
      : undefined;
  if (status === 'provisional' && !live) {
    if (from >= final) throw walletTooBusy();
    to = final;
  }
  if (live) {
    const window = checkWindow({
      merchantId,
      mode,
      opening: new Map([[currency, closing]]),
      journals: live.journals,
      closing: [{ currency, ...live.wallet }],
      labels: { closing: `the wallet at ${at}`, fold: `the balance at ${final} and the journals since add up to` },
    });
    discrepancies.push(...window.discrepancies);
    if (!discrepancies.length) {
      const fold = (base: Balances, js: Journal[]) =>
        foldWindow({ merchantId, mode, opening: new Map([[currency, base]]), journals: js }).folds.get(currency) ?? base;
      const before = live.journals.filter((j) => position(j) < from);
      const within = live.journals.filter((j) => position(j) >= from && position(j) < to);
      if (before.length) opening = closing = fold(closing, before);
      journals.push(...within);
      if (journals.length > statementMaxMovements) throw new StatementTooLarge(period);
      closing = fold(closing, within);
    }
  }
  if (discrepancies.length) throw new LedgerRefusal(discrepancies, 'statement');
  journals.sort((a, b) => (position(a) < position(b) ? -1 : 1));

  let available = opening.available ?? 0;
  let pending = opening.held ?? 0;
  const movements = journals.map((j) => {
    const m = balanceMovement(j);
    available += m.availableChangeMinor;
    pending += m.pendingChangeMinor;
    return { ...m, availableAfter: available, pendingAfter: pending };
  });
  const byType = balanceTransactionTypes
    .map((type) => {
      const ofType = movements.filter((m) => m.type === type);
      return { type, totals: sum(ofType), movements: ofType };
    })
    .filter((g) => g.movements.length > 0);
  const body = {
    merchantId,
    merchantName: (await getMerchant(merchantId))?.name ?? merchantId,
    mode,
    currency,
    period,
    from,
    to,
    status,
    opening: { available: opening.available ?? 0, pending: opening.held ?? 0 },
    closing: { available: closing.available ?? 0, pending: closing.held ?? 0 },
    byType,
    totals: sum(movements),
  };
  const csv = csvOf(statementColumns, canonicalRows(body));
  return { ...body, csv, digest: statementDigest(csv) };
}

const position = (j: Journal) => `${j.createdAt}#${j.journalId}`;

/** Opening + the journals = closing between two checkpoints, by the verifier's rules; and the checkpoints' counters agree. */
function checkedWindow(
  merchantId: string,
  mode: Mode,
  currency: Currency,
  period: string,
  start: BalanceCheckpoint,
  end: BalanceCheckpoint,
  journals: readonly Journal[],
): Discrepancy[] {
  const window = checkWindow({
    merchantId,
    mode,
    opening: new Map([[currency, start.balances]]),
    journals: [...journals],
    closing: [{ currency, ...end.balances }],
    labels: {
      closing: `closing balance ${end.boundary}`,
      fold: `the opening balance ${start.boundary} and the month's journals add up to`,
    },
  });
  const discrepancies: Discrepancy[] = [...window.discrepancies];
  const counted = end.journals - start.journals;
  const fees = end.feesMinor - start.feesMinor;
  if (counted !== journals.length)
    discrepancies.push({
      rule: 'journals',
      merchantId,
      mode,
      subject: currency,
      message: `the checkpoints count ${counted} journals in ${period}, the journal holds ${journals.length}`,
    });
  if (fees !== (window.feeLines.get(currency) ?? 0))
    discrepancies.push({
      rule: 'fees',
      merchantId,
      mode,
      subject: currency,
      message: `the checkpoints count ${fees} of fees in ${period}, the journals' fee lines ${window.feeLines.get(currency) ?? 0}`,
    });
  return discrepancies;
}

/** The statement's CSV file: the canonical rows, then the trailer line with the digest (not covered by it). */
export const statementCsvFile = (s: Statement, generatedAt = new Date()) =>
  `${s.csv}# sha256=${s.digest} merchant=${s.merchantId} mode=${s.mode} currency=${s.currency} period=${s.period} ` +
  `${s.status === 'provisional' ? `status=provisional through=${s.to} ` : ''}generatedAt=${generatedAt.toISOString()}\r\n`;

export const statementFileName = (s: Pick<Statement, 'mode' | 'currency' | 'period' | 'status' | 'to'>, extension: 'csv' | 'pdf') =>
  `statement-${s.mode}-${s.currency}-${s.period}${s.status === 'provisional' ? `-to-${s.to.slice(0, 10)}` : ''}.${extension}`;

const monthNames = 'January February March April May June July August September October November December'.split(' ');

/** `2026-11` as `November 2026`. */
export const periodName = (period: string) => `${monthNames[Number(period.slice(5, 7)) - 1]} ${period.slice(0, 4)}`;

/** `1–28 November 2026 (UTC)`: the days from `from` to the one `to` (exclusive) falls in. */
function daysOf(s: Pick<Statement, 'period' | 'from' | 'to'>): string {
  const last = new Date(Math.max(Date.parse(s.from), Date.parse(s.to) - 1));
  return `${last.getUTCDate() === 1 ? '1' : `1–${last.getUTCDate()}`} ${periodName(s.period)} (UTC)`;
}

/**
 * The days a statement covers, in words (the dashboard page, the PDF): `1–31 October 2026 (UTC)` for a closed month;
 * the month to date `1–28 November 2026 (UTC), to 14:32 UTC on 28 November: provisional` (today's movements so far
 * included), or for a month ended less than an hour ago `1–30 November 2026 (UTC): provisional until 01:00 UTC on 1
 * December`. `to` is exclusive, as in the Statement.
 */
export function statementCoverage(s: Pick<Statement, 'period' | 'from' | 'to' | 'status'>): string {
  const range = daysOf(s);
  if (s.status === 'final') return range;
  const { to: monthEnd } = periodBounds(s.period);
  const day = (iso: string) => `${Number(iso.slice(8, 10))} ${monthNames[Number(iso.slice(5, 7)) - 1]}`;
  if (s.to === monthEnd)
    return `${range}: provisional until ${new Date(Date.parse(monthEnd) + settleMs).toISOString().slice(11, 16)} UTC on ${day(monthEnd)}`;
  return `${range}, to ${s.to.slice(11, 16)} UTC on ${day(s.to)}: provisional`;
}

/**
 * The statements the dashboard offers, newest first: the month to date (provisional, today's movements included) and
 * the closed months before it, at most `months` of them and none from before the merchant was created; each for the
 * merchant's default currency and every currency it has a wallet in (a month with no movement gives a statement of
 * zeros that says so).
 */
export async function statementMonths(merchantId: string, mode: Mode, now = new Date(), months = 12) {
  const [merchant, wallets] = await Promise.all([getMerchant(merchantId), listWalletCurrencies(merchantId, mode)]);
  const currencies = [...new Set([...(merchant ? [merchant.defaultCurrency] : []), ...wallets])].sort();
  const since = merchant?.createdAt ?? '';
  const final = latestFinalBoundary(now);
  const out: { period: string; currencies: Currency[]; provisional: boolean; coverage: string }[] = [];
  for (let back = 0; back <= months; back++) {
    const period = new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth() - back, 1)).toISOString().slice(0, 7);
    const { from, to } = periodBounds(period);
    if (to <= since) break;
    const provisional = to > final;
    // The month to date runs to the moment it is downloaded: today so far included.
    const coverage = !provisional
      ? statementCoverage({ period, from, to, status: 'final' })
      : to > now.toISOString()
        ? `${daysOf({ period, from, to: now.toISOString() })}, today included up to the moment you download it: provisional`
        : statementCoverage({ period, from, to, status: 'provisional' });
    out.push({ period, currencies, provisional, coverage });
  }
  return out;
}
