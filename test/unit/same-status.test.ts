import { describe, expect, it } from 'vitest';
import { isRefusal, type Decision } from '#shared/domain/core/decision.ts';
import { decideCharge, decideIntent } from '#shared/domain/core/intent.ts';
import { terminalStatuses } from '#shared/domain/core/machines.ts';
import { decidePayout } from '#shared/domain/core/payout.ts';
import { newWithdrawal, withdrawalDetails } from '#shared/domain/payout.ts';
import type { PaymentIntent } from '#shared/domain/intent.ts';
import { sameStatusWrites, unlinkedSameStatusWrites } from '#shared/store/intents.ts';
import { intentFixture } from '../support/intent-fixture.ts';

/**
 * Every change that keeps an intent's status is the money core's (shared/domain/core, keepingStatus): a note ("look
 * again later"), a deposit's charge answered, a payout accepted by its rail. Nothing on a final intent changes, and the
 * store writes only what the core decided, refusing a `next` that moves what only a status change may.
 */
const now = new Date('2026-11-29T06:00:00.000Z');
const at = '2026-11-29T05:00:00.000Z';

const deposit = (over: Partial<PaymentIntent> = {}): PaymentIntent =>
  intentFixture({
    details: { providerId: 1, requesting: true, chargeUnanswered: true, walletChargeInfo: { status: 'Pending', message: 'sending' } },
    ...over,
  });

const payout = (): PaymentIntent => {
  const request = {
    ...{ merchantId: 'm1', mode: 'test' as const, traceId: 'trace', fee: { basisPoints: 0, fixedMinor: 14_00 }, amountMinor: 500_00 },
    ...{ currency: 'PKR' as const, description: 'Payout', metadataJson: null, callbackUrl: null, orderRef: { orderRef: 'W1' } },
    ...{ bank: { code: 'MEEZAN', name: 'Meezan Bank', group: 'bank' as never, aliases: [] }, accountNumber: '00001234567890' },
    ...{ accountTitle: 'Ayesha Khan', customer: {}, autoProcessPayout: true },
  };
  const ids = { paymentIntentId: 'w1', transactionReference: 'WD1' };
  return { ...newWithdrawal(request, { name: 'Rail', reconcileAt: now }, new Date(at), ids), walletShard: 2 } as PaymentIntent;
};

const state = (d: Decision<PaymentIntent>) => {
  if (isRefusal(d)) throw new Error(`refused: ${d.message}`);
  expect(d.journals).toEqual([]);
  expect(d.events).toEqual([]);
  return d.state;
};

describe('the core decides every change that keeps the status', () => {
  it('a note: the details noted, version + 1, nothing else; refused on every final status', () => {
    const before = deposit();
    const after = state(decideIntent(before, { type: 'note', details: { lookedAt: now.toISOString() } }, now));
    expect(after).toEqual({
      ...before,
      details: { ...before.details, lookedAt: now.toISOString() },
      updatedAt: now.toISOString(),
      version: 4,
    });
    for (const status of terminalStatuses) {
      const refused = decideIntent(deposit({ status }), { type: 'note' }, now);
      expect(refused, status).toMatchObject({ refused: 'invalid_status' });
    }
  });

  it("a deposit's charge answered once: no longer requesting, the provider's status and message; a checkout's refused", () => {
    const answer = { type: 'answered' as const, status: 'Pending', message: 'Approve on your phone.', unanswered: false };
    const after = state(decideCharge(deposit(), answer, now));
    expect(after.status).toBe('Pending');
    expect(after.details).toMatchObject({
      requesting: undefined,
      chargeUnanswered: undefined,
      walletChargeInfo: { status: 'Pending', message: 'Approve on your phone.' },
    });
    expect(decideCharge(after, answer, now)).toMatchObject({ refused: 'unchanged' });
    expect(decideCharge(deposit({ intentType: 'checkout' }), answer, now)).toMatchObject({ refused: 'unchanged' });
    expect(decideCharge(deposit({ status: 'Expired' }), answer, now)).toMatchObject({ refused: 'unchanged' });
    const lost = state(decideCharge(deposit(), { ...answer, unanswered: true }, now));
    expect(lost.details).toMatchObject({ requesting: undefined, chargeUnanswered: true });
  });

  it('a payout accepted by its rail stays Processing with its reference; refused unless Processing, a note refused once final', () => {
    const before = payout();
    const expectedBy = new Date('2026-11-29T07:00:00.000Z');
    const after = state(decidePayout(before, { type: 'accepted', providerReference: 'RAIL-9', expectedBy }, now));
    expect(after).toMatchObject({
      status: 'Processing',
      amountMinor: 500_00,
      feeMinor: 14_00,
      walletShard: 2,
      version: before.version + 1,
    });
    expect(withdrawalDetails(after).submission?.providerReference).toBe('RAIL-9');
    expect(withdrawalDetails(after).payoutInfo).toMatchObject({ status: 'Processing', estimatedCompletionTime: expectedBy.toISOString() });
    const noted = state(decidePayout(before, { type: 'note' }, now));
    expect(noted).toMatchObject({ status: 'Processing', details: before.details, version: before.version + 1 });
    for (const status of ['Pending', 'Completed', 'Failed'] as const) {
      const refused = decidePayout({ ...before, status }, { type: 'accepted', providerReference: null, expectedBy }, now);
      expect(refused, status).toMatchObject({ refused: 'invalid_status' });
    }
    expect(decidePayout({ ...before, status: 'Completed' }, { type: 'note' }, now)).toMatchObject({ refused: 'invalid_status' });
  });
});

describe("the store writes the core's same-status state (sameStatusWrites)", () => {
  const before = payout();
  const next = state(decidePayout(before, { type: 'note' }, now));
  const dueAt = '2026-11-29T06:01:00.000Z';

  it("writes next's details, updatedAt and version, conditioned on the status and version read", () => {
    const [write] = sameStatusWrites(before, next, dueAt);
    const update = write!.Update!;
    expect(update.ConditionExpression).toMatch(/status/);
    expect(update.ConditionExpression).toMatch(/version/);
    expect(Object.values(update.ExpressionAttributeValues!)).toContainEqual({ N: String(before.version) });
    expect(Object.values(update.ExpressionAttributeValues!)).toContainEqual({ N: String(next.version) });
    expect(Object.values(update.ExpressionAttributeValues!)).toContainEqual({ S: dueAt });
  });

  it.each([
    ['status', { status: 'Completed' }],
    ['amountMinor', { amountMinor: 1 }],
    ['feeMinor', { feeMinor: 0 }],
    ['walletShard', { walletShard: 5 }],
    ['version', { version: before.version + 2 }],
  ] as const)('refuses a next that changes %s, before anything is written', (what, change) => {
    expect(() => sameStatusWrites(before, { ...next, ...change } as PaymentIntent, dueAt)).toThrow(what);
  });

  it("unlinkedSameStatusWrites (a deposit's charge answered) writes the intent alone, and refuses a change that moves a link's use", () => {
    const checkout = { ...deposit(), intentType: 'checkout' as const, details: { paymentLinkId: 'l1', linkUseHeld: false } };
    const taken = state(decideIntent(checkout, { type: 'attempt', linkUse: true }, now));
    expect(sameStatusWrites(checkout, taken, dueAt)).toHaveLength(2); // the intent, and the link's use taken
    expect(() => unlinkedSameStatusWrites(checkout, taken, dueAt)).toThrow(/linkUseHeld/);
    const answered = state(decideCharge(deposit(), { type: 'answered', status: 'Pending', message: 'Approve.' }, now));
    expect(unlinkedSameStatusWrites(deposit(), answered, dueAt)).toEqual(sameStatusWrites(deposit(), answered, dueAt));
  });
});

describe("an intent's updatedAt never moves backwards", () => {
  it('a decision made with a clock earlier than the stored updatedAt keeps it (note and status change alike)', () => {
    const stored = deposit({ updatedAt: '2026-11-29T06:00:01.000Z', details: {} });
    const earlier = new Date('2026-11-29T06:00:00.500Z');
    const noted = decideIntent(stored, { type: 'note', details: { looked: 1 } }, earlier);
    const failed = decideIntent(stored, { type: 'fail', reason: 'wallet_declined' }, earlier);
    for (const d of [noted, failed]) {
      expect(isRefusal(d)).toBe(false);
      if (!isRefusal(d)) expect(d.state.updatedAt).toBe(stored.updatedAt);
    }
    const next = new Date('2026-11-29T06:00:02.000Z');
    const later = decideIntent(stored, { type: 'note', details: { looked: 2 } }, next);
    expect(!isRefusal(later) && later.state.updatedAt).toBe(next.toISOString());
  });
});
