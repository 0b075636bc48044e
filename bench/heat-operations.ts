import { AsyncLocalStorage } from 'node:async_hooks';
import { randomUUID } from 'node:crypto';
import type { CapacityRecord } from '#shared/store/client.ts';
import { Attributor, OperationTally } from './heat-model.ts';

/**
 * The business operations of the capacity model, run one instance at a time with every DynamoDB
 * call tagged by operation and step: `npm run bench -- heat` (bench/heat.ts, many instances) and
 * test/integration/capacity.test.ts (two of each, in `npm test`) drive the same flows.
 *
 * Tagging: the merchant's requests, the page and the sweeps run one at a time (a global tag); the
 * relay and the dispatcher run concurrently in their own async context (`inJobs`, AsyncLocalStorage)
 * and are tagged with that context's operation. Feed `record` to captureConsumedCapacity.
 */
export class OperationTagger {
  private readonly jobs = new AsyncLocalStorage<{ op: string }>();
  private readonly attributor = new Attributor();
  private current: { op: string; step: string } | undefined;
  tallies = new Map<string, OperationTally>();

  tally(op: string): OperationTally {
    let t = this.tallies.get(op);
    if (!t) this.tallies.set(op, (t = new OperationTally()));
    return t;
  }

  /** Every call, tagged or not, goes through the attributor: it must know each item's size and index keys. */
  readonly record = (record: CapacityRecord) => {
    const attributed = this.attributor.touches(record);
    const job = this.jobs.getStore();
    if (job) this.tally(job.op).add(record, attributed, 'relay + dispatcher');
    else if (this.current) this.tally(this.current.op).add(record, attributed, this.current.step);
  };

  /** Starts concurrent work (the relay and dispatcher) whose calls are all tagged `op`. */
  inJobs<T>(op: string, start: () => T): T {
    return this.jobs.run({ op }, start);
  }

  async step<T>(name: string, run: () => Promise<T>): Promise<T> {
    const before = this.current;
    this.current = before ? { op: before.op, step: name } : undefined;
    try {
      return await run();
    } finally {
      this.current = before;
    }
  }

  async instance(op: string, run: () => Promise<void>): Promise<void> {
    this.tally(op).count++;
    this.current = { op, step: '-' };
    try {
      await run();
    } finally {
      this.current = undefined;
    }
  }

  /** A call that belongs to no operation (checking an outcome). */
  async untagged<T>(run: () => Promise<T>): Promise<T> {
    const before = this.current;
    this.current = undefined;
    try {
      return await run();
    } finally {
      this.current = before;
    }
  }

  /** Outbox events the operations other than `except` committed (what the receiver must get). */
  eventsCommitted(except: string): number {
    return [...this.tallies].filter(([op]) => op !== except).reduce((a, [, t]) => a + t.outboxEvents, 0);
  }
}

/** How the operations reach the gateway: its API and hosted pages, the due sweeps, the operator's approval. */
export interface OperationDriver {
  /** A signed POST to the merchant API (`/Gateway/v1<path>`) with a fresh Idempotency-Key: its JSON answer. */
  api(path: string, body: Record<string, unknown>): Promise<any>;
  /** The hosted page (GET) or one of its forms (POST, same-origin): the status and the page's form token. */
  form(path: string, fields?: Record<string, string>): Promise<{ status: number; csrf?: string }>;
  /** The due sweeps at now + each of `laterMs`, for these intents or money items (refunds). */
  sweep(ids: readonly string[], kind: 'intent' | 'money', laterMs: readonly number[]): Promise<void>;
  approveRefund(id: string): Promise<unknown>;
  intentStatus(id: string): Promise<string | undefined>;
  refundStatus(id: string): Promise<number | undefined>;
}

/**
 * `each` instances of every operation, in order (refunds are made on the paid checkouts):
 *   checkout.paid       POST initiate-checkout, the hosted page, the card form, the sweeps to Completed
 *   deposit.approved    POST deposit, the sandbox wallet's approval (sweeps) to Completed
 *   withdrawal.auto     POST withdraw (autoProcessPayout), the bank rail (sweeps) to Completed
 *   refund.approved     POST /Refunds on a paid checkout, operator approval, the rail (sweeps) to Completed
 * Throws when an operation does not end as it should.
 */
export async function runOperations(tag: OperationTagger, d: OperationDriver, each: number): Promise<void> {
  const ref = (prefix: string) => ({ orderRef: `${prefix}${randomUUID().replaceAll('-', '').slice(0, 16)}` });
  const expectStatus = async (id: string, status: string) => {
    const now = await tag.untagged(() => d.intentStatus(id));
    if (now !== status) throw new Error(`${id} ended ${now}, not ${status}`);
  };
  const paid: string[] = [];
  for (let i = 0; i < each; i++)
    await tag.instance('checkout.paid', async () => {
      const created = await tag.step('create', () =>
        d.api('/Payment/initiate-checkout', { amount: 1500, description: 'Sale day order', orderRef: ref('HEAT') }),
      );
      const path = `/pay/${created.paymentIntentId}`;
      const page = await tag.step('page', () => d.form(path));
      const card = await tag.step('pay', () =>
        d.form(`${path}/card`, { csrf: page.csrf!, name: 'Ayesha Khan', number: '4242424242424242', expiry: '12/39', cvc: '123' }),
      );
      if (card.status !== 303) throw new Error(`card form answered ${card.status}`);
      await tag.step('sweeps', () => d.sweep([created.paymentIntentId], 'intent', [5_000, 20_000]));
      await expectStatus(created.paymentIntentId, 'Completed');
      paid.push(created.paymentIntentId);
    });
  for (let i = 0; i < each; i++)
    await tag.instance('deposit.approved', async () => {
      const r = await tag.step('create', () =>
        d.api('/Payment/deposit', {
          mobileNumber: '03001230000',
          amount: 1000,
          walletProvider: 1,
          description: 'Top up',
          orderRef: ref('HEATD'),
          customerRef: { name: 'Ayesha Khan' },
        }),
      );
      await tag.step('sweeps', () => d.sweep([r.paymentIntentId], 'intent', [5_000, 20_000]));
      await expectStatus(r.paymentIntentId, 'Completed');
    });
  for (let i = 0; i < each; i++)
    await tag.instance('withdrawal.auto', async () => {
      const r = await tag.step('create', () =>
        d.api('/Payment/withdraw', {
          amount: 500,
          currency: 'PKR',
          description: 'Payout',
          autoProcessPayout: true,
          customerRef: { bankAccountNumber: 'PK36SCBL0000001123450000', bankCode: 'MEEZAN', accountTitle: 'Ayesha Khan' },
          orderRef: ref('HEATW'),
        }),
      );
      await tag.step('sweeps', () => d.sweep([r.paymentIntentId], 'intent', [5_000, 20_000, 60_000]));
      await expectStatus(r.paymentIntentId, 'Completed');
    });
  for (const id of paid)
    await tag.instance('refund.approved', async () => {
      const r = await tag.step('create', () => d.api('/Refunds', { trxnRef: id, amount: 100 }));
      await tag.step('approve', () => d.approveRefund(r.id));
      await tag.step('sweeps', () => d.sweep([r.id], 'money', [3_000, 6_000, 9_000, 12_000]));
      const status = await tag.untagged(() => d.refundStatus(r.id));
      if (status !== 3) throw new Error(`refund ${r.id} ended ${status}, not 3 (Completed)`);
    });
}
