import { GetItemCommand } from '@aws-sdk/client-dynamodb';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { routeList } from '#functions/routes.ts';
import { payByCard } from '#shared/services/checkout.ts';
import { db, toItem } from '#shared/store/client.ts';
import * as keys from '#shared/store/keys.ts';
import { checkoutBody, createCheckout } from '../support/checkout.ts';
import { newMerchant, useGateway } from '../support/gateway.ts';

/**
 * Issue 41: a card payment reads its intent ONCE per request, then decides and commits on that read (a lost race
 * reads it again). Counted at the DynamoDB client: the GetItem calls of the intent's key.
 */
describe('a card payment reads its intent once', () => {
  const gw = useGateway(routeList);
  afterEach(() => vi.restoreAllMocks());

  const intentReads = (id: string) => {
    const key = JSON.stringify(toItem(keys.intent(id)));
    const send = vi.spyOn(db(), 'send');
    return () =>
      send.mock.calls.filter(([command]) => command instanceof GetItemCommand && JSON.stringify(command.input.Key) === key).length;
  };

  it.each([
    ['approved', '4242424242424242', 'Completed'],
    ['declined (the session stays payable)', '4000000000000002', 'Pending'],
  ])('%s', async (_, number, status) => {
    const m = await newMerchant();
    const created = await createCheckout(gw.baseUrl, m, checkoutBody());
    expect(created.status, created.text).toBe(200);
    const id = created.json.paymentIntentId as string;
    const reads = intentReads(id);
    const paid = await payByCard(id, { name: 'Ayesha Khan', number, expiry: '12/39', cvc: '123' });
    expect(paid.status).toBe(status);
    expect(reads()).toBe(1);
  });
});
