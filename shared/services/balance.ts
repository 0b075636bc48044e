import type { Mode } from '#shared/domain/credentials.ts';
import { holdTypes } from '#shared/domain/ledger.ts';
import { fromMinor, type Currency } from '#shared/domain/money.ts';
import { getWallet } from '#shared/store/wallets.ts';

/**
 * The wallet balance object (docs/merchant-guide.md, Endpoints). availableBalance can be paid out or settled; pendingBalance is
 * held by pending withdrawals, settlements and refunds; currentBalance is their sum.
 */
export async function walletBalance(merchantId: string, mode: Mode, currency: Currency, now = new Date()) {
  const wallet = await getWallet(merchantId, mode, currency);
  return {
    userId: merchantId,
    walletId: wallet.walletId,
    currentBalance: fromMinor(wallet.available + wallet.held, currency),
    pendingBalance: fromMinor(wallet.held, currency),
    availableBalance: fromMinor(wallet.available, currency),
    currency,
    pendingTransactionCount: wallet.pendingCount,
    pendingByTransactionType: Object.fromEntries(holdTypes.map((t) => [t, fromMinor(wallet.heldByType[t] ?? 0, currency)])),
    retrievedAt: now.toISOString(),
  };
}
