import { describe, expect, it } from 'vitest';
import { isRefusal, type Decision } from '#shared/domain/core/decision.ts';
import {
  decideAutoSettlement,
  decideSettlement,
  holdPositionAt,
  nextAutoSettlementRunAt,
  settlementOutstanding,
  type AutoSettlementMerchant,
  type SettlementCommand,
} from '#shared/domain/core/settlement.ts';
import { payoutOutstanding } from '#shared/domain/core/payout.ts';
import { payouts } from '#shared/services/withdrawals.ts';
import { SettlementStatus, type Settlement } from '#shared/domain/settlement.ts';

/** The settlement amounts and the FX lock, decided by the money core (shared/domain/core/settlement.ts). */
const at = new Date('2026-01-01T00:00:00.000Z');
const destination = { type: 'usdt' as const, address: 'TR7NHqjeKQxGTCi8q8ZY4pL8otSzgjLj6t', network: 'TRC20' as const };
const create = (amountMinor: number, quote?: { rate: string; at: string }): SettlementCommand => ({
  type: 'create',
  id: 's1',
  owner: { merchantId: 'm1', mode: 'test', traceId: 't' },
  input: { amountMinor, currency: 'PKR', payoutCurrency: 'USDT', destination },
  fee: { basisPoints: 100, fixedMinor: 10_00 },
  isAuto: false,
  ...(quote && { quote }),
  walletShard: 2,
});
const state = (d: Decision<Settlement>) => {
  if (isRefusal(d)) throw new Error(`refused: ${d.message}`);
  return d;
};
const rate = { rate: '0.0036', at: '2026-01-01T00:00:00.000Z' };

describe('a settlement created by the core', () => {
  it('takes its fee out of the amount and holds the whole amount on its wallet shard', () => {
    const d = state(decideSettlement(undefined, create(1_000_00), at));
    expect(d.state).toMatchObject({ amountMinor: 1_000_00, feeMinor: 20_00, netMinor: 980_00, payoutMinor: null, walletShard: 2 });
    expect(d.state).toMatchObject({ status: SettlementStatus.Pending, requestedAt: at.toISOString(), isAuto: false });
    expect(d.journals.map((j) => [j.kind, j.delta, j.walletShard])).toEqual([
      ['settlement.hold', { available: -1_000_00, held: { Settlement: 1_000_00 } }, 2],
    ]);
  });

  it('refuses an amount the fee takes whole, and a net that converts to nothing at the rate quoted', () => {
    expect(decideSettlement(undefined, create(10_00), at)).toEqual({
      refused: 'amount_too_small',
      message: 'The amount does not cover the settlement fee.',
    });
    expect(decideSettlement(undefined, create(12_00, { rate: '0.0000001', at: rate.at }), at)).toEqual({
      refused: 'amount_too_small',
      message: 'The net amount is too small to pay out in USDT.',
    });
    expect(isRefusal(decideSettlement(undefined, create(12_00, rate), at))).toBe(false);
  });
});

describe('approval locks the rate', () => {
  const pending = state(decideSettlement(undefined, create(1_000_00), at)).state;
  const later = new Date('2026-01-01T01:00:00.000Z');

  it('pays out the net converted at the rate quoted now, rounded down, stamped with the approval time', () => {
    const d = state(decideSettlement(pending, { type: 'approve', quote: rate }, later));
    // 980.00 PKR × 0.0036 = 3.528 USDT (6 decimals).
    expect(d.state).toMatchObject({ status: SettlementStatus.Approved, payoutMinor: 3_528_000, fxRate: '0.0036' });
    expect(d.state).toMatchObject({ fxRateTimestamp: later.toISOString(), approvedAt: later.toISOString() });
    expect(d.journals).toEqual([]);
  });

  it('refuses without a quote, and when the net pays out nothing at it; a settlement without conversion needs none', () => {
    expect(decideSettlement(pending, { type: 'approve' }, later)).toEqual({
      refused: 'fx_unavailable',
      message: 'No exchange rate is available for PKR to USDT now; try again later or reject.',
    });
    expect(decideSettlement(pending, { type: 'approve', quote: { rate: '0.000000001', at: rate.at } }, later)).toEqual({
      refused: 'amount_too_small',
      message: 'At the current rate the net amount pays out nothing in USDT; reject it.',
    });
    const local = { ...pending, payoutCurrency: 'PKR' as const, payoutMinor: pending.netMinor };
    expect(state(decideSettlement(local, { type: 'approve' }, later)).state).toMatchObject({ payoutMinor: 980_00, fxRate: null });
  });
});

describe('a due automatic-settlement run', () => {
  const destination = { bankName: 'Meezan', iban: 'PK36SCBL0000001123456702', accountTitle: 'Ayesha' };
  const schedule = { frequency: 'daily' as const, dayOfPeriod: null, hourUtc: 2, minimumBalanceMinor: 100_00, destination };
  const merchant = {
    status: 'active',
    settlementSchedule: schedule,
    defaultCurrency: 'PKR',
    fees: { settlement: { basisPoints: 0, fixedMinor: 10_00 } },
  };
  const run = { merchantId: 'm1', mode: 'test' as const, runAt: '2026-01-01T02:00:00.000Z', id: 's-auto' };
  const auto = (over: object, available = 1_000_00, rail = true) =>
    decideAutoSettlement(run, { ...merchant, ...over } as AutoSettlementMerchant, available, rail, at);

  it('settles all that is above the minimum kept, to the bank account, in the merchant currency, and runs again next day', () => {
    const { create, nextRunAt } = auto({});
    expect(nextRunAt).toBe('2026-01-01T02:00:00.000Z');
    expect(create).toMatchObject({ type: 'create', id: 's-auto', isAuto: true, owner: { traceId: `autosettle-${run.runAt}` } });
    expect(create?.input).toEqual({
      amountMinor: 900_00,
      currency: 'PKR',
      payoutCurrency: 'PKR',
      destination: { type: 'bank', ...destination },
    });
  });

  it('settles nothing for a suspended merchant, without a bank account or a rail, or when the fee takes it all', () => {
    expect(auto({ status: 'suspended' }).create).toBeUndefined();
    expect(auto({ settlementSchedule: { ...schedule, destination: null } }).create).toBeUndefined();
    expect(auto({}, 1_000_00, false).create).toBeUndefined();
    expect(auto({}, 110_00).create).toBeUndefined();
    expect(auto({}, 110_01).create?.input.amountMinor).toBe(10_01);
    expect(auto({ settlementSchedule: { ...schedule, frequency: 'manual' } })).toMatchObject({ nextRunAt: null });
  });

  it("computes the next run once (nextAutoSettlementRunAt: the run's, the schedule page's and the operator's arming)", () => {
    const after = new Date('2026-01-01T02:00:00.001Z');
    expect(nextAutoSettlementRunAt(schedule, after)).toBe('2026-01-02T02:00:00.000Z');
    expect(nextAutoSettlementRunAt({ ...schedule, frequency: 'weekly', dayOfPeriod: 1 }, after)).toBe('2026-01-05T02:00:00.000Z');
    expect(nextAutoSettlementRunAt({ ...schedule, frequency: 'manual' }, after)).toBeNull();
    expect(decideAutoSettlement(run, merchant as AutoSettlementMerchant, 0, true, after).nextRunAt).toBe('2026-01-02T02:00:00.000Z');
  });
});

describe("a rail's answer is about the outstanding submission only while it is Processing (written once in the core)", () => {
  it('a settlement: Processing only; Approved (not yet submitted) and the final statuses are not outstanding', () => {
    const pending = state(decideSettlement(undefined, create(1_000_00), at)).state;
    const outstanding = Object.values(SettlementStatus).filter((status) => settlementOutstanding({ ...pending, status }));
    expect(outstanding).toEqual([SettlementStatus.Processing]);
  });

  it('a payout: Processing only, and the payout product of the outbound engine asks the core', () => {
    const statuses = ['Pending', 'Processing', 'Completed', 'Failed', 'Cancelled'] as const;
    expect(statuses.filter((status) => payoutOutstanding({ status }))).toEqual(['Processing']);
    expect(payouts.outstanding).toBe(payoutOutstanding);
  });
});

describe("a settlement rail's acceptance (core: accepted)", () => {
  const pending = state(decideSettlement(undefined, create(1_000_00), at)).state;
  const processing: Settlement = { ...pending, status: SettlementStatus.Processing, submittedAt: at.toISOString(), version: 3 };
  const later = new Date('2026-01-01T00:05:00.000Z');
  const accepted = { type: 'accepted' as const, railReference: 'BANK-7' };

  it('records the rail reference of an outstanding submission; the status stays, nothing moves', () => {
    const d = state(decideSettlement(processing, accepted, later));
    expect(d.state).toEqual({ ...processing, railReference: 'BANK-7', version: 4, updatedAt: later.toISOString() });
    expect([d.journals, d.events]).toEqual([[], []]);
  });

  it('keeps a reference recorded first, and changes nothing unless the submission is outstanding', () => {
    const referenced = { ...processing, railReference: 'INQ-1' };
    expect(decideSettlement(referenced, accepted, later)).toMatchObject({ refused: 'unchanged' });
    for (const status of [SettlementStatus.Approved, SettlementStatus.Completed, SettlementStatus.Failed])
      expect(decideSettlement({ ...processing, status }, accepted, later)).toMatchObject({ refused: 'invalid_status' });
  });
});

describe("a new settlement's hold position (holdPositionAt: its cut-off)", () => {
  const now = new Date('2026-01-01T00:05:00.000Z');
  it('is now after the previous cut-off or without one, else the ms after the previous one (a clock behind it)', () => {
    expect(holdPositionAt(undefined, now)).toEqual(now);
    expect(holdPositionAt('2026-01-01T00:04:59.999Z', now)).toEqual(now);
    expect(holdPositionAt('2026-01-01T00:05:00.000Z', now).toISOString()).toBe('2026-01-01T00:05:00.001Z');
    expect(holdPositionAt('2026-01-01T00:07:00.000Z', now).toISOString()).toBe('2026-01-01T00:07:00.001Z');
  });
});
