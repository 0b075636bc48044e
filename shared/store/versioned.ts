import { again, retry, retryPolicies } from '#shared/retry.ts';
import { cutoffRefused, transact, TransactionFailed, type TxItem } from './client.ts';

/**
 * The one read → decide → commit → retry loop over a versioned item (an intent, a settlement, a
 * refund). `decide` sees the item as read and returns the item after the change with the writes
 * of ONE transaction (its own version-conditioned update named `subject`, see named() in
 * client.ts, plus journals, events, ...), or null to change nothing. When the item's own write is
 * refused, someone changed it since it was read: read again and decide again. Any other refusal
 * is the caller's to interpret (`failed.on('wallet')`).
 */
export interface VersionedChange<T> {
  next: T;
  writes: TxItem[];
}

export type VersionedResult<T> = { changed: true; value: T; before: T } | { changed: false; value: T | undefined };

export async function changeVersioned<T>(
  subject: string,
  read: () => Promise<T | undefined>,
  decide: (current: T) => VersionedChange<T> | null | Promise<VersionedChange<T> | null>,
  options: { attempts?: number; label?: string; committed?: (before: T, after: T) => void } = {},
): Promise<VersionedResult<T>> {
  const policy = { ...retryPolicies.versionRace, ...(options.attempts ? { attempts: options.attempts } : {}) };
  return retry<VersionedResult<T>>(
    policy,
    async () => {
      const current = await read();
      if (current === undefined) return { changed: false, value: undefined };
      const change = await decide(current);
      if (!change) return { changed: false, value: current };
      try {
        await transact(change.writes);
      } catch (error) {
        // Lost the race (read again), or a journal positioned before a settlement's cut-off that committed meanwhile
        // (shared/store/wallets.ts postJournal: decide again, later).
        if (error instanceof TransactionFailed && (error.on(subject) || error.on(cutoffRefused))) return again;
        throw error;
      }
      options.committed?.(current, change.next);
      return { changed: true, value: change.next, before: current };
    },
    () => new Error(`could not change ${options.label ?? subject}: too much contention`),
  );
}
