import type { Mode } from '../credentials.ts';
import { holdTypes, type HoldType } from '../ledger.ts';
import type { Currency } from '../money.ts';
import { decided, draft, refuse, type Decision, type JournalDraft } from './decision.ts';

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

/** What a test credit's reference recorded when it first ran (the operator's `--reference`, its marker). */
export interface TestCreditMarker {
  reference: string;
  journalId: string;
  amountMinor: number;
  currency: Currency;
}

/** A test credit to make or, under a reference that ran before with the same amount and currency, a replay of it. */
export interface TestCredit {
  amountMinor: number;
  replay: boolean;
}

/**
 * A test wallet funded from the sandbox (the operator's `wallet credit`): test mode only, a positive integer amount,
 * credited to the available balance from the sandbox's funding account. Live balances only move through payments.
 * `stored`: the marker of an earlier run under the same reference: the same amount and currency is a replay (the first
 * run's journal, nothing credited again); any other is refused.
 */
export function decideTestCredit(
  mode: Mode,
  { amountMinor, currency, reference }: { amountMinor: number; currency: Currency; reference: string },
  stored?: TestCreditMarker,
): Decision<TestCredit> {
  if (mode !== 'test') return refuse('invalid_status', 'wallet credit is refused in live mode: live balances only move through payments');
  if (!Number.isSafeInteger(amountMinor) || amountMinor <= 0) return refuse('invalid_request', '--amount must be positive');
  if (stored && (stored.amountMinor !== amountMinor || stored.currency !== currency)) {
    const first = `${stored.amountMinor} minor units of ${stored.currency}`;
    return refuse('invalid_request', `reference ${stored.reference} already credited ${first}; use a new reference for a different credit`);
  }
  if (stored) return decided({ amountMinor, replay: true }, []);
  const credit = draft('wallet.credit', reference, [
    { account: { kind: 'external', name: 'sandbox_funding' }, amount: -amountMinor },
    { account: { kind: 'available' }, amount: amountMinor },
  ]);
  return decided({ amountMinor, replay: false }, [credit]);
}
