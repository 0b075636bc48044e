/**
 * Test mode cards (docs/merchant-guide.md, Hosted checkout: Sandbox): test keys never reach a real card network; the outcome is chosen
 * by the card number. (The sandbox wallet numbers live with the sandbox wallet provider,
 * shared/providers/wallet-sandbox.ts.)
 */
export type CardOutcome = { result: 'approved' } | { result: 'declined'; reason: 'card_declined' | 'insufficient_funds' };

export const sandboxCards = {
  approved: '4242424242424242',
  declined: '4000000000000002',
  insufficientFunds: '4000000000009995',
} as const;

/** Any other valid card number succeeds in test mode. */
export function sandboxCardOutcome(digits: string): CardOutcome {
  if (digits === sandboxCards.declined) return { result: 'declined', reason: 'card_declined' };
  if (digits === sandboxCards.insufficientFunds) return { result: 'declined', reason: 'insufficient_funds' };
  return { result: 'approved' };
}
