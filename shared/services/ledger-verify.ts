import type { Mode } from '#shared/domain/credentials.ts';
import { checkLedger, type Discrepancy } from '#shared/domain/ledger-invariants.ts';
import { logger } from '#shared/logger.ts';
import { emitMetric, metricNames } from '#shared/metrics.ts';
import { listMerchantIds, listWallets, readMerchantLedger } from '#shared/store/ledger-audit.ts';
import { ensureCheckpoint, latestFinalBoundary, LedgerRefusal } from './balance-checkpoints.ts';

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

/**
 * The daily job's second half (functions/jobs/ledger-verify-full.ts): every wallet's balance
 * checkpoint at the latest final day boundary (shared/services/balance-checkpoints.ts), folded from
 * the previous one and checked like any other. A refusal is logged (ledger refusal) and counted in
 * LedgerDiscrepancies; the other wallets go on. Returns how many wallets have their checkpoint.
 */
export async function checkpointWallets(now = new Date()): Promise<{ checkpoints: number; refused: number }> {
  const boundary = latestFinalBoundary(now);
  let checkpoints = 0;
  let refused = 0;
  for (const merchantId of await listMerchantIds()) {
    for (const mode of modes) {
      for (const wallet of await listWallets(merchantId, mode)) {
        try {
          await ensureCheckpoint(merchantId, mode, wallet.currency, boundary, { now, cap: Infinity });
          checkpoints += 1;
        } catch (error) {
          // A LedgerRefusal is logged and counted (LedgerDiscrepancies) where it is raised; a busy wallet waits for tomorrow.
          if (error instanceof LedgerRefusal) refused += 1;
          else logger.warn('balance checkpoint skipped', { merchantId, mode, currency: wallet.currency, error: String(error) });
        }
      }
    }
  }
  logger.info('balance checkpoints', { boundary, checkpoints, refused });
  return { checkpoints, refused };
}
