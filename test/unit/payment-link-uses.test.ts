import { unmarshall } from '@aws-sdk/util-dynamodb';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { linkUseAttempt, type CheckoutDetails } from '#shared/domain/checkout.ts';
import type { IntentStatus, PaymentIntent } from '#shared/domain/intent.ts';
import { linkUseWrites } from '#shared/store/payment-links.ts';
import { isRefusal } from '#shared/domain/core/decision.ts';
import { decideLinkUse, linkUseOf, type LinkCounters, type LinkUse } from '#shared/domain/core/payment-link.ts';
import type { PaymentLink } from '#shared/domain/payment-link.ts';

/**
 * What a change of a payment link's checkout writes to the link (shared/store/payment-links.ts
 * linkUseWrites), rule by rule: the integration tests (payment-links-uses.test.ts) drive most of
 * them through the hosted checkout; the completion of a session that held no use (money that moved
 * without an attempt taking a use first) only happens here.
 */
describe('linkUseWrites', () => {
  beforeAll(() => {
    vi.stubEnv('TABLE_NAME', 'unit-table');
  });
  afterAll(() => {
    vi.unstubAllEnvs();
  });

  const session = (details: Partial<CheckoutDetails>, status: IntentStatus = 'Pending'): PaymentIntent =>
    ({
      paymentIntentId: '00000000-0000-4000-8000-000000000001',
      intentType: 'checkout',
      status,
      amountMinor: 1500_00,
      details: { paymentMethod: null, feeRate: { basisPoints: 250, fixedMinor: 0 }, paymentLinkId: 'pl_1', ...details },
    }) as unknown as PaymentIntent;
  const change = (current: PaymentIntent, status: IntentStatus, details: Partial<CheckoutDetails> = {}) =>
    linkUseWrites(current, { ...current, status, details: { ...current.details, ...details } });
  /**
   * What an update entry does, read back from what the declaration layer built: the counters it ADDs (name → amount)
   * and its condition with every `#name` and `:value` placeholder replaced by the attribute and the value it stands for.
   */
  const updateOf = (writes: ReturnType<typeof linkUseWrites>) => {
    expect(writes).toHaveLength(1);
    const u = writes[0]!.Update!;
    const names = u.ExpressionAttributeNames ?? {};
    const values = unmarshall(u.ExpressionAttributeValues ?? {});
    const plain = (expression: string) =>
      expression.replace(/#\w+/g, (n) => names[n] ?? n).replace(/:\w+/g, (v) => (v in values ? JSON.stringify(values[v]) : v));
    expect(u.UpdateExpression).toMatch(/^ADD (?!.*\b(SET|REMOVE)\b)/); // counters only
    const adds = Object.fromEntries(
      plain(u.UpdateExpression!)
        .slice('ADD '.length)
        .split(', ')
        .map((clause) => clause.split(' '))
        .map(([attribute, amount]) => [attribute, Number(amount)]),
    );
    return { adds, condition: plain(u.ConditionExpression ?? '') };
  };
  const belowMax = 'attribute_exists(PK) AND (attribute_type(maxPayments, "NULL") OR usesHeld < maxPayments)';
  const exists = 'attribute_exists(PK)';

  it('an attempt that starts takes a use only while one is left; one that ends unpaid gives it back', () => {
    const free = session({ linkUseHeld: false });
    const take = updateOf(change(free, 'Pending', linkUseAttempt(free.details as unknown as CheckoutDetails, true)));
    expect(take).toEqual({ adds: { usesHeld: 1 }, condition: belowMax });

    const held = session({ linkUseHeld: true });
    const back = updateOf(change(held, 'Pending', { linkUseHeld: false }));
    expect(back).toEqual({ adds: { usesHeld: -1 }, condition: exists });
    for (const end of ['Failed', 'Cancelled', 'Expired'] as const) expect(updateOf(change(held, end)).adds, end).toEqual({ usesHeld: -1 });
    // Nothing held, nothing to give back; a change that keeps the hold writes nothing.
    for (const end of ['Failed', 'Cancelled', 'Expired', 'Pending'] as const) expect(change(free, end), end).toEqual([]);
    expect(change(held, 'Pending', { attempts: [] })).toEqual([]);
  });

  it('a payment counts on its use; without one it counts one anyway (the money has moved), or under the limit when it takes it', () => {
    const paid = updateOf(change(session({ linkUseHeld: true }), 'Completed'));
    expect(paid).toEqual({ adds: { paidCount: 1, paidMinor: 150000 }, condition: exists });

    const unheld = updateOf(change(session({ linkUseHeld: false }), 'Completed'));
    expect(unheld).toEqual({ adds: { usesHeld: 1, paidCount: 1, paidMinor: 150000 }, condition: exists });
    const sandboxCard = updateOf(change(session({ linkUseHeld: false }), 'Completed', { linkUseHeld: true }));
    expect(sandboxCard).toEqual({ adds: { usesHeld: 1, paidCount: 1, paidMinor: 150000 }, condition: belowMax });
  });

  it('a session stored before uses were held per attempt holds one from its creation until it ends', () => {
    const legacy = session({});
    expect(linkUseAttempt(legacy.details as unknown as CheckoutDetails, false)).toEqual({});
    expect(change(legacy, 'Pending', { attempts: [] })).toEqual([]);
    expect(updateOf(change(legacy, 'Cancelled')).adds).toEqual({ usesHeld: -1 });
    expect(updateOf(change(legacy, 'Completed')).adds).toEqual({ paidCount: 1, paidMinor: 150000 });
  });

  it('writes nothing for checkouts not made from a link, nor after a terminal status', () => {
    const plain = session({ paymentLinkId: undefined, linkUseHeld: undefined });
    expect(change(plain, 'Completed')).toEqual([]);
    expect(change(session({ linkUseHeld: true }, 'Completed'), 'Completed')).toEqual([]);
  });
  it('commits what the core decides: the counters decideLinkUse moves, ADDed, its refusal at the limit as the condition', () => {
    const free = session({ linkUseHeld: false });
    const held = session({ linkUseHeld: true });
    const changes: [PaymentIntent, IntentStatus, Partial<CheckoutDetails>][] = [
      [free, 'Pending', { linkUseHeld: true }],
      [held, 'Pending', { linkUseHeld: false }],
      [held, 'Expired', {}],
      [held, 'Completed', {}],
      [free, 'Completed', {}],
      [free, 'Completed', { linkUseHeld: true }],
    ];
    const links: LinkCounters[] = [
      { usesHeld: 0, paidCount: 0, paidMinor: 0, maxPayments: 2 },
      { usesHeld: 2, paidCount: 1, paidMinor: 700, maxPayments: 2 },
      { usesHeld: 5, paidCount: 3, paidMinor: 900, maxPayments: null },
    ];
    for (const [current, status, details] of changes) {
      const next = { ...current, status, details: { ...current.details, ...details } };
      const { adds, condition } = updateOf(linkUseWrites(current, next));
      for (const l of links) {
        const decision = decideLinkUse(l, linkUseOf(current, next)!);
        const commits = condition === exists || l.maxPayments === null || l.usesHeld < l.maxPayments;
        expect(commits, `${status} ${JSON.stringify(details)} on ${JSON.stringify(l)}`).toBe(!isRefusal(decision));
        const added = Object.fromEntries(Object.entries(adds).map(([k, v]) => [k, l[k as keyof LinkCounters]! + (v as number)]));
        if (!isRefusal(decision)) expect({ ...l, ...added }).toEqual(decision.state);
      }
    }
  });

  it('runs the core in production: a changed core rule changes what the store writes', async () => {
    vi.resetModules();
    vi.doMock('#shared/domain/core/payment-link.ts', async (original) => {
      const real = await original<typeof import('#shared/domain/core/payment-link.ts')>();
      // A planted rule: a payment counts twice.
      const decideLinkUse: typeof real.decideLinkUse = (l, use) => {
        const d = real.decideLinkUse(l, use);
        return isRefusal(d) || use.paidMinor === null ? d : { ...d, state: { ...d.state, paidCount: d.state.paidCount + 1 } };
      };
      return { ...real, decideLinkUse };
    });
    try {
      const store = await import('#shared/store/payment-links.ts');
      const current = session({ linkUseHeld: true });
      expect(updateOf(store.linkUseWrites(current, { ...current, status: 'Completed' })).adds).toEqual({ paidCount: 2, paidMinor: 150000 });
    } finally {
      vi.doUnmock('#shared/domain/core/payment-link.ts');
      vi.resetModules();
    }
  });
});

describe('decideLinkUse (the money core)', () => {
  const link = (over: Partial<PaymentLink> = {}): PaymentLink =>
    ({ linkId: 'pl_1', maxPayments: 2, usesHeld: 0, paidCount: 0, paidMinor: 0, updatedAt: '', ...over }) as PaymentLink;
  const use = (l: PaymentLink, use: LinkUse) => {
    const d = decideLinkUse(l, use);
    return isRefusal(d) ? d.refused : d.state;
  };

  const take: LinkUse = { uses: 1, paidMinor: null, limited: true };
  /** A payment counted: on the use its checkout held, taking one now (only while one is left), or one whatever the limit. */
  const paid = (amountMinor: number, how: 'held' | 'conditional' | 'unconditional'): LinkUse => ({
    uses: how === 'held' ? 0 : 1,
    paidMinor: amountMinor,
    limited: how === 'conditional',
  });

  it('takes a use only while one is left; a use given back is taken again; paid uses are counted', () => {
    const one = use(link(), take) as PaymentLink;
    const two = use(one, take) as PaymentLink;
    expect(two.usesHeld).toBe(2);
    expect(use(two, take)).toBe('invalid_status');
    expect(use(two, paid(500, 'conditional'))).toBe('invalid_status');
    const back = use(two, { uses: -1, paidMinor: null, limited: false }) as PaymentLink;
    expect(back.usesHeld).toBe(1);
    const counted = use(back, paid(1500_00, 'held')) as PaymentLink;
    expect([counted.usesHeld, counted.paidCount, counted.paidMinor]).toEqual([1, 1, 1500_00]);
    // Money that moved without a use is counted whatever the limit.
    const forced = use(two, paid(100, 'unconditional')) as PaymentLink;
    expect([forced.usesHeld, forced.paidCount]).toEqual([3, 1]);
    expect((use(link({ maxPayments: null, usesHeld: 50 }), take) as PaymentLink).usesHeld).toBe(51);
  });
});
