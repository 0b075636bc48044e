import { describe, expect, it } from 'vitest';
import { getWallet, listJournals } from '#shared/store/wallets.ts';
import { newMerchant } from '../support/gateway.ts';
import { useOps } from '../support/ops.ts';

const ops = useOps();

describe('operator commands that are retried or race', () => {
  it('ops wallet credit --reference credits once, however often (or concurrently) it is retried', async () => {
    const m = await newMerchant();
    const credit = (amount: string, reference = 'topup-1') =>
      ops('wallet', 'credit', '--merchant', m.merchantId, '--mode', 'test', '--amount', amount, '--reference', reference, '--json');
    const runs = await Promise.all([credit('100'), credit('100'), credit('100')]);
    for (const r of runs) expect(r.json, r.stderr).toMatchObject({ credited: 100, reference: 'topup-1' });
    expect(runs.filter((r) => r.json.alreadyCredited === false)).toHaveLength(1);
    const retry = await credit('100');
    expect(retry.json).toMatchObject({ alreadyCredited: true, journalId: runs.find((r) => !r.json.alreadyCredited)!.json.journalId });
    const different = await credit('250');
    expect(different).toHaveProperty('failed', true);
    expect(`${different.stdout}${different.stderr}`).toMatch(/already credited/);
    expect((await credit('5', 'topup-2')).json).toMatchObject({ alreadyCredited: false });
    expect(await listJournals(m.merchantId, 'test')).toHaveLength(2);
    expect((await getWallet(m.merchantId, 'test', 'PKR', true)).available).toBe(10_500);
  });
});
