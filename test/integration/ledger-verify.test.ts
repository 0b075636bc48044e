import { randomUUID } from 'node:crypto';
import { UpdateItemCommand } from '@aws-sdk/client-dynamodb';
import { beforeAll, describe, expect, inject, it } from 'vitest';
import { routeList } from '#functions/routes.ts';
import { creditTestWallet } from '#shared/services/merchants.ts';
import { verifyLedger } from '#shared/services/ledger-verify.ts';
import { db, tableName as table, toItem, toValues } from '#shared/store/client.ts';
import * as keys from '#shared/store/keys.ts';
import { ensureTable } from '../../scripts/local/dynamo.ts';
import { call, newMerchant, useGateway } from '../support/gateway.ts';
import { completedPayment } from '../support/money.ts';
import { useOps } from '../support/ops.ts';

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
});
