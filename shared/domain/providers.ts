/**
 * The two mobile-wallet providers (docs/merchant-guide.md, Deposits; paymentMethod / walletProvider 1 and 2). Their codes are
 * also payout bank codes (the digital/wallet codes are "the upper-case names of those
 * providers"). Minimum deposit per provider: docs/security-and-limits.md.
 */
export const walletProviders = {
  1: { code: 'JAZZCASH', name: 'JazzCash', minimumDepositMinor: 100_00 },
  2: { code: 'EASYPAISA', name: 'Easypaisa', minimumDepositMinor: 200_00 },
} as const;

export type WalletProviderId = keyof typeof walletProviders;
