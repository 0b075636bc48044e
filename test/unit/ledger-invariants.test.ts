import { describe, expect, it } from 'vitest';
import { checkLedger, type LedgerSnapshot } from '#shared/domain/ledger-invariants.ts';
import { holdFunds, journal, releaseHold } from '#shared/domain/ledger.ts';
import { RefundStatus, type Refund } from '#shared/domain/refund.ts';
import type { PaymentIntent } from '#shared/domain/intent.ts';

/** The verifier's rules on hand-built ledgers: each broken rule is reported, a sound ledger is not. */
const merchantId = 'm1';
const scope = (reference: string) => ({ merchantId, mode: 'test' as const, currency: 'PKR' as const, reference });
const checkoutCompleted = (id: string, amount: number, fee: number) =>
  journal({
    ...scope(id),
    kind: 'checkout.completed',
    movements: [
      { account: { kind: 'external', name: 'card_network' }, amount: -amount },
      { account: { kind: 'available' }, amount: amount - fee },
      { account: { kind: 'fees' }, amount: fee },
    ],
  }).journal;
const intent = (over: Partial<PaymentIntent> & { refundReservedMinor?: number }) =>
  ({
    paymentIntentId: 'pi1',
    merchantId,
    mode: 'test',
    intentType: 'checkout',
    status: 'Completed',
    amountMinor: 1000,
    currency: 'PKR',
    feeMinor: 30,
    refundedMinor: 0,
    ...over,
  }) as PaymentIntent;
const refund = (over: Partial<Refund>) =>
  ({
    id: 'r1',
    paymentIntentId: 'pi1',
    merchantId,
    mode: 'test',
    amountMinor: 400,
    feeMinor: 0,
    currency: 'PKR',
    status: RefundStatus.Pending,
    ...over,
  }) as Refund;

function snapshot(over: Partial<LedgerSnapshot> = {}): LedgerSnapshot {
  return {
    merchantId,
    mode: 'test',
    wallets: [{ currency: 'PKR', available: 970, held: 0, held_Withdrawal: 0, held_Settlement: 0, held_Refund: 0 }],
    journals: [checkoutCompleted('pi1', 1000, 30)],
    intents: [intent({})],
    settlements: [],
    refunds: [],
    ...over,
  };
}
const rules = (s: LedgerSnapshot) => checkLedger(s).map((d) => `${d.rule} ${d.subject}`);

describe('ledger invariants', () => {
  it('finds nothing wrong with a sound ledger', () => {
    expect(checkLedger(snapshot())).toEqual([]);
  });

  it('reports a wallet that differs from its journals, and a negative balance', () => {
    expect(rules(snapshot({ wallets: [{ currency: 'PKR', available: 971 }] }))).toEqual(['wallet-fold PKR']);
    const negative = snapshot({ wallets: [{ currency: 'PKR', available: -5 }], journals: [], intents: [] });
    expect(rules(negative)).toEqual(['wallet-fold PKR', 'negative PKR']);
  });

  it('reports an unbalanced journal', () => {
    const bad = checkoutCompleted('pi1', 1000, 30);
    bad.lines[0]!.amount = -999;
    expect(rules(snapshot({ journals: [bad] }))).toContain(`zero-sum ${bad.journalId}`);
  });

  it('reports a Completed checkout credited twice or never, and a fee that does not match', () => {
    expect(
      rules(
        snapshot({
          journals: [checkoutCompleted('pi1', 1000, 30), checkoutCompleted('pi1', 1000, 30)],
          wallets: [{ currency: 'PKR', available: 1940 }],
        }),
      ),
    ).toEqual(['fees PKR', 'journals pi1']);
    expect(rules(snapshot({ journals: [], wallets: [] }))).toEqual(['fees PKR', 'journals pi1']);
    expect(rules(snapshot({ intents: [intent({ feeMinor: 31 })] }))).toEqual(['fees PKR']);
  });

  it('reports a Failed withdrawal whose hold was never released', () => {
    const w = intent({ paymentIntentId: 'w1', intentType: 'withdrawal', status: 'Failed', amountMinor: 200, feeMinor: 0 });
    const hold = holdFunds(scope('w1'), 'Withdrawal', 200, 'withdrawal.hold').journal;
    const wallets = [{ currency: 'PKR', available: 770, held: 200, held_Withdrawal: 200 }];
    expect(rules(snapshot({ intents: [intent({}), w], journals: [checkoutCompleted('pi1', 1000, 30), hold], wallets }))).toEqual([
      'journals w1',
    ]);
    const released = releaseHold(scope('w1'), 'Withdrawal', 200, 'withdrawal.released').journal;
    expect(rules(snapshot({ intents: [intent({}), w], journals: [checkoutCompleted('pi1', 1000, 30), hold, released] }))).toEqual([]);
  });

  it('reports refunded and reserved amounts that do not match the refunds, and journals naming nothing', () => {
    const done = refund({ status: RefundStatus.Completed });
    const holdR = holdFunds(scope('r1'), 'Refund', 400, 'refund.hold').journal;
    const paid = journal({
      ...scope('r1'),
      kind: 'refund.completed',
      movements: [
        { account: { kind: 'held', holdType: 'Refund' }, amount: -400 },
        { account: { kind: 'external', name: 'card_network' }, amount: 400 },
      ],
    }).journal;
    const journals = [checkoutCompleted('pi1', 1000, 30), holdR, paid];
    const wallets = [{ currency: 'PKR', available: 570 }];
    expect(
      rules(snapshot({ journals, wallets, refunds: [done], intents: [intent({ refundedMinor: 400, refundReservedMinor: 400 })] })),
    ).toEqual([]);
    expect(
      rules(snapshot({ journals, wallets, refunds: [done], intents: [intent({ refundedMinor: 0, refundReservedMinor: 400 })] })),
    ).toEqual(['refunds pi1']);
    expect(rules(snapshot({ journals, wallets, refunds: [], intents: [intent({})] }))).toEqual(['orphan r1', 'orphan r1']);
  });
});
