import type { JournalDraft } from '#shared/domain/core/decision.ts';
import type { Mode } from '#shared/domain/credentials.ts';
import { journal } from '#shared/domain/ledger.ts';
import type { Currency } from '#shared/domain/money.ts';
import type { TxItem } from '#shared/store/client.ts';
import { postJournal } from '#shared/store/wallets.ts';

/**
 * The commit path of the money core (docs/architecture.md, The money core): what turns a decision of
 * shared/domain/core into the writes of its ONE TransactWriteItems. The business item's version-conditioned update
 * and its status event come from the store's builders of that item (refundChange, transitionWrites, …); this module
 * gives the decision's journals their id and time and posts them on the wallet (its no-overdraft conditions), and
 * says which fields the decision changed. The request's Idempotency-Key record is added by commitRequest.
 */

/** Whose wallet a decision's journals move. */
export interface JournalOwner {
  merchantId: string;
  mode: Mode;
  currency: Currency;
}

/** A decided journal as the ledger stores it: its id and time given now. */
export const journalEntry = (draft: JournalDraft, owner: JournalOwner, now: Date) =>
  journal({ ...owner, kind: draft.kind, reference: draft.reference, movements: draft.movements, walletShard: draft.walletShard, now });

/** The wallet writes of a decision's journals (each conditioned on the balance it takes from). */
export const journalWrites = (drafts: readonly JournalDraft[], owner: JournalOwner, now: Date): TxItem[] =>
  drafts.flatMap((d) => postJournal(journalEntry(d, owner, now)));

/** The fields a decision changed on an item (its version and update time are the store's to set). */
export function changedFields<T extends object>(current: T, next: T): Partial<T> {
  const changed: Partial<T> = {};
  for (const key of Object.keys(next) as (keyof T)[]) {
    if (key === 'version' || key === 'updatedAt') continue;
    if (current[key] !== next[key]) changed[key] = next[key];
  }
  return changed;
}
