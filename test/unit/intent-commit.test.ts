import { describe, expect, it } from 'vitest';
import { isRefusal, type Decision } from '#shared/domain/core/decision.ts';
import { decideIntent } from '#shared/domain/core/intent.ts';
import { IllegalTransition, type PaymentIntent } from '#shared/domain/intent.ts';
import { intentChange } from '#shared/services/transactions.ts';
import { transitionWrites } from '#shared/store/intents.ts';
import { intentFixture } from '../support/intent-fixture.ts';

/**
 * An intent's change is committed as the money core decided it: the store writes the core's state (no second decision
 * of its own), and refuses one that is not a permitted move from the state read.
 */
const now = new Date('2026-11-29T06:00:00.000Z');
const card = { brand: 'visa', last4: '4242', expMonth: 12, expYear: 2030 };

const checkout = (over: Partial<PaymentIntent> = {}): PaymentIntent =>
  intentFixture({
    paymentIntentId: '6f1c2f43-7f52-4d6b-9a4e-1d0c7b0e9a11',
    intentType: 'checkout',
    feeMinor: 0,
    description: 'checkout',
    expiresAt: '2026-11-29T06:30:00.000Z',
    version: 2,
    details: { feeRate: { basisPoints: 250, fixedMinor: 0 } },
    ...over,
  });
const decided = (d: Decision<PaymentIntent>) => {
  if (isRefusal(d)) throw new Error(`refused: ${d.message}`);
  return d;
};
/** Every value an UpdateItem writes. */
const written = (writes: ReturnType<typeof transitionWrites>['writes']) => JSON.stringify(writes[0]!.Update!.ExpressionAttributeValues);

describe("transitionWrites writes the core's decided state", () => {
  it('its status, fee, reason and details, version + 1, with its event; conditioned on the status and version read', () => {
    const current = checkout();
    const paid = decided(decideIntent(current, { type: 'attempt-paid', source: { card } }, now)).state;
    const { next, event, writes } = transitionWrites(current, paid, { now });
    expect(next).toBe(paid);
    expect(paid.feeMinor).toBe(25_00); // the core's fee, at the session's rate
    expect(written(writes)).toContain('"N":"2500"');
    expect(written(writes)).toContain('"S":"Completed"');
    expect(writes[0]!.Update!.ConditionExpression).toMatch(/status.*version|version.*status/);
    expect(event.data).toMatchObject({ PreviousStatus: 'Pending', CurrentStatus: 'Completed' });
  });

  it.each([
    ['a move the state machine forbids', (s: PaymentIntent) => ({ ...s, status: 'Processing' as const })],
    ['a version other than + 1', (s: PaymentIntent) => ({ ...s, version: s.version + 1 })],
    ['a changed amount', (s: PaymentIntent) => ({ ...s, amountMinor: 1 })],
    ['a changed wallet shard', (s: PaymentIntent) => ({ ...s, walletShard: 3 })],
  ])('refuses %s before anything is written', (_, change) => {
    const current = checkout();
    const failed = decided(decideIntent(current, { type: 'fail', reason: 'card_declined' }, now)).state;
    expect(() => transitionWrites(current, change(failed), { now })).toThrow(IllegalTransition);
  });

  it('refuses to leave a final status', () => {
    const done = checkout({ status: 'Completed' });
    expect(() => transitionWrites(done, { ...done, status: 'Failed', version: done.version + 1 }, { now })).toThrow(IllegalTransition);
  });
});

describe('intentChange commits a decision of the core as it is', () => {
  it('a status change: the transition, and the journals the core decided posted on the wallet', () => {
    const current = checkout();
    const d = decided(decideIntent(current, { type: 'attempt-paid', source: { card } }, now));
    const change = intentChange(current, d, now);
    expect(change.next).toBe(d.state);
    expect(change.transition?.next).toBe(d.state);
    // The intent's update, its event, and the credit's journal and wallet writes.
    expect(change.writes.length).toBeGreaterThan(change.transition!.writes.length);
    expect(JSON.stringify(change.writes)).toContain('checkout.completed');
  });

  it('a change that keeps the status: no event, due at its expiry unless the decision says when', () => {
    const current = checkout({ details: { feeRate: { basisPoints: 250, fixedMinor: 0 }, paymentLinkId: 'l1', linkUseHeld: false } });
    const d = decided(decideIntent(current, { type: 'attempt', linkUse: true }, now));
    const atExpiry = intentChange(current, d, now);
    expect(atExpiry.transition).toBeUndefined();
    expect(written(atExpiry.writes)).toContain(`${current.expiresAt}#${current.paymentIntentId}`);
    const soon = intentChange(current, { ...d, dueAt: '2026-11-29T06:01:00.000Z' }, now);
    expect(written(soon.writes)).toContain(`2026-11-29T06:01:00.000Z#${current.paymentIntentId}`);
  });
});
