import { randomUUID } from 'node:crypto';
import { beforeAll, describe, expect, inject, it } from 'vitest';
import { routeList } from '#functions/routes.ts';
import { armFault } from '#shared/faults.ts';
import { sandboxSubmissionCount } from '#shared/providers/bank-rail.ts';
import { processDue } from '#shared/services/due.ts';
import { verifyLedger } from '#shared/services/ledger-verify.ts';
import { creditTestWallet, setFee } from '#shared/services/merchants.ts';
import { listEvents } from '#shared/store/intents.ts';
import { getWallet } from '#shared/store/wallets.ts';
import { ensureTable } from '../../scripts/local/dynamo.ts';
import { call, newMerchant, useGateway, type TestMerchant } from '../support/gateway.ts';

/**
 * Fault points (shared/faults.ts) in the automatic withdrawal flow: the request, then the due
 * sweeper's passes. For n = 1, 2, … the run crashes at the n-th fault point it reaches (after a
 * commit, before a bank rail call, after its answer), until a run reaches no n-th point. After each
 * crash: recovery as in production (the merchant looks the payout up by its reference and re-sends
 * only if nothing was created; the sweeper keeps running with time moving on, past the NotFound
 * grace period). Then: exactly one payout, submitted to the bank at most once; Completed if the bank
 * received it, else (a crash between recording the submission and calling the bank) Failed with
 * the funds released; the hold gone, one outbox event per status, and the ledger verifier finds
 * nothing.
 */
const tableName = `faults-${randomUUID().slice(0, 8)}`;
beforeAll(async () => {
  process.env.TABLE_NAME = tableName;
  await ensureTable(inject('dynamoEndpoint'), tableName);
});

const amount = 500_00;

describe('fault points: automatic withdrawal', () => {
  const gw = useGateway(routeList);
  const send = (m: TestMerchant, orderRef: string, account: string) =>
    call(gw.baseUrl, 'POST', '/Gateway/v1/Payment/withdraw', {
      key: m.test.apiKey,
      secret: m.test.secretKey,
      body: { amount: amount / 100, currency: 'PKR', description: 'Payout', autoProcessPayout: true, customerRef: { bankAccountNumber: `PK36SCBL000000112345${account}`, bankCode: 'MEEZAN', accountTitle: 'Ayesha Khan' }, orderRef: { orderRef } },
    });
  const lookup = (m: TestMerchant, orderRef: string) => call(gw.baseUrl, 'GET', `/Gateway/v1/Transaction/by-ref/${orderRef}`, { key: m.test.apiKey });
  const sweeps = async (id: () => string | undefined) => {
    for (const seconds of [15, 45, 120, 300, 16 * 60]) {
      const only = id();
      await processDue(new Date(Date.now() + seconds * 1000), (i) => i.paymentIntentId === only).catch(() => undefined);
    }
  };

  it.each(['0000', '2222'])('recovers from a crash at every fault point (bank account …%s)', async (account) => {
    const covered: string[] = [];
    const notReceived: string[] = [];
    for (let n = 1; n < 40; n++) {
      const m = await newMerchant();
      await setFee(m.merchantId, 'withdrawal', { basisPoints: 0, fixedMinor: 0 });
      await creditTestWallet(m.merchantId, 'test', 1000_00, 'PKR');
      const orderRef = `FP${randomUUID().replaceAll('-', '').slice(0, 16)}`;
      let id: string | undefined;

      const fault = armFault(n);
      const first = await send(m, orderRef, account);
      if (first.status === 200) id = first.json.paymentIntentId;
      await sweeps(() => id ?? undefined);
      fault.disarm();
      const fired = fault.fired();
      if (!fired) break;
      covered.push(fired);

      // Recovery: the merchant looks the payout up and re-sends only if nothing was created.
      const found = await lookup(m, orderRef);
      if (found.status === 404) {
        const again = await send(m, orderRef, account);
        expect(again.status, again.text).toBe(200);
      }
      id = (await lookup(m, orderRef)).json.paymentIntentId;
      await sweeps(() => id);

      const t = (await lookup(m, orderRef)).json;
      const received = sandboxSubmissionCount(t.payoutInfo.transactionReference);
      expect(received, fired).toBeLessThanOrEqual(1);
      if (received === 0) notReceived.push(fired);
      const outcome = received === 1 ? 'Completed' : 'Failed';
      expect(t.status, `after a crash at ${fired} (#${n})`).toBe(outcome);
      const wallet = await getWallet(m.merchantId, 'test', 'PKR', true);
      expect(wallet, fired).toMatchObject({ available: received === 1 ? 1000_00 - amount : 1000_00, held: 0 });
      const statuses = (await listEvents(id!)).map((e) => e.event.data.CurrentStatus);
      expect(new Set(statuses).size, `${fired}: ${statuses}`).toBe(statuses.length);
      expect(statuses.at(-1)).toBe(outcome);
      expect((await verifyLedger({ merchantId: m.merchantId, mode: 'test' })).discrepancies, fired).toEqual([]);
    }
    console.log(`fault points covered (withdrawal, account …${account}): ${covered.length}: ${covered.join(', ')}`);
    expect(covered.length).toBeGreaterThanOrEqual(3);
    expect(covered).toContain('commit');
    expect(covered.some((p) => p.startsWith('provider-done:bank_rail.'))).toBe(true);
    // The crash between "submission recorded" and "bank called": the bank never received it.
    expect(notReceived).toContain('provider:bank_rail.submit');
  }, 300_000);
});
