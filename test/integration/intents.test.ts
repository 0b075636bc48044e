import { describe, expect, it } from 'vitest';
import { routeList } from '#functions/routes.ts';
import { draft } from '#shared/domain/core/decision.ts';
import { TransactionFailed } from '#shared/store/client.ts';
import { listEvents, orderRefWriteIndex } from '#shared/store/intents.ts';
import { getWallet, listJournals } from '#shared/store/wallets.ts';
import { call, newMerchant, useGateway } from '../support/gateway.ts';
import { changeStatus, seedIntent } from '../support/intents.ts';

describe('payment intents: status changes, outbox events, lookup', () => {
  const gw = useGateway(routeList);

  it('lets exactly one of many racing outcomes win, with its event and journal in the same commit', async () => {
    const m = await newMerchant();
    const intent = await seedIntent(m.merchantId, 'test');
    const outcomes = ['Completed', 'Failed', 'Cancelled', 'Expired', 'Completed', 'Failed'] as const;
    const results = await Promise.all(
      outcomes.map((to) =>
        changeStatus(intent.paymentIntentId, (current) => ({
          to,
          reason: to === 'Completed' ? null : to === 'Expired' ? 'expired' : to === 'Cancelled' ? 'customer_cancelled' : 'card_declined',
          ...(to === 'Completed'
            ? {
                journals: [
                  draft('checkout.completed', current.paymentIntentId, [
                    { account: { kind: 'external', name: 'card_network' }, amount: -current.amountMinor },
                    { account: { kind: 'available' }, amount: current.amountMinor },
                  ]),
                ],
              }
            : {}),
        })),
      ),
    );
    const winners = results.filter((r) => r.changed);
    expect(winners.length).toBe(1);
    const final = winners[0]!.intent;
    const events = await listEvents(intent.paymentIntentId);
    expect(events.length).toBe(1);
    expect(events[0]!.event.data).toMatchObject({
      PreviousStatus: 'Pending',
      CurrentStatus: final.status,
      TransactionId: intent.paymentIntentId,
      TraceId: intent.traceId,
    });
    expect(JSON.parse(events[0]!.event.data.OrderRef)).toEqual({ OrderRef: intent.orderRef.orderRef, Discount: null, Tax: '5' });
    const credited = (await getWallet(m.merchantId, 'test', 'PKR', true)).available;
    expect(credited).toBe(final.status === 'Completed' ? 150_00 : 0);
    expect((await listJournals(m.merchantId, 'test')).length).toBe(final.status === 'Completed' ? 1 : 0);

    // A terminal status is never left.
    const again = await changeStatus(intent.paymentIntentId, () => ({ to: 'Completed' }));
    expect(again.changed).toBe(false);
    expect(again.intent?.status).toBe(final.status);
  });

  it('refuses a duplicate orderRef per merchant and mode, and allows it elsewhere', async () => {
    const m = await newMerchant();
    const first = await seedIntent(m.merchantId, 'test', { orderRef: { orderRef: 'SAME1' } });
    await expect(seedIntent(m.merchantId, 'test', { orderRef: { orderRef: 'SAME1' } })).rejects.toSatisfy(
      (e) => e instanceof TransactionFailed && e.failedAt(orderRefWriteIndex),
    );
    await expect(seedIntent(m.merchantId, 'live', { orderRef: { orderRef: 'SAME1' } })).resolves.toBeDefined();
    const other = await newMerchant();
    await expect(seedIntent(other.merchantId, 'test', { orderRef: { orderRef: 'SAME1' } })).resolves.toBeDefined();
    expect(first.orderRef.orderRef).toBe('SAME1');
  });

  it('looks a transaction up by orderRef, id or transactionReference, only for its merchant and mode', async () => {
    const m = await newMerchant();
    const intent = await seedIntent(m.merchantId, 'test');
    for (const ref of [intent.orderRef.orderRef, intent.paymentIntentId, intent.transactionReference]) {
      for (const path of [`/Gateway/v1/Transaction/by-ref/${ref}`, `/Gateway/v1/Transaction/${ref}`]) {
        const r = await call(gw.baseUrl, 'GET', path, { key: m.test.apiKey });
        expect(r.status, path).toBe(200);
        expect(r.json).toMatchObject({
          paymentIntentId: intent.paymentIntentId,
          status: 'Pending',
          amount: 150,
          merchantReference: intent.orderRef.orderRef,
          orderRef: { orderRef: intent.orderRef.orderRef, tax: '5' },
          isLive: false,
          metadataJson: '{"cart":7}',
          traceId: intent.traceId,
        });
      }
      expect((await call(gw.baseUrl, 'GET', `/Gateway/v1/Transaction/by-ref/${ref}`, { key: m.live.apiKey })).status).toBe(404);
      const other = await newMerchant();
      const foreign = await call(gw.baseUrl, 'GET', `/Gateway/v1/Transaction/by-ref/${ref}`, { key: other.test.apiKey });
      expect(foreign.status).toBe(404);
    }
  });
});
