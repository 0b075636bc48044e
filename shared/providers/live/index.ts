import { readSecretString } from '#shared/crypto/seal.ts';
import { configureLiveCards } from '../cards.ts';
import { configureRail } from '../rails.ts';
import { configureLiveWallet } from '../wallet.ts';
import { easypaisaWallet, type EasypaisaConfig } from './easypaisa.ts';
import { jazzCashCards } from './jazzcash-card.ts';
import { jazzCashDisbursementRail, jazzCashRefundRail, jazzCashWallet, refundOnce, type JazzCashConfig } from './jazzcash.ts';

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
 *   payouts                                    to JazzCash wallets only (bankCode JAZZCASH);
 *                                              bank accounts and Easypaisa wallets: 422
 *   settlements                                none (no public bank API): 422
 */
export interface LiveProvidersConfig {
  jazzcash?: JazzCashConfig;
  easypaisa?: EasypaisaConfig;
}

export function configureLiveProviders(config: LiveProvidersConfig | undefined): void {
  configureLiveWallet(1, config?.jazzcash && jazzCashWallet(config.jazzcash));
  configureLiveWallet(2, config?.easypaisa && easypaisaWallet(config.easypaisa));
  configureLiveCards(config?.jazzcash && jazzCashCards(config.jazzcash));
  const refunds = config?.jazzcash && jazzCashRefundRail(config.jazzcash);
  configureRail(
    'refund',
    'live',
    refunds && {
      ...refunds,
      refuses: (target) =>
        target.walletProviderId === 2
          ? 'Live refunds of Easypaisa payments are not available: Easypaisa publishes no refund API this gateway can use. ' +
            'Refund the customer from the Easypaisa merchant portal.'
          : refundOnce(target.earlierRefundsMinor),
    },
  );
  const disbursement = config?.jazzcash?.disbursement ? jazzCashDisbursementRail(config.jazzcash) : undefined;
  configureRail(
    'payout',
    'live',
    disbursement && {
      ...disbursement,
      refuses: (target) =>
        target.bankCode === undefined || target.bankCode.toUpperCase() === 'JAZZCASH'
          ? undefined
          : `Live payouts go to JazzCash wallets only (bankCode JAZZCASH): ${
              target.bankCode.toUpperCase() === 'EASYPAISA'
                ? 'Easypaisa publishes no disbursement API we can use'
                : 'no bank publishes a payout API this gateway can use'
            }.`,
    },
  );
}

let loaded: Promise<void> | undefined;

/**
 * In AWS: reads LIVE_PROVIDERS_SECRET_ARN once per process and installs the adapters. Without the
 * variable nothing is installed (live mode refuses, as before).
 */
export function configureLiveProvidersFromSecret(): Promise<void> {
  loaded ??= (async () => {
    const arn = process.env.LIVE_PROVIDERS_SECRET_ARN;
    if (!arn) return;
    configureLiveProviders(JSON.parse(await readSecretString(arn)) as LiveProvidersConfig);
  })();
  return loaded;
}
