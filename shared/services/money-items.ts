import { BusinessRuleError, NotFoundError } from '#shared/domain/errors.ts';
import { emitOutcome } from '#shared/metrics.ts';
import type { TxItem } from '#shared/store/client.ts';
import { changeVersioned, type VersionedChange } from '#shared/store/versioned.ts';

/**
 * The versioned money items of the outbound-transfer engine that are not payment intents
 * (settlements, refunds; docs/architecture.md): their one read → decide → commit → retry loop,
 * each status change committed with its event and a final status counted once, and the
 * operator's commands on a Pending item. Withdrawals are payment intents (changeIntent).
 */
interface MoneyItem {
  id: string;
  status: number;
  amountMinor: number;
}

/** The store's builders of one kind of item (moneyItemWrites). */
interface Writes<T, Changes> {
  change: (current: T, changes: Changes, dueAt: string | null | undefined, now: Date) => { next: T; write: TxItem };
  eventWrites: (previous: T, next: T) => TxItem[];
}

/**
 * `statusNames` by status number: Pending is the one operators decide, Completed and those after
 * it are final (their outcome metric is emitted once).
 */
export function moneyItems<T extends MoneyItem, Changes>(
  subject: 'settlement' | 'refund',
  read: (id: string) => Promise<T | undefined>,
  writes: Writes<T, Changes>,
  statusNames: readonly string[],
) {
  type Change = VersionedChange<T>;
  const spec = { subject, read, writes, statusNames, pending: statusNames.indexOf('Pending'), finalFrom: statusNames.indexOf('Completed') };
  const noun = spec.subject[0]!.toUpperCase() + spec.subject.slice(1);
  /** Read → decide → one conditional transaction (with the status event), retried on a lost race. */
  const change = (id: string, decide: (current: T) => Promise<Change | null> | Change | null) =>
    changeVersioned(
      spec.subject,
      () => spec.read(id),
      async (current) => {
        const c = await decide(current);
        return c && { next: c.next, writes: [...c.writes, ...spec.writes.eventWrites(current, c.next)] };
      },
      {
        label: `${spec.subject} ${id}`,
        committed: (before, after) =>
          after.status !== before.status &&
          after.status >= spec.finalFrom &&
          emitOutcome(spec.subject, spec.statusNames[after.status]!, after.amountMinor),
      },
    );
  return {
    change,
    /** Read → decide → commit; the item after (or as it is when nothing changed). */
    commit: async (id: string, decide: (current: T) => Change | null) => (await change(id, decide)).value,
    /** The store's change with extra writes (journals, reservations) in the same transaction. */
    write(current: T, changes: Changes, dueAt: string | null | undefined, now: Date, ...extra: TxItem[]): Change {
      const { next, write } = spec.writes.change(current, changes, dueAt, now);
      return { next, writes: [write, ...extra] };
    },
    /** An operator's command, for a Pending item only; 404 when there is none. Returns the item after. */
    async operator(id: string, action: string, decide: (current: T) => Promise<Change> | Change): Promise<T> {
      const { value } = await change(id, (current) => {
        if (current.status !== spec.pending) {
          const status = spec.statusNames[current.status];
          const message = `${noun} ${current.id} is ${status}; only a Pending ${spec.subject} can be ${action}.`;
          throw new BusinessRuleError(message, 'invalid_status');
        }
        return decide(current);
      });
      if (!value) throw new NotFoundError(`No ${spec.subject} with id ${id}.`);
      return value;
    },
  };
}
