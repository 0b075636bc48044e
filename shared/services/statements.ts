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
import { checkWindow, type Discrepancy } from '#shared/domain/ledger-invariants.ts';
import { fromMinor, type Currency } from '#shared/domain/money.ts';
import { journalPagesBetween } from '#shared/store/balance-checkpoints.ts';
import { getMerchant } from '#shared/store/merchants.ts';
import { listWalletCurrencies } from '#shared/store/wallets.ts';
import { ensureCheckpoint, latestFinalBoundary, LedgerRefusal } from './balance-checkpoints.ts';
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
 * (`period_to_date` in its first row, its closing row dated): it grows day by day until the month closes.
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
  /** The month's end; for a provisional statement, the day boundary it runs through (its closing balance's instant). */
  to: string;
  /**
   * final: a closed month, its rows never change. provisional: the current month to date, through `to` (the latest
   * final day boundary), more days to come; its digest covers its rows all the same.
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
 * A month's statement, checked: final for a month that ended over an hour ago; for the current month (or a month
 * that ended less than an hour ago) provisional, from the month's start through the latest final day boundary (the
 * same checkpoints and checks). Refuses (422 statement_period_open) a month with no final day yet (its first hour, a
 * future month), (409 ledger_unbalanced) books that do not add up.
 */
export async function buildStatement(
  merchantId: string,
  mode: Mode,
  currency: Currency,
  period: string,
  now = new Date(),
): Promise<Statement> {
  const { from, to: monthEnd } = periodBounds(period);
  const final = latestFinalBoundary(now);
  if (from >= final)
    throw new BusinessRuleError(
      `The ${period} statement is available once its first day has ended (an hour after midnight UTC); ` +
        'until then, list GET /BalanceTransactions.',
      'statement_period_open',
    );
  const status: Statement['status'] = monthEnd > final ? 'provisional' : 'final';
  const to = status === 'final' ? monthEnd : final;
  const closing = await ensureCheckpoint(merchantId, mode, currency, to, { now });
  const opening = await ensureCheckpoint(merchantId, mode, currency, from, { now });
  const journals: Journal[] = [];
  for await (const page of journalPagesBetween(merchantId, mode, currency, from, to)) {
    journals.push(...page);
    if (journals.length > statementMaxMovements) throw new StatementTooLarge(period);
  }
  const position = (j: Journal) => `${j.createdAt}#${j.journalId}`;
  journals.sort((a, b) => (position(a) < position(b) ? -1 : 1));

  // Opening + the month = closing, by the verifier's rules; and the checkpoints' counters agree.
  const window = checkWindow({
    merchantId,
    mode,
    opening: new Map([[currency, opening.balances]]),
    journals,
    closing: [{ currency, ...closing.balances }],
    labels: { closing: `closing balance ${to}`, fold: `the opening balance ${from} and the month's journals add up to` },
  });
  const discrepancies: Discrepancy[] = [...window.discrepancies];
  const counted = closing.journals - opening.journals;
  const fees = closing.feesMinor - opening.feesMinor;
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
  if (discrepancies.length) throw new LedgerRefusal(discrepancies, 'statement');

  let available = opening.balances.available ?? 0;
  let pending = opening.balances.held ?? 0;
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
    opening: { available: opening.balances.available ?? 0, pending: opening.balances.held ?? 0 },
    closing: { available: closing.balances.available ?? 0, pending: closing.balances.held ?? 0 },
    byType,
    totals: sum(movements),
  };
  const csv = csvOf(statementColumns, canonicalRows(body));
  return { ...body, csv, digest: statementDigest(csv) };
}

/** The statement's CSV file: the canonical rows, then the trailer line with the digest (not covered by it). */
export const statementCsvFile = (s: Statement, generatedAt = new Date()) =>
  `${s.csv}# sha256=${s.digest} merchant=${s.merchantId} mode=${s.mode} currency=${s.currency} period=${s.period} ` +
  `${s.status === 'provisional' ? `status=provisional through=${s.to} ` : ''}generatedAt=${generatedAt.toISOString()}\r\n`;

export const statementFileName = (s: Pick<Statement, 'mode' | 'currency' | 'period' | 'status' | 'to'>, extension: 'csv' | 'pdf') =>
  `statement-${s.mode}-${s.currency}-${s.period}${s.status === 'provisional' ? `-to-${s.to.slice(0, 10)}` : ''}.${extension}`;

/**
 * The statements the dashboard offers: for each currency the merchant has a wallet in, the month to date (provisional,
 * once its first day is final) and the last `months` closed months, newest first (a month before the first movement
 * gives a statement of zeros).
 */
export async function statementMonths(merchantId: string, mode: Mode, now = new Date(), months = 12) {
  const currencies = await listWalletCurrencies(merchantId, mode);
  const final = latestFinalBoundary(now);
  const out: { period: string; currencies: Currency[]; provisionalThrough: string | null }[] = [];
  for (let back = 0; back <= months + 1 && out.filter((m) => !m.provisionalThrough).length < months; back++) {
    const start = new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth() - back, 1));
    const period = start.toISOString().slice(0, 7);
    const { from, to } = periodBounds(period);
    if (from < final) out.push({ period, currencies, provisionalThrough: to > final ? final : null });
  }
  return out;
}
