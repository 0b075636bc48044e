import type { Mode } from '#shared/domain/credentials.ts';
import { checkLedger, type Discrepancy } from '#shared/domain/ledger-invariants.ts';
import { logger } from '#shared/logger.ts';
import { emitMetric, metricNames } from '#shared/metrics.ts';
import { listMerchantIds, listWallets, readMerchantLedger } from '#shared/store/ledger-audit.ts';

/**
 * The ledger verifier (docs/ledger-verification.md): the one implementation behind
 * `npm run ops -- ledger verify` and the scheduled jobs (functions/jobs/ledger-verify*.ts).
 *
 * Full: every merchant (GSI1 listing) in both modes. Incremental (`changedSince`): only the
 * merchants and modes with a wallet written since then (one Query of each merchant's wallets,
 * filtered on updatedAt), then the same full check of those. Everything is read with Queries;
 * the cost of a full run grows with the whole ledger, which is why it runs daily.
 */
export interface VerifyOptions {
  merchantId?: string;
  mode?: Mode;
  /** ISO time: verify only merchants/modes whose wallets changed since then. */
  changedSince?: string;
}

export interface VerifyReport {
  scope: 'full' | 'incremental';
  checkedAt: string;
  merchants: number;
  ledgers: number;
  wallets: number;
  journals: number;
  objects: number;
  discrepancies: Discrepancy[];
}

const modes: readonly Mode[] = ['test', 'live'];

export async function verifyLedger(options: VerifyOptions = {}): Promise<VerifyReport> {
  const merchantIds = options.merchantId ? [options.merchantId] : await listMerchantIds();
  const report: VerifyReport = {
    scope: options.changedSince ? 'incremental' : 'full',
    checkedAt: new Date().toISOString(),
    merchants: 0,
    ledgers: 0,
    wallets: 0,
    journals: 0,
    objects: 0,
    discrepancies: [],
  };
  const counted = new Set<string>();
  for (const merchantId of merchantIds) {
    for (const mode of options.mode ? [options.mode] : modes) {
      if (options.changedSince && (await listWallets(merchantId, mode, options.changedSince)).length === 0) continue;
      const ledger = await readMerchantLedger(merchantId, mode);
      counted.add(merchantId);
      report.ledgers += 1;
      report.wallets += ledger.wallets.length;
      report.journals += ledger.journals.length;
      report.objects += ledger.intents.length + ledger.settlements.length + ledger.refunds.length;
      report.discrepancies.push(...checkLedger(ledger));
    }
  }
  report.merchants = counted.size;
  return report;
}

/** One line per discrepancy, as the ops tool prints them. */
export const discrepancyLine = (d: Discrepancy) => `${d.merchantId} ${d.mode} ${d.rule} ${d.subject}: ${d.message}`;

/**
 * A scheduled run (functions/jobs/ledger-verify*.ts): verify, emit LedgerDiscrepancies and
 * LedgersVerified (dimension Scope), log each discrepancy as an error line.
 */
export async function verifyAndReport(options: VerifyOptions = {}): Promise<VerifyReport> {
  const report = await verifyLedger(options);
  const scope = { Scope: report.scope };
  emitMetric(metricNames.ledgerDiscrepancies, report.discrepancies.length, scope);
  emitMetric(metricNames.ledgersVerified, report.ledgers, scope);
  for (const d of report.discrepancies) logger.error('ledger discrepancy', { ...d, line: discrepancyLine(d) });
  const { discrepancies, ...summary } = report;
  logger.info('ledger verified', { ...summary, discrepancies: discrepancies.length });
  return report;
}
