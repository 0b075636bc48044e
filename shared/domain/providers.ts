/**
 * The two mobile-wallet providers of SPEC (paymentMethod / walletProvider 1 and 2). Their codes are
 * also payout bank codes (SPEC: the digital/wallet codes are "the upper-case names of those
 * providers"). Minimum deposit per provider: SPEC "Limits".
 */
export const walletProviders = {
  1: { code: 'JAZZCASH', name: 'JazzCash', minimumDepositMinor: 100_00 },
  2: { code: 'EASYPAISA', name: 'Easypaisa', minimumDepositMinor: 200_00 },
} as const;

export type WalletProviderId = keyof typeof walletProviders;
export const isWalletProviderId = (n: unknown): n is WalletProviderId => n === 1 || n === 2;
