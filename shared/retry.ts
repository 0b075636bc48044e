/**
 * The one retry helper (docs/architecture.md, The retry helper): every loop that tries again after a lost race, a
 * refused shard, a throttled or partial batch or a transaction conflict runs through `retry`, with its limits and
 * its backoff written here once. A leaf: any layer may use it.
 */

/** How often and how patiently to try: at most `attempts` tries in all; waits of full jitter, doubling up to a cap. */
export interface RetryPolicy {
  attempts: number;
  /** The first wait's ceiling (ms); 0: try again at once. */
  baseMs: number;
  /** The largest wait's ceiling (ms). */
  capMs: number;
}

/** Every retry policy of the gateway, by what is retried. */
export const retryPolicies = {
  /** A TransactionConflict (a concurrent transaction; no condition failed): the same transaction again. */
  transactionConflict: { attempts: 10, baseMs: 20, capMs: 200 },
  /** A snapshot read (TransactGetItems) that met a write in flight: read again. */
  snapshotRead: { attempts: 10, baseMs: 20, capMs: 200 },
  /** A batch read or write left unprocessed keys or items (throttling): ask for those again. */
  batch: { attempts: 9, baseMs: 50, capMs: 1_000 },
  /** A version-conditioned change whose item changed since it was read: read again, decide again, at once. */
  versionRace: { attempts: 8, baseMs: 0, capMs: 0 },
  /** The same, where the racing writers are people or jobs on one item (a merchant, a dashboard user): a short pause. */
  itemRace: { attempts: 5, baseMs: 25, capMs: 200 },
  /** A wallet hold a shard refused while the wallet covers it: another shard, or the same after a pause. */
  hold: { attempts: 24, baseMs: 10, capMs: 250 },
  /** A read of many items that must describe one moment (a fold and the wallet): read again when it moved. */
  consistentRead: { attempts: 3, baseMs: 0, capMs: 0 },
} as const satisfies Record<string, RetryPolicy>;

/** The wait before try `attempt + 1`: a random time below min(cap, base × 2^(attempt − 1)) (full jitter). */
export const backoffMs = (policy: RetryPolicy, attempt: number, random: () => number = Math.random) =>
  policy.baseMs === 0 ? 0 : random() * Math.min(policy.capMs, policy.baseMs * 2 ** (attempt - 1));

export const pause = (policy: RetryPolicy, attempt: number) => {
  const ms = backoffMs(policy, attempt);
  return ms > 0 ? new Promise<void>((resolve) => setTimeout(resolve, ms)) : Promise.resolve();
};

/** What a try returns to be tried again. */
export const again: unique symbol = Symbol('again');
export type Again = typeof again;

/**
 * Runs `attempt(n)` (n = 1, 2, …) until it returns a value, which `retry` returns; a throw ends it. When it returns
 * `again` and the policy's attempts are used up, `exhausted` gives the error to throw (by default a plain one).
 */
export async function retry<T>(
  policy: RetryPolicy,
  attempt: (n: number) => Promise<T | Again> | T | Again,
  exhausted: () => Error | Promise<Error> = () => new Error(`gave up after ${policy.attempts} attempts`),
): Promise<T> {
  return retryOr(policy, attempt, async () => {
    throw await exhausted();
  });
}

/** `retry`, answering `otherwise()` instead of throwing when the attempts are used up. */
export async function retryOr<T, F>(
  policy: RetryPolicy,
  attempt: (n: number) => Promise<T | Again> | T | Again,
  otherwise: () => F | Promise<F>,
): Promise<T | F> {
  for (let n = 1; ; n++) {
    const result = await attempt(n);
    if (result !== again) return result as T;
    if (n >= policy.attempts) return otherwise();
    await pause(policy, n);
  }
}
