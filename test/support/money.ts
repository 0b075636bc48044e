import { expect } from 'vitest';
import type { Mode } from '#shared/domain/credentials.ts';
import { draft } from '#shared/domain/core/decision.ts';
import type { Currency } from '#shared/domain/money.ts';
import { changeStatus } from './intents.ts';
import { getWallet, listJournals } from '#shared/store/wallets.ts';
import { seedIntent } from './intents.ts';

/** A Completed checkout (or deposit) of `amountMinor` whose amount was credited to the wallet. */
export async function completedPayment(
  merchantId: string,
  mode: Mode,
  amountMinor: number,
  options: { intentType?: 'checkout' | 'deposit' | 'withdrawal'; currency?: Currency; feeMinor?: number; now?: () => Date } = {},
) {
  const fee = options.feeMinor ?? 0;
  const intent = await seedIntent(merchantId, mode, {
    amountMinor,
    intentType: options.intentType ?? 'checkout',
    currency: options.currency ?? 'PKR',
  });
  // The journal's time: asked at each decision (a lost race or a settlement's cut-off decides again).
  const done = await changeStatus(
    intent.paymentIntentId,
    (current) => ({
      to: current.intentType === 'withdrawal' ? 'Failed' : 'Completed',
      ...(current.intentType === 'withdrawal'
        ? {}
        : {
            feeMinor: fee,
            journals: [
              draft(`${current.intentType}.completed`, current.paymentIntentId, [
                { account: { kind: 'external', name: 'card_network' }, amount: -current.amountMinor },
                { account: { kind: 'available' }, amount: current.amountMinor - fee },
                { account: { kind: 'fees' }, amount: fee },
              ]),
            ],
          }),
    }),
    options.now,
  );
  expect(done.changed).toBe(true);
  return intent;
}

/**
 * The ledger adds up: every journal sums to zero, and the wallet's materialised balances equal
 * the sums of the journal lines of its accounts. Returns the per-account sums (minor units).
 */
export async function expectLedgerConsistent(merchantId: string, mode: Mode, currency: Currency = 'PKR') {
  const journals = (await listJournals(merchantId, mode)).filter((j) => j.currency === currency);
  const sums: Record<string, number> = {};
  for (const j of journals) {
    expect(
      j.lines.reduce((s, l) => s + l.amount, 0),
      j.kind,
    ).toBe(0);
    for (const l of j.lines) sums[l.account] = (sums[l.account] ?? 0) + l.amount;
  }
  const wallet = await getWallet(merchantId, mode, currency, true);
  const at = (name: string) => sums[`merchant:${merchantId}:${name}`] ?? 0;
  expect(wallet.available).toBe(at('available'));
  expect(wallet.heldByType.Settlement).toBe(at('held:Settlement'));
  expect(wallet.heldByType.Refund).toBe(at('held:Refund'));
  expect(wallet.held).toBe(at('held:Settlement') + at('held:Refund') + at('held:Withdrawal'));
  return { sums, wallet, external: (name: string) => sums[`external:${name}`] ?? 0, fees: sums['platform:fees'] ?? 0 };
}
