import { describe, expect, it } from 'vitest';
import { journal } from '#shared/domain/ledger.ts';
import { creditTestWallet } from '#shared/services/merchants.ts';
import { transact, TransactionFailed } from '#shared/store/client.ts';
import { getWallet, listJournals, postJournal, walletWriteIndex } from '#shared/store/wallets.ts';
import { newMerchant } from '../support/gateway.ts';

const hold = (merchantId: string, amount: number) =>
  journal({
    merchantId,
    mode: 'test',
    currency: 'PKR',
    kind: 'withdrawal.hold',
    reference: 'w',
    movements: [
      { account: { kind: 'available' }, amount: -amount },
      { account: { kind: 'held', holdType: 'Withdrawal' }, amount },
    ],
  });

describe('ledger on DynamoDB Local', () => {
  it('never lets concurrent debits overdraw the wallet', async () => {
    const m = await newMerchant();
    await creditTestWallet(m.merchantId, 'test', 1000_00, 'PKR');
    const attempts = await Promise.allSettled(Array.from({ length: 30 }, () => transact(postJournal(hold(m.merchantId, 100_00)))));
    const accepted = attempts.filter((a) => a.status === 'fulfilled').length;
    expect(accepted).toBe(10);
    for (const a of attempts) {
      if (a.status === 'rejected') {
        expect(a.reason).toBeInstanceOf(TransactionFailed);
        expect((a.reason as TransactionFailed).failedAt(walletWriteIndex)).toBe(true);
      }
    }
    const wallet = await getWallet(m.merchantId, 'test', 'PKR', true);
    expect(wallet).toMatchObject({
      available: 0,
      held: 1000_00,
      pendingCount: 10,
      heldByType: { Withdrawal: 1000_00, Settlement: 0, Refund: 0 },
    });
  });

  it('writes journals whose lines sum to zero, and balances equal the sum of the journals', async () => {
    const m = await newMerchant();
    await creditTestWallet(m.merchantId, 'test', 500_00, 'PKR');
    await transact(postJournal(hold(m.merchantId, 200_00)));
    const journals = await listJournals(m.merchantId, 'test');
    expect(journals.length).toBe(2);
    const byAccount = new Map<string, number>();
    for (const j of journals) {
      expect(j.lines.reduce((s, l) => s + l.amount, 0)).toBe(0);
      for (const l of j.lines) byAccount.set(l.account, (byAccount.get(l.account) ?? 0) + l.amount);
    }
    const wallet = await getWallet(m.merchantId, 'test', 'PKR', true);
    expect(byAccount.get(`merchant:${m.merchantId}:available`)).toBe(wallet.available);
    expect(byAccount.get(`merchant:${m.merchantId}:held:Withdrawal`)).toBe(wallet.held);
    expect([...byAccount.values()].reduce((s, v) => s + v, 0)).toBe(0);
  });

  it('refuses a debit from a wallet that does not exist yet', async () => {
    const m = await newMerchant();
    await expect(transact(postJournal(hold(m.merchantId, 1)))).rejects.toBeInstanceOf(TransactionFailed);
    expect(await listJournals(m.merchantId, 'test')).toEqual([]);
  });
});
