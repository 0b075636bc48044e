import { UpdateItemCommand } from '@aws-sdk/client-dynamodb';
import { describe, expect, it } from 'vitest';
import { setStatus } from '#shared/services/merchants.ts';
import { db, tableName, toItem, toValues } from '#shared/store/client.ts';
import * as keys from '#shared/store/keys.ts';
import { getMerchantCached } from '#shared/store/merchants.ts';
import { newMerchant } from '../support/gateway.ts';

/**
 * The per-process merchant profile cache of the hot paths (hosted page, payment forms, webhook
 * dispatcher; docs/scaling.md): an entry serves for at most its age bound, a change made through
 * changeMerchant in this process drops it at once.
 */
describe('merchant profile cache', () => {
  /** A change made by another process: a plain write of the profile item, behind this process's cache. */
  const renameElsewhere = (merchantId: string, name: string) =>
    db().send(
      new UpdateItemCommand({
        TableName: tableName(),
        Key: toItem(keys.merchant(merchantId)),
        UpdateExpression: 'SET #name = :name',
        ExpressionAttributeNames: { '#name': 'name' },
        ExpressionAttributeValues: toValues({ ':name': name }),
      }),
    );

  it('serves a cached profile within its age bound and reads again past it', async () => {
    const m = await newMerchant();
    const first = (await getMerchantCached(m.merchantId))!;
    await renameElsewhere(m.merchantId, 'Renamed elsewhere');
    expect((await getMerchantCached(m.merchantId, 60_000))!.name).toBe(first.name);
    expect((await getMerchantCached(m.merchantId, 0))!.name).toBe('Renamed elsewhere');
    expect((await getMerchantCached(m.merchantId, 60_000))!.name).toBe('Renamed elsewhere');
  });

  it('drops the entry when the merchant changes through changeMerchant in this process', async () => {
    const m = await newMerchant();
    expect((await getMerchantCached(m.merchantId, 60_000))!.status).toBe('active');
    await setStatus(m.merchantId, 'suspended');
    expect((await getMerchantCached(m.merchantId, 60_000))!.status).toBe('suspended');
    await setStatus(m.merchantId, 'active');
    expect((await getMerchantCached(m.merchantId, 60_000))!.status).toBe('active');
  });
});
