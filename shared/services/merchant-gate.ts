import { merchantMaySubmit } from '#shared/domain/merchant.ts';
import { getMerchant } from '#shared/store/merchants.ts';

/**
 * Whether money of this merchant may be submitted to a provider now (payout, settlement, refund).
 * Work waiting in the sweeps is left as it is while the merchant is suspended and proceeds after
 * reactivation (docs/security-and-limits.md).
 */
export async function merchantMaySubmitNow(merchantId: string): Promise<boolean> {
  return merchantMaySubmit(await getMerchant(merchantId, true));
}
