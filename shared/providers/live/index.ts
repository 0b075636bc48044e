import { readSecretString } from '#shared/crypto/seal.ts';
import { isBankFileBank } from '#shared/domain/bank-file.ts';
import { logger } from '#shared/logger.ts';
import { configureLiveCards } from '../cards.ts';
import { bankFilePayoutRail, bankFileSettlementRail, type BankFileRailConfig } from '../bank-file-rail.ts';
import { configureRail } from '../rails.ts';
import type { RefundRail } from '../refund-provider.ts';
import { configureLiveWallet, configureLiveWalletPresence } from '../wallet.ts';
import { parseLiveProvidersConfig, type LiveProvidersConfig } from './config.ts';
import { easypaisaWallet } from './easypaisa.ts';
import { jazzCashCards } from './jazzcash-card.ts';
import { jazzCashDisbursementRail, jazzCashRefundRail, jazzCashWallet } from './jazzcash.ts';

/**
 * The live providers of a deployment: which adapters live mode uses, from the credentials in
 * AWS Secrets Manager (LIVE_PROVIDERS_SECRET_ARN, a JSON LiveProvidersConfig) or, locally, the
 * emulators (LIVE_PROVIDERS=emulated, scripts/emulators). A provider absent from the
 * configuration keeps refusing live requests with the 422 of each product.
 *
 *   wallet charges (deposits, hosted wallet)  JazzCash and/or Easypaisa
 *   card payments (hosted page, 3-D Secure)    JazzCash
 *   refunds                                    JazzCash wallet and card payments, once per payment;
 *                                              Easypaisa payments: 422 (no public refund API)
 *   payouts                                    to JazzCash wallets (bankCode JAZZCASH) through the
 *                                              JazzCash disbursement API; every other bank code through
 *                                              the bank transfer file when `bankFile` is configured
 *                                              (docs/providers/bank-file.md), else 422
 *   settlements                                to bank accounts through the bank transfer file when
 *                                              `bankFile` is configured; USDT and without it: 422
 */
export type { LiveProvidersConfig };

/** Installs (or, with no configuration, removes) the live wallet adapters: deposits, hosted wallet payments. */
export function installLiveWallets(config: LiveProvidersConfig | undefined): void {
  configureLiveWallet(1, config?.jazzcash && jazzCashWallet(config.jazzcash));
  configureLiveWallet(2, config?.easypaisa && easypaisaWallet(config.easypaisa));
}

/**
 * Whether live checkout is offered (a wallet provider is configured), without the adapters: the
 * checkout-creation Lambda asks only that. installLiveWallets records it too.
 */
export function installLiveWalletPresence(config: LiveProvidersConfig | undefined): void {
  configureLiveWalletPresence(1, config?.jazzcash !== undefined);
  configureLiveWalletPresence(2, config?.easypaisa !== undefined);
}

/** The live card provider: hosted card payments and their 3-D Secure return. */
export function installLiveCards(config: LiveProvidersConfig | undefined): void {
  configureLiveCards(config?.jazzcash && jazzCashCards(config.jazzcash));
}

/** The live refund rail. */
export function installLiveRefunds(config: LiveProvidersConfig | undefined): void {
  const refunds = config?.jazzcash && jazzCashRefundRail(config.jazzcash);
  // Easypaisa publishes no refund API this gateway can use: its payments are refused by their capability.
  const live: RefundRail | undefined = refunds && {
    ...refunds,
    refundsAllowed: (walletProviderId) =>
      walletProviderId === 2 ? { refundsAllowed: 'none', provider: 'Easypaisa' } : refunds.refundsAllowed(walletProviderId),
    refuses: (target) => (target.walletProviderId === 2 ? undefined : refunds.refuses?.(target)),
  };
  configureRail('refund', 'live', live);
}

/**
 * The bank transfer file's configuration when valid: its bank code names the files and the `--bank` of `ops bank-file`
 * (2-12 capital letters or digits). An invalid one is logged and leaves bank payouts and settlements refused (422).
 */
function bankFileOf(config: LiveProvidersConfig | undefined): BankFileRailConfig | undefined {
  const bank = config?.bankFile?.bank;
  if (bank === undefined) return undefined;
  if (isBankFileBank(bank)) return { bank };
  logger.error('live providers: bankFile.bank must be 2-12 capital letters or digits; the bank transfer file is off', { bank });
  return undefined;
}

const toJazzCashWallet = (bankCode: string | undefined) => bankCode === undefined || bankCode.toUpperCase() === 'JAZZCASH';

/**
 * The live payout rail: JazzCash wallets through the JazzCash disbursement API; bank accounts (every
 * other bank code) through the bank transfer file; both configured, each payout is routed by its bank
 * code (Rail.route). A payout neither serves is refused (422).
 */
export function installLivePayouts(config: LiveProvidersConfig | undefined): void {
  const disbursement = config?.jazzcash?.disbursement ? jazzCashDisbursementRail(config.jazzcash) : undefined;
  const bankFile = bankFileOf(config);
  const file = bankFile && bankFilePayoutRail(bankFile);
  const jazzCash = disbursement && {
    ...disbursement,
    refuses: (target: { bankCode?: string }) =>
      toJazzCashWallet(target.bankCode)
        ? undefined
        : `Live payouts go to JazzCash wallets only (bankCode JAZZCASH): ${
            target.bankCode!.toUpperCase() === 'EASYPAISA'
              ? 'Easypaisa publishes no disbursement API we can use'
              : 'no bank publishes a payout API this gateway can use'
          }.`,
  };
  configureRail(
    'payout',
    'live',
    jazzCash && file ? { ...file, route: (target) => (toJazzCashWallet(target.bankCode) ? jazzCash : file) } : (jazzCash ?? file),
  );
}

/** The live settlement rail: bank accounts through the bank transfer file, when configured. */
export function installLiveSettlements(config: LiveProvidersConfig | undefined): void {
  const bankFile = bankFileOf(config);
  configureRail('settlement', 'live', bankFile && bankFileSettlementRail(bankFile));
}

/** Every live adapter (the local server with the emulators, tests). */
export function configureLiveProviders(config: LiveProvidersConfig | undefined): void {
  installLiveWallets(config);
  installLiveCards(config);
  installLiveRefunds(config);
  installLivePayouts(config);
  installLiveSettlements(config);
}

export type LiveInstaller = (config: LiveProvidersConfig | undefined) => void;

let secret: Promise<LiveProvidersConfig | undefined> | undefined;

/**
 * In AWS: reads LIVE_PROVIDERS_SECRET_ARN once per process and runs the given installers with it
 * (shared/providers/live/boot-*.ts: each Lambda installs, and so bundles, only the adapters its code
 * can call; issue 26). Without the variable nothing is installed (live mode refuses, as before).
 */
export async function configureLiveProvidersFromSecret(...installers: LiveInstaller[]): Promise<void> {
  secret ??= (async () => {
    const arn = process.env.LIVE_PROVIDERS_SECRET_ARN;
    if (!arn) return undefined;
    // Checked per provider (shared/providers/live/config.ts): an incomplete one is left out and named, by field only.
    const { config, problems } = parseLiveProvidersConfig(JSON.parse(await readSecretString(arn)));
    for (const problem of problems) logger.error('live provider configuration incomplete', { problem });
    return config;
  })();
  const config = await secret;
  if (config) for (const install of installers) install(config);
}
