import { randomUUID } from 'node:crypto';
import type { Mode } from './credentials.ts';
import { assertMinor, type Currency } from './money.ts';

/**
 * Double-entry ledger. Every balance change is a journal whose lines sum to zero across accounts.
 * Only the merchant's wallet accounts are materialised as balances (available and held); the
 * platform and external accounts are read from the journals. Money is minor units.
 *
 * Accounts:
 *   merchant:<id>:available  funds the merchant may pay out or settle
 *   merchant:<id>:held       funds reserved by a pending withdrawal, settlement or refund
 *   platform:fees            the gateway's fee revenue
 *   external:<name>          the outside world: card network, wallet provider, bank rail, sandbox funding
 * The journal itself carries the mode and currency, so account names need not.
 */
export type HoldType = 'Withdrawal' | 'Settlement' | 'Refund';
export const holdTypes: readonly HoldType[] = ['Withdrawal', 'Settlement', 'Refund'];

export type Account = { kind: 'available' } | { kind: 'held'; holdType: HoldType } | { kind: 'fees' } | { kind: 'external'; name: string };

export interface JournalLine {
  account: string;
  amount: number;
}

export interface Journal {
  journalId: string;
  merchantId: string;
  mode: Mode;
  currency: Currency;
  /** What happened, e.g. `wallet.credit`, `checkout.completed`, `withdrawal.hold`. */
  kind: string;
  /** The business object this journal belongs to (payment intent, settlement, operator action). */
  reference: string;
  lines: JournalLine[];
  createdAt: string;
  /**
   * The wallet shard a hold was taken from, and so the shard its release or completion moves
   * (shared/store/wallets.ts). Absent = shard 0 (every one-shard merchant, every hold from before
   * debits were spread). Credits ignore it: they go to a shard chosen by their journal id.
   */
  walletShard?: number;
}

/** What a journal does to the merchant's materialised wallet. */
export interface WalletDelta {
  available: number;
  held: Partial<Record<HoldType, number>>;
}

export function accountName(merchantId: string, account: Account): string {
  switch (account.kind) {
    case 'available':
      return `merchant:${merchantId}:available`;
    case 'held':
      return `merchant:${merchantId}:held:${account.holdType}`;
    case 'fees':
      return 'platform:fees';
    case 'external':
      return `external:${account.name}`;
  }
}

export class UnbalancedJournal extends Error {}

/** A signed movement of one account (positive = the account's balance grows). */
export interface Movement {
  account: Account;
  amount: number;
}

/**
 * What signed movements do to the merchant's wallet, checked: rejects movements that do not sum to
 * zero, hold a non-integer amount, or are fewer than two non-zero lines. Pure (the core's journals
 * are checked with it before anything is written).
 */
export function walletDelta(kind: string, all: readonly Movement[]): { movements: Movement[]; delta: WalletDelta } {
  const movements = all.filter((m) => m.amount !== 0);
  if (movements.length < 2) throw new UnbalancedJournal('a journal needs at least two non-zero lines');
  let sum = 0;
  const delta: WalletDelta = { available: 0, held: {} };
  for (const { account, amount } of movements) {
    assertMinor(amount);
    sum += amount;
    if (account.kind === 'available') delta.available += amount;
    if (account.kind === 'held') delta.held[account.holdType] = (delta.held[account.holdType] ?? 0) + amount;
  }
  if (sum !== 0) throw new UnbalancedJournal(`journal ${kind} sums to ${sum}, not zero`);
  return { movements, delta };
}

/** The movements of the three kinds of journal a reservation makes, written once (holds, releases, pay-outs). */
export const movements = {
  /** available −amount → held:<holdType> +amount. */
  hold: (holdType: HoldType, amount: number): Movement[] => [
    { account: { kind: 'available' }, amount: -amount },
    { account: { kind: 'held', holdType }, amount },
  ],
  /** held:<holdType> −amount → available +amount. */
  release: (holdType: HoldType, amount: number): Movement[] => [
    { account: { kind: 'held', holdType }, amount: -amount },
    { account: { kind: 'available' }, amount },
  ],
  /** The hold leaves: `paid` to the external account, `fee` to the platform (paid + fee = held). */
  payOut: (holdType: HoldType, external: string, paid: number, fee: number): Movement[] => [
    { account: { kind: 'held', holdType }, amount: -(paid + fee) },
    { account: { kind: 'external', name: external }, amount: paid },
    { account: { kind: 'fees' }, amount: fee },
  ],
};

/**
 * Build a journal from signed movements (positive = the account's balance grows). Rejects a
 * journal that does not sum to zero, has a non-integer amount, or is empty.
 */
export function journal(input: {
  merchantId: string;
  mode: Mode;
  currency: Currency;
  kind: string;
  reference: string;
  movements: Movement[];
  now?: Date;
  walletShard?: number | undefined;
}): { journal: Journal; delta: WalletDelta } {
  const { movements, delta } = walletDelta(input.kind, input.movements);
  return {
    journal: {
      journalId: randomUUID(),
      merchantId: input.merchantId,
      mode: input.mode,
      currency: input.currency,
      kind: input.kind,
      reference: input.reference,
      lines: movements.map(({ account, amount }) => ({ account: accountName(input.merchantId, account), amount })),
      createdAt: (input.now ?? new Date()).toISOString(),
      ...(input.walletShard ? { walletShard: input.walletShard } : {}),
    },
    delta,
  };
}

/** Who a journal belongs to: the merchant, mode, currency and the business object it records. */
export interface JournalScope {
  merchantId: string;
  mode: Mode;
  currency: Currency;
  reference: string;
  now?: Date;
  /** The business object's recorded hold shard (its `walletShard`), absent = 0. */
  walletShard?: number | undefined;
}

/** The `walletShard` of a business object whose hold is on shard n: nothing for shard 0 (items unchanged). */
export const holdShardField = (n: number | undefined): { walletShard?: number } => (n ? { walletShard: n } : {});

/**
 * available −amount → held:<holdType> +amount: funds reserved for a withdrawal, settlement or
 * refund. Posted with postJournal, whose wallet condition refuses an overdraft.
 */
export function holdFunds(scope: JournalScope, holdType: HoldType, amount: number, kind: string) {
  return journal({ ...scope, kind, movements: movements.hold(holdType, amount) });
}

/** held:<holdType> −amount → available +amount: a reservation given back (failed, cancelled, rejected). */
export function releaseHold(scope: JournalScope, holdType: HoldType, amount: number, kind: string) {
  return journal({ ...scope, kind, movements: movements.release(holdType, amount) });
}
