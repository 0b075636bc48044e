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

describe('concurrent merchant changes (versioned read-modify-write)', () => {
  it('10 concurrent fee changes all take effect', async () => {
    const { setFee } = await import('#shared/services/merchants.ts');
    const { getMerchant } = await import('#shared/store/merchants.ts');
    const m = await newMerchant();
    const products = ['checkout', 'deposit', 'withdrawal', 'settlement', 'refund'] as const;
    const changes = Array.from({ length: 10 }, (_, i) => ({ product: products[i % 5]!, basisPoints: 100 + i }));
    await Promise.all(changes.map((c) => setFee(m.merchantId, c.product, { basisPoints: c.basisPoints, fixedMinor: 0 })));
    const after = (await getMerchant(m.merchantId, true))!;
    expect(after.version).toBe(10);
    for (const product of products) {
      expect([100, 105].map((b) => b + products.indexOf(product))).toContain(after.fees[product].basisPoints);
    }
  });

  it('10 concurrent webhook-secret rotations: every printed secret signs deliveries', async () => {
    const { rotateWebhookSecret } = await import('#shared/webhooks/secrets.ts');
    const { getMerchant, webhookSecretAssociatedData } = await import('#shared/store/merchants.ts');
    const { masterKey, open } = await import('#shared/crypto/seal.ts');
    const m = await newMerchant({ name: 'Rotating', webhookUrl: 'http://127.0.0.1:4999/hook', allowInsecureWebhooks: true });
    const printed = await Promise.all(Array.from({ length: 10 }, () => rotateWebhookSecret(m.merchantId, 'test')));
    const endpoint = (await getMerchant(m.merchantId, true))!.webhooks.test!;
    const key = await masterKey();
    const signing = endpoint.secrets
      .filter((s) => s.expiresAt === null || Date.parse(s.expiresAt) > Date.now())
      .map((s) => open(key, s.sealed, webhookSecretAssociatedData(m.merchantId, 'test')));
    for (const r of printed) expect(signing).toContain(r.webhookSecret);
  });

  it('the CLI: concurrent `ops merchant fee` commands all exit 0 and all take effect', async () => {
    const m = await newMerchant();
    const products = ['checkout', 'deposit', 'withdrawal', 'settlement', 'refund'];
    const runs = await Promise.all(
      products.map((p, i) => ops('merchant', 'fee', '--merchant', m.merchantId, '--product', p, '--bps', String(200 + i), '--json')),
    );
    for (const r of runs) expect(r, r.stdout).not.toHaveProperty('failed');
    const { getMerchant } = await import('#shared/store/merchants.ts');
    const fees = (await getMerchant(m.merchantId, true))!.fees;
    expect(products.map((p) => fees[p as keyof typeof fees].basisPoints)).toEqual([200, 201, 202, 203, 204]);
  });
});
