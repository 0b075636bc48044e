import type { Mode } from '#shared/domain/credentials.ts';
import { nextAutoSettlementRunAt } from '#shared/domain/core/settlement.ts';
import { fromMinor } from '#shared/domain/money.ts';
import { getMerchant } from '#shared/store/merchants.ts';

/** The merchant's automatic settlement schedule as a merchant reads it (the operator sets it). */
export async function settlementSchedule(merchantId: string, mode: Mode, now = new Date()) {
  const merchant = await getMerchant(merchantId);
  if (!merchant) throw new Error(`merchant ${merchantId} of an active key is missing`);
  const { frequency, dayOfPeriod, hourUtc, minimumBalanceMinor, destination } = merchant.settlementSchedule;
  return {
    merchantId,
    isLive: mode === 'live',
    enabled: frequency !== 'manual',
    frequency,
    dayOfPeriod,
    hourUtc,
    currency: merchant.defaultCurrency,
    minimumBalance: fromMinor(minimumBalanceMinor, merchant.defaultCurrency),
    destination: destination && {
      type: 'bank_transfer',
      bankName: destination.bankName,
      accountTitle: destination.accountTitle,
      ibanLast4: destination.iban.slice(-4),
    },
    nextRunAt: nextAutoSettlementRunAt(merchant.settlementSchedule, now),
  };
}
