import { describe, expect, it } from 'vitest';
import { isRefusal, type Decision } from '#shared/domain/core/decision.ts';
import { decideCharge, decideHeld, decideIntent, holdApproval } from '#shared/domain/core/intent.ts';
import { heldApprovalOf, type PaymentIntent } from '#shared/domain/intent.ts';
import { heldWrites } from '#shared/store/intents.ts';
import { intentFixture } from '../support/intent-fixture.ts';

/**
 * Money that arrives for a suspended merchant is held by the money core (holdApproval), and only the operator's
 * release or decline (decideHeld) decides it, once, its decision stamped on the hold in the same state; the store
 * writes the held state as the core returns it (out of the due index, into the held list).
 */
const now = new Date('2026-11-29T06:00:00.000Z');
const card = { brand: 'visa', last4: '4242', expMonth: 12, expYear: 2030 };
const approval = { source: 'callback' as const, providerReference: 'PR-1' };

const intent = (over: Partial<PaymentIntent> = {}): PaymentIntent =>
  intentFixture({ mode: 'live', details: { providerId: 1, walletChargeInfo: { status: 'Pending' } }, ...over });
const cardCheckout = () =>
  intent({
    intentType: 'checkout',
    feeMinor: 0,
    details: { feeRate: { basisPoints: 200, fixedMinor: 0 }, cardAuth: { stage: 'confirming', providerReference: 'C1', card } },
  });

const state = (d: Decision<PaymentIntent>) => {
  if (isRefusal(d)) throw new Error(`refused: ${d.message}`);
  return d;
};
const held = (p: PaymentIntent) => state(holdApproval(p, { type: 'hold-approval', approval, merchantActive: false }, now)).state;

describe('holding money for a suspended merchant (holdApproval)', () => {
  it('stays Pending with its heldApproval, version + 1: no journal, no event, nothing credited', () => {
    const before = intent();
    const d = state(holdApproval(before, { type: 'hold-approval', approval, merchantActive: false }, now));
    expect(d.journals).toEqual([]);
    expect(d.events).toEqual([]);
    expect(d.state).toEqual({
      ...before,
      details: { ...before.details, heldApproval: { heldAt: now.toISOString(), ...approval } },
      updatedAt: now.toISOString(),
      version: 4,
    });
  });

  it('is refused for an active merchant, a final intent, and an intent held already', () => {
    const hold = { type: 'hold-approval' as const, approval, merchantActive: false };
    expect(holdApproval(intent(), { ...hold, merchantActive: true }, now)).toMatchObject({ refused: 'unchanged' });
    expect(holdApproval(intent({ status: 'Completed' }), hold, now)).toMatchObject({ refused: 'unchanged' });
    expect(holdApproval(held(intent()), hold, now)).toMatchObject({ refused: 'unchanged' });
  });

  it('nothing but the operator decides a held payment (a provider answer, an expiry, a note are refused)', () => {
    const h = held(intent());
    expect(decideIntent(h, { type: 'complete', through: { deposit: 1 } }, now)).toMatchObject({ refused: 'unchanged' });
    expect(decideIntent(h, { type: 'expire', reason: 'not_approved' }, now)).toMatchObject({ refused: 'unchanged' });
    expect(decideIntent(h, { type: 'note' }, now)).toMatchObject({ refused: 'unchanged' });
    const c = held(cardCheckout());
    expect(decideIntent(c, { type: 'attempt-paid', source: { card } }, now)).toMatchObject({ refused: 'unchanged' });
  });

  it('the store writes the held state (heldWrites): out of the due index, into the held list, conditioned on the version read', () => {
    const before = intent();
    const [write] = heldWrites(before, held(before));
    const update = write!.Update!;
    expect(update.UpdateExpression).toMatch(/REMOVE .*dueAt/);
    expect(Object.values(update.ExpressionAttributeValues!)).toContainEqual({ S: 'HELDAPPROVAL' });
    expect(Object.values(update.ExpressionAttributeValues!)).toContainEqual({ S: `${now.toISOString()}#p1` });
    expect(Object.values(update.ExpressionAttributeValues!)).toContainEqual({ N: String(before.version) });
    expect(() => heldWrites(before, { ...before, version: 4 })).toThrow(/not held/);
    expect(() => heldWrites(before, { ...held(before), feeMinor: 0 })).toThrow(/feeMinor/);
  });
});

describe("the operator's release or decline (decideHeld)", () => {
  const later = new Date('2026-11-29T07:00:00.000Z');

  it('a release credits a held deposit once, net of its fee, the decision stamped in the same state', () => {
    const h = held(intent());
    const d = state(decideHeld(h, { type: 'release-held', details: { walletChargeInfo: { status: 'Completed' } } }, later));
    expect(d.state).toMatchObject({ status: 'Completed', version: 5, details: { walletChargeInfo: { status: 'Completed' } } });
    expect(heldApprovalOf(d.state)).toEqual({
      heldAt: now.toISOString(),
      ...approval,
      decision: 'released',
      decidedAt: later.toISOString(),
    });
    expect(d.journals).toHaveLength(1);
    expect(d.journals[0]!.delta.available).toBe(1_000_00 - 20_00);
    expect(d.events).toEqual([{ object: 'transaction', id: 'p1', from: 'Pending', to: 'Completed' }]);
    // Once: a second decision (release or decline) is refused.
    expect(decideHeld(d.state, { type: 'release-held' }, later)).toMatchObject({ refused: 'invalid_status' });
    expect(decideHeld(d.state, { type: 'decline-held' }, later)).toMatchObject({ refused: 'invalid_status' });
  });

  it("a released card checkout is paid by its captured card, at the session's fee rate", () => {
    const d = state(decideHeld(held(cardCheckout()), { type: 'release-held' }, later));
    expect(d.state).toMatchObject({ status: 'Completed', feeMinor: 20_00, details: { card } });
    expect(d.journals[0]!.movements).toContainEqual({ account: { kind: 'external', name: 'card_network' }, amount: -1_000_00 });
  });

  it('a decline fails it (declined_merchant_suspended), nothing credited; a card checkout keeps its card', () => {
    const d = state(decideHeld(held(cardCheckout()), { type: 'decline-held' }, later));
    expect(d.state).toMatchObject({ status: 'Failed', reason: 'declined_merchant_suspended', details: { card } });
    expect(heldApprovalOf(d.state)).toMatchObject({ decision: 'declined', decidedAt: later.toISOString() });
    expect(d.journals).toEqual([]);
  });

  it('is refused for an intent not held, and a checkout with nothing that paid', () => {
    expect(decideHeld(intent(), { type: 'release-held' }, later)).toMatchObject({ refused: 'invalid_status' });
    const nothing = held(intent({ intentType: 'checkout', details: {} }));
    expect(decideHeld(nothing, { type: 'release-held' }, later)).toMatchObject({ refused: 'invalid_status' });
  });
});

describe('a deposit held while its charge request is still unanswered', () => {
  it("the charge request's late answer changes nothing: the deposit stays in the operator's held list", () => {
    const requesting = intentFixture({ mode: 'live', details: { providerId: 1, requesting: true, walletChargeInfo: {} } });
    const onHold = held(requesting);
    expect(heldApprovalOf(onHold)).toBeTruthy();
    // Had it been written, the answer's due-index key would have replaced the held list's (the deposit lost to the operator).
    expect(decideCharge(onHold, { type: 'answered', status: 'PENDING', message: 'prompt sent' }, now)).toMatchObject({
      refused: 'unchanged',
    });
    // Not held: the answer is recorded as before.
    expect(isRefusal(decideCharge(requesting, { type: 'answered', status: 'PENDING', message: 'prompt sent' }, now))).toBe(false);
  });
});
