import { UpdateItemCommand } from '@aws-sdk/client-dynamodb';
import { describe, expect, it } from 'vitest';
import { routeList } from '#functions/routes.ts';
import { paymentsPage } from '#shared/services/dashboard.ts';
import { db, tableName, toItem } from '#shared/store/client.ts';
import * as keys from '#shared/store/keys.ts';
import { newMerchant, useGateway } from '../support/gateway.ts';
import { changeStatus, seedIntent } from '../support/intents.ts';
import { useOps } from '../support/ops.ts';

/**
 * Dashboard search by the beginning of a reference (shared/store/reference-index.ts, docs/access-patterns.md
 * 13h-13i) on DynamoDB Local: orderRef, transaction reference and payment id, case-insensitive, through the
 * index keys of the pointers written with the intent (never a Scan), scoped to the merchant and mode, and
 * `ops migrate-reference-index` for payments created before it.
 */
describe('reference prefix search (dashboard payments)', () => {
  useGateway(routeList);
  const ops = useOps();
  const ids = (page: { items: { paymentIntentId: string }[] }) => page.items.map((t) => t.paymentIntentId).sort();
  const ref = (orderRef: string) => ({ orderRef, discount: null, tax: null });

  it('finds payments whose orderRef, transaction reference or payment id begins with the text, in this merchant and mode', async () => {
    const m = await newMerchant();
    const other = await newMerchant();
    const a1 = await seedIntent(m.merchantId, 'test', { orderRef: ref('SHOPA1001'), transactionReference: 'chk_7f3a01' });
    const a2 = await seedIntent(m.merchantId, 'test', { orderRef: ref('ShopA1002'), transactionReference: 'chk_7f3b02' });
    const b = await seedIntent(m.merchantId, 'test', { orderRef: ref('SHOPB2001'), transactionReference: 'chk_99aa03' });
    const theirs = await seedIntent(other.merchantId, 'test', { orderRef: ref('SHOPA1003') });
    const live = await seedIntent(m.merchantId, 'live', { orderRef: ref('SHOPA1004') });
    await changeStatus(a2.paymentIntentId, () => ({ to: 'Completed' }));

    // orderRef prefixes, any case; the exact value still finds its payment.
    expect(ids(await paymentsPage(m.merchantId, 'test', { search: 'shopa' }))).toEqual([a1, a2].map((i) => i.paymentIntentId).sort());
    expect(ids(await paymentsPage(m.merchantId, 'test', { search: 'SHOP' }))).toEqual([a1, a2, b].map((i) => i.paymentIntentId).sort());
    expect(ids(await paymentsPage(m.merchantId, 'test', { search: 'SHOPA1001' }))).toEqual([a1.paymentIntentId]);
    // The filters apply to the hits.
    expect(ids(await paymentsPage(m.merchantId, 'test', { search: 'shopa', status: 'Completed' }))).toEqual([a2.paymentIntentId]);
    // Transaction reference prefixes.
    expect(ids(await paymentsPage(m.merchantId, 'test', { search: 'CHK_7F3' }))).toEqual([a1, a2].map((i) => i.paymentIntentId).sort());
    // Payment id prefixes (8 characters of a UUID are enough to tell it apart).
    expect(ids(await paymentsPage(m.merchantId, 'test', { search: b.paymentIntentId.slice(0, 8).toUpperCase() }))).toEqual([
      b.paymentIntentId,
    ]);
    // Other merchants and the other mode stay out.
    expect(ids(await paymentsPage(m.merchantId, 'test', { search: 'shopa100' }))).not.toContain(theirs.paymentIntentId);
    expect(ids(await paymentsPage(m.merchantId, 'test', { search: 'shopa100' }))).not.toContain(live.paymentIntentId);
    expect(ids(await paymentsPage(m.merchantId, 'live', { search: 'shopa' }))).toEqual([live.paymentIntentId]);
    expect(ids(await paymentsPage(other.merchantId, 'test', { search: 'shopa' }))).toEqual([theirs.paymentIntentId]);
    expect(ids(await paymentsPage(m.merchantId, 'test', { search: 'shopc' }))).toEqual([]);
  });

  it('shows one page of hits and says when more references begin with the text', async () => {
    const m = await newMerchant();
    for (let i = 0; i < 4; i++) await seedIntent(m.merchantId, 'test', { orderRef: ref(`BULK${i}`) });
    const capped = await paymentsPage(m.merchantId, 'test', { search: 'bulk' }, 3);
    expect(capped.items).toHaveLength(3);
    expect(capped.moreReferences).toBe(true);
    const all = await paymentsPage(m.merchantId, 'test', { search: 'bulk' }, 4);
    expect(all.items).toHaveLength(4);
    expect(all.moreReferences).toBeUndefined();
  });

  it('ops migrate-reference-index indexes payments created before the prefix search; re-running changes nothing', async () => {
    const m = await newMerchant();
    const old = await seedIntent(m.merchantId, 'test', { orderRef: ref('LEGACY77'), transactionReference: 'legacyTx77' });
    // As written before the prefix search existed: pointers without index keys.
    for (const key of [keys.orderRef('test', m.merchantId, 'LEGACY77'), keys.transactionReference('test', m.merchantId, 'legacyTx77')])
      await db().send(
        new UpdateItemCommand({ TableName: tableName(), Key: toItem(key), UpdateExpression: 'REMOVE GSI1PK, GSI1SK, GSI3PK, GSI3SK' }),
      );
    expect(ids(await paymentsPage(m.merchantId, 'test', { search: 'legacy' }))).toEqual([]);
    expect(ids(await paymentsPage(m.merchantId, 'test', { search: 'LEGACY77' }))).toEqual([old.paymentIntentId]); // exact: the pointer

    const run = await ops('migrate-reference-index', '--json');
    expect(run.json, run.stderr).toMatchObject({ updated: expect.any(Number) });
    expect(run.json.updated).toBeGreaterThanOrEqual(2);
    expect(ids(await paymentsPage(m.merchantId, 'test', { search: 'legacy' }))).toEqual([old.paymentIntentId]);
    expect(ids(await paymentsPage(m.merchantId, 'test', { search: 'LEGACYTX' }))).toEqual([old.paymentIntentId]);
    expect(ids(await paymentsPage(m.merchantId, 'test', { search: old.paymentIntentId.slice(0, 13) }))).toEqual([old.paymentIntentId]);
    const again = await ops('migrate-reference-index');
    expect(again.stdout).toMatch(/Indexed \d+ reference\(s\)/);
  });
});
