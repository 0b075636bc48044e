import { holdTypes, type HoldType } from '../ledger.ts';
import { decided, refuse, type Decision, type JournalDraft } from './decision.ts';

/**
 * Holds and releases: what journals do to a merchant's wallet. The one money rule of the wallet is that no balance
 * (available, or a held bucket) ever goes below zero: a hold the available balance does not cover is refused as
 * `insufficient_balance`, a release or pay-out of more than is held is refused too. The store enforces the same rule
 * as the wallet update's condition (shared/store/wallets.ts postJournal), so a decision made on a stale read is
 * refused at commit, never overdraws.
 */
export interface WalletBalances {
  available: number;
  held: Record<HoldType, number>;
}

export const emptyWallet = (): WalletBalances => ({ available: 0, held: { Withdrawal: 0, Settlement: 0, Refund: 0 } });

export function applyJournals(wallet: WalletBalances, journals: readonly JournalDraft[]): Decision<WalletBalances> {
  const next: WalletBalances = { available: wallet.available, held: { ...wallet.held } };
  for (const j of journals) {
    next.available += j.delta.available;
    for (const t of holdTypes) next.held[t] += j.delta.held[t] ?? 0;
  }
  if (next.available < 0) return refuse('insufficient_balance', 'The available balance does not cover the amount and its fee.');
  const short = holdTypes.find((t) => next.held[t] < 0);
  if (short) return refuse('invalid_status', `More would leave the ${short} hold than it holds.`);
  return decided(next);
}
