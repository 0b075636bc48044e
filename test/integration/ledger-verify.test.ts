import { randomUUID } from 'node:crypto';
import { UpdateItemCommand } from '@aws-sdk/client-dynamodb';
import { beforeAll, describe, expect, inject, it } from 'vitest';
import { routeList } from '#functions/routes.ts';
import { creditTestWallet } from '#shared/services/merchants.ts';
import { verifyLedger } from '#shared/services/ledger-verify.ts';
import { db, tableName as table, toItem, toValues } from '#shared/store/client.ts';
import { getIntent } from '#shared/store/intents.ts';
import * as keys from '#shared/store/keys.ts';
import { raiseShards } from '#shared/store/shards.ts';
import { ensureTable } from '../../scripts/local/dynamo.ts';
import { call, newMerchant, useGateway } from '../support/gateway.ts';
import { completedPayment } from '../support/money.ts';
import { useOps } from '../support/ops.ts';
import { shardBalances, shardItem } from '../support/shards.ts';

/**
 * `npm run ops -- ledger verify` (docs/ledger-verification.md) on this file's own table: green on a
 * ledger the product wrote, red (exit 1, one line per discrepancy) once a wallet item is corrupted.
 */
const tableName = `ledgerverify-${randomUUID().slice(0, 8)}`;
beforeAll(async () => {
  process.env.TABLE_NAME = tableName;
  await ensureTable(inject('dynamoEndpoint'), tableName);
});
const ops = useOps(() => tableName);

describe('ledger verify', () => {
  const gw = useGateway(routeList);

  it('passes on what the product wrote and fails with one line per discrepancy after a wallet is corrupted', async () => {
    const m = await newMerchant();
    const other = await newMerchant();
    await creditTestWallet(m.merchantId, 'test', 2000_00, 'PKR');
    await creditTestWallet(other.merchantId, 'test', 50_00, 'PKR');
    await completedPayment(m.merchantId, 'test', 150_00);
    const w = await call(gw.baseUrl, 'POST', '/Gateway/v1/Payment/withdraw', {
      key: m.test.apiKey,
      secret: m.test.secretKey,
      body: {
        amount: 300,
        currency: 'PKR',
        description: 'payout',
        autoProcessPayout: false,
        customerRef: { bankAccountNumber: 'PK36SCBL0000001123450000', bankCode: 'MEEZAN', accountTitle: 'Ayesha Khan' },
        orderRef: { orderRef: `LV${Date.now()}` },
      },
    });
    expect(w.status).toBe(200);

    const green = await ops('ledger', 'verify', '--json');
    expect('failed' in green).toBe(false);
    expect(green.json).toMatchObject({ scope: 'full', merchants: 2, discrepancies: [] });
    expect(green.json.journals).toBeGreaterThanOrEqual(4);
    const human = await ops('ledger', 'verify', '--merchant', m.merchantId, '--mode', 'test');
    expect(human.stdout).toMatch(/^OK: 1 ledger\(s\) of 1 merchant/m);

    // An operator "fixes" a balance by hand: the wallet no longer equals its journals.
    await db().send(
      new UpdateItemCommand({
        TableName: table(),
        Key: toItem(keys.wallet(m.merchantId, 'test', 'PKR')),
        UpdateExpression: 'ADD available :one',
        ExpressionAttributeValues: toValues({ ':one': 1 }),
      }),
    );
    const red = await ops('ledger', 'verify', '--mode', 'test');
    expect('failed' in red && red.code).toBe(1);
    const lines = red.stdout.trim().split('\n');
    expect(lines.filter((l) => l.includes(' wallet-fold '))).toEqual([
      expect.stringContaining(`${m.merchantId} test wallet-fold PKR: wallet PKR available is`),
    ]);
    expect(lines.at(-1)).toMatch(/^FAILED: .* 1 discrepancy/);
    // The other merchant alone is still fine.
    expect((await ops('ledger', 'verify', '--merchant', other.merchantId, '--json')).json.discrepancies).toEqual([]);

    // Incremental: only ledgers whose wallets changed in the window are read.
    const recent = await verifyLedger({ changedSince: new Date(Date.now() - 3600_000).toISOString() });
    expect(recent).toMatchObject({ scope: 'incremental', merchants: 2, ledgers: 2 });
    expect(recent.discrepancies.map((d) => d.rule)).toEqual(['wallet-fold']);
    expect((await verifyLedger({ changedSince: new Date(Date.now() + 60_000).toISOString() })).ledgers).toBe(0);
  }, 60_000);

  it('checks a sharded wallet shard by shard: a negative shard or held money on another shard than its journal records', async () => {
    const m = await newMerchant();
    await raiseShards(m.merchantId, 'test', 4, { immediate: true });
    for (let i = 0; i < 12; i++) await creditTestWallet(m.merchantId, 'test', 200_00, 'PKR');
    const w = await call(gw.baseUrl, 'POST', '/Gateway/v1/Payment/withdraw', {
      key: m.test.apiKey,
      secret: m.test.secretKey,
      body: {
        amount: 300,
        currency: 'PKR',
        description: 'payout',
        autoProcessPayout: false,
        customerRef: { bankAccountNumber: 'PK36SCBL0000001123450000', bankCode: 'MEEZAN', accountTitle: 'Ayesha Khan' },
        orderRef: { orderRef: `LVS${Date.now()}` },
      },
    });
    expect(w.status).toBe(200);
    const verify = async () => (await verifyLedger({ merchantId: m.merchantId, mode: 'test' })).discrepancies;
    expect(await verify()).toEqual([]);
    const held = (await getIntent(w.json.paymentIntentId))!.walletShard ?? 0;
    // Another shard that holds an item: the credits land on shards at random, so one may have none, and an ADD
    // to a shard never written makes a bare item the verifier rightly finds wrong in more ways than the one checked here.
    const written = [];
    for (let n = 1; n < 4; n++) if (Object.keys(await shardItem(m.merchantId, (held + n) % 4)).length > 0) written.push((held + n) % 4);
    expect(written.length, 'another shard was written').toBeGreaterThan(0);
    const other = written[0]!;
    const shard = (n: number) => toItem(keys.walletShard(m.merchantId, 'test', 'PKR', n));
    const add = (n: number, set: Record<string, number>) =>
      db().send(
        new UpdateItemCommand({
          TableName: table(),
          Key: shard(n),
          UpdateExpression: `ADD ${Object.keys(set)
            .map((_, i) => `#a${i} :v${i}`)
            .join(', ')}`,
          ExpressionAttributeNames: Object.fromEntries(Object.keys(set).map((a, i) => [`#a${i}`, a])),
          ExpressionAttributeValues: toValues(Object.fromEntries(Object.values(set).map((v, i) => [`:v${i}`, v]))),
        }),
      );

    // One shard taken to -100.00, another given the same: the total (and so wallet-fold) unchanged.
    const before = await shardBalances(m.merchantId, 4);
    await add(other, { available: -(before[other]! + 100_00) });
    await add(held, { available: before[other]! + 100_00 });
    const negative = await verify();
    expect(negative.map((d) => d.rule)).toEqual(['shard']);
    expect(negative[0]!.message).toBe(`wallet PKR shard ${other} available is negative (-10000)`);
    const red = await ops('ledger', 'verify', '--merchant', m.merchantId, '--mode', 'test');
    expect('failed' in red && red.code).toBe(1);
    expect(red.stdout).toContain(`${m.merchantId} test shard PKR: wallet PKR shard ${other} available is negative (-10000)`);
    await add(other, { available: before[other]! + 100_00 });
    await add(held, { available: -(before[other]! + 100_00) });
    expect(await verify()).toEqual([]);

    // The pending payout's held money moved to another shard than its hold journal records.
    const hold = (await shardItem(m.merchantId, held)).held_Withdrawal!;
    expect(hold).toBeGreaterThan(0);
    await add(held, { held: -hold, held_Withdrawal: -hold });
    await add(other, { held: hold, held_Withdrawal: hold });
    const moved = await verify();
    expect(moved.every((d) => d.rule === 'shard')).toBe(true);
    expect(moved.map((d) => d.message)).toEqual(
      expect.arrayContaining([
        `wallet PKR shard ${held} held_Withdrawal is 0, the journals that record shard ${held} add up to ${hold}`,
        `wallet PKR shard ${other} held_Withdrawal is ${hold}, the journals that record shard ${other} add up to 0`,
      ]),
    );
  }, 60_000);
});
