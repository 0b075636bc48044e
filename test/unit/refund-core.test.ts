import { describe, expect, it } from 'vitest';
import { isRefusal, type Decision } from '#shared/domain/core/decision.ts';
import { unmarshall } from '@aws-sdk/util-dynamodb';
import { decideRefund, refundOutstanding, type PaymentEffect, type RefundOutcome } from '#shared/domain/core/refund.ts';
import {
  newRefund,
  refundableMinor,
  RefundStatus,
  type Refund,
  type RefundCapability,
  type RefundableIntent,
} from '#shared/domain/refund.ts';
import { paymentCounterWrites } from '#shared/store/refunds.ts';

/** The refund rules of the money core (shared/domain/core/refund.ts) that the refund service only commits. */
const at = new Date('2026-01-01T00:00:00.000Z');
const intent = {
  paymentIntentId: 'p1',
  intentType: 'checkout',
  status: 'Completed',
  amountMinor: 100_00,
  currency: 'PKR',
  transactionReference: 'T1',
  refundReservedMinor: 30_00,
} as RefundableIntent;
const pending = newRefund({ merchantId: 'm1', mode: 'test', traceId: 't' }, intent, 40_00, 2_00, null, at, 'r1');
/** The refund with its first attempt outstanding (recorded, unanswered). */
const attempted: Refund = { ...pending, status: RefundStatus.Processing, attemptCount: 1, attemptedAt: '2026-01-01T00:01:00.000Z' };
const state = (d: Decision<RefundOutcome>) => {
  if (isRefusal(d)) throw new Error(`refused: ${d.message}`);
  return d;
};

describe('a refund provider answering an attempt', () => {
  it("counts the provider's acceptance as the completion: paid out, the fee charged, the amount counted refunded", () => {
    const d = state(decideRefund({ refund: attempted }, { type: 'accepted', ledgerAccount: 'rail', providerReference: 'P1' }, at));
    expect(d.state.refund).toMatchObject({ status: RefundStatus.Completed, providerReference: 'P1', attemptedAt: null });
    expect(d.state.effect).toEqual({ reservedMinor: 0, refundedMinor: 40_00 });
    expect(d.journals.map((j) => [j.kind, j.delta])).toEqual([['refund.completed', { available: 0, held: { Refund: -42_00 } }]]);
    expect(d.events).toEqual([{ object: 'refund', id: 'r1', from: RefundStatus.Processing, to: RefundStatus.Completed }]);
  });

  it('changes nothing on an answer about another attempt than the outstanding one', () => {
    const earlier = { attemptCount: 1, attemptedAt: attempted.attemptedAt };
    const retried: Refund = { ...attempted, attemptCount: 2, attemptedAt: '2026-01-01T00:05:00.000Z' };
    for (const command of [
      { type: 'accepted' as const, ledgerAccount: 'rail', providerReference: null, asked: earlier },
      { type: 'complete' as const, ledgerAccount: 'rail', providerReference: null, asked: earlier },
      { type: 'fail' as const, failure: { kind: 'rejected' as const, reason: 'declined' }, asked: earlier },
    ])
      expect(decideRefund({ refund: retried }, command, at)).toMatchObject({ refused: 'invalid_status' });
    expect(refundOutstanding(retried, earlier)).toBe(false);
    expect(refundOutstanding(retried, retried)).toBe(true);
    expect(refundOutstanding({ ...retried, attemptedAt: null }, { ...retried, attemptedAt: null })).toBe(false);
    expect(
      state(decideRefund({ refund: retried }, { type: 'accepted', ledgerAccount: 'r', providerReference: null, asked: retried }, at)),
    ).toBeTruthy();
  });

  it('keeps a declined refund Processing while attempts remain (due again), and fails the last one', () => {
    const declined = { type: 'fail' as const, failure: { kind: 'rejected' as const, reason: 'declined' } };
    expect(state(decideRefund({ refund: attempted }, declined, at)).state.refund.status).toBe(RefundStatus.Processing);
    const last = state(decideRefund({ refund: { ...attempted, attemptCount: 3 } }, declined, at));
    expect(last.state.refund.status).toBe(RefundStatus.Failed);
    expect(last.state.effect).toEqual({ reservedMinor: -40_00, refundedMinor: 0 });
  });
});

describe("a refund's effect on its payment's counters", () => {
  const update = (effect: PaymentEffect) =>
    paymentCounterWrites('p1', effect, at).map((w) => {
      const u = (w as { Update: { UpdateExpression: string; ConditionExpression: string; ExpressionAttributeValues: object } }).Update;
      return { expression: u.UpdateExpression, condition: u.ConditionExpression, values: unmarshall(u.ExpressionAttributeValues as never) };
    });

  it('is what remains refundable, one rule for the request and the view', () => {
    expect(refundableMinor(intent)).toBe(70_00);
    expect(refundableMinor({ ...intent, refundReservedMinor: undefined })).toBe(100_00);
    expect(refundableMinor({ ...intent, status: 'Pending' })).toBe(0);
    const whole = { type: 'request' as const, id: 'r2', owner: pending, amountMinor: undefined, fee: { basisPoints: 0, fixedMinor: 0 } };
    expect(state(decideRefund({ refund: undefined, payment: intent }, { ...whole, reason: null }, at)).state.effect).toEqual({
      reservedMinor: 70_00,
      refundedMinor: 0,
      reservedAtMost: 30_00,
    });
  });

  it("writes the core's effect values: the reservation under its over-refund bound, the release, the refunded amount", () => {
    expect(update({ reservedMinor: 25_00, refundedMinor: 0, reservedAtMost: 75_00 })).toEqual([
      {
        expression: 'ADD #refundReservedMinor :refundReservedMinor',
        condition: '#status = :was_status AND (attribute_not_exists(#refundReservedMinor) OR #refundReservedMinor <= :atMost)',
        values: { ':refundReservedMinor': 25_00, ':was_status': 'Completed', ':atMost': 75_00 },
      },
    ]);
    expect(update({ reservedMinor: -40_00, refundedMinor: 0 })).toEqual([
      {
        expression: 'ADD #refundReservedMinor :refundReservedMinor',
        condition: '#refundReservedMinor >= :covered',
        values: { ':refundReservedMinor': -40_00, ':covered': 40_00 },
      },
    ]);
    expect(update({ reservedMinor: 0, refundedMinor: 40_00 })).toEqual([
      {
        expression: 'SET #updatedAt = :updatedAt ADD #refundedMinor :refundedMinor',
        condition: '#refundReservedMinor >= :covered',
        values: { ':updatedAt': at.toISOString(), ':refundedMinor': 40_00, ':covered': 40_00 },
      },
    ]);
    expect(update({ reservedMinor: 0, refundedMinor: 0 })).toEqual([]);
  });
});

describe("a refund's updatedAt", () => {
  it('never moves backwards: a decision whose clock is earlier than the stored updatedAt keeps it', () => {
    const stored: Refund = { ...attempted, updatedAt: '2026-01-01T00:10:00.000Z' };
    const d = state(decideRefund({ refund: stored }, { type: 'accepted', ledgerAccount: 'rail', providerReference: 'P1' }, at));
    expect(d.state.refund.updatedAt).toBe(stored.updatedAt);
    const later = new Date('2026-01-01T00:11:00.000Z');
    const e = state(decideRefund({ refund: stored }, { type: 'accepted', ledgerAccount: 'rail', providerReference: 'P1' }, later));
    expect(e.state.refund.updatedAt).toBe(later.toISOString());
  });
});

describe("a refund rail's capability, given to the request as data", () => {
  const request = {
    type: 'request' as const,
    id: 'r3',
    owner: pending,
    amountMinor: 10_00,
    fee: { basisPoints: 0, fixedMinor: 0 },
    reason: null,
  };
  const fresh = { ...intent, refundReservedMinor: 0 };
  const outcome = (payment: RefundableIntent, capability?: RefundCapability) => {
    const d = decideRefund({ refund: undefined, payment }, { ...request, capability }, at);
    return isRefusal(d) ? [d.refused, d.message] : d.state.effect.reservedMinor;
  };

  it('refunds in parts up to the payment when the rail refunds partially (or declares nothing)', () => {
    expect(outcome(intent)).toBe(10_00);
    expect(outcome(intent, { refundsAllowed: 'partial', provider: 'Sandbox' })).toBe(10_00);
  });

  it('refunds a payment once when the rail refunds once: a payment with an earlier refund is refused', () => {
    const once = { refundsAllowed: 'once', provider: 'JazzCash' } as const;
    expect(outcome(fresh, once)).toBe(10_00);
    expect(outcome(intent, once)).toEqual([
      'refund_provider_unavailable',
      'This payment already has a refund: JazzCash refunds a payment once (no partial refunds after a first one). ' +
        'Refund the rest from the JazzCash merchant portal.',
    ]);
  });

  it("a once-only rail's reservation is committed only on a payment with nothing reserved (two requests on one read)", () => {
    const once = { refundsAllowed: 'once', provider: 'JazzCash' } as const;
    const d = decideRefund({ refund: undefined, payment: fresh }, { ...request, capability: once }, at);
    expect(!isRefusal(d) && d.state.effect.reservedAtMost).toBe(0);
    const partial = decideRefund({ refund: undefined, payment: fresh }, request, at);
    expect(!isRefusal(partial) && partial.state.effect.reservedAtMost).toBe(fresh.amountMinor - 10_00);
  });

  it('refunds nothing when the rail has no refund for the payment', () => {
    expect(outcome(fresh, { refundsAllowed: 'none', provider: 'Easypaisa' })).toEqual([
      'refund_provider_unavailable',
      'Live refunds of Easypaisa payments are not available: Easypaisa publishes no refund API this gateway can use. ' +
        'Refund the customer from the Easypaisa merchant portal.',
    ]);
  });
});
