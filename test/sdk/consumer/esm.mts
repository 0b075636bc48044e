// A merchant's TypeScript against the installed package's declarations (ESM). Compiled by test/sdk/install.test.ts
// with tsc; every `@ts-expect-error` line must really be an error, so loose types fail the check.
import { Gateway, GatewayError, type InitiateCheckoutParams, type Problem, type Transaction, webhooks } from '@svc-gateway/node';
import { constructEvent, nextState } from '@svc-gateway/node/webhooks';

const gateway = new Gateway({ apiKey: 'pk_test_x', secretKey: 'sk_test_x', baseUrl: 'http://localhost:3000' });

export async function firstCheckout(): Promise<string> {
  const params: InitiateCheckoutParams = { amount: 1500, currency: 'PKR', description: 'Blue shirt', orderRef: { orderRef: 'A1' } };
  const checkout = await gateway.checkouts.create(params, { idempotencyKey: 'order-A1' });
  const url: string = checkout.checkoutUrl;
  // @ts-expect-error a misspelt request field does not compile
  await gateway.checkouts.create({ amount: 1500, description: 'x', orderRef: { orderRef: 'A1' }, orderReff: 'A1' });
  // @ts-expect-error amounts are numbers
  await gateway.checkouts.create({ amount: '1500', description: 'x', orderRef: { orderRef: 'A1' } });
  // @ts-expect-error orderRef is required
  await gateway.checkouts.create({ amount: 1500, description: 'x' });
  // @ts-expect-error no such field on the answer
  checkout.checkoutURL;
  return url;
}

export async function reads(): Promise<number> {
  const balance = await gateway.account.balance();
  // @ts-expect-error balances are numbers
  const wrong: string = balance.availableBalance;
  const page = await gateway.transactions.list({ status: 'Completed', limit: 10 });
  const first: Transaction | undefined = page.items[0];
  // @ts-expect-error the status filter is one of the documented statuses
  await gateway.transactions.list({ status: 'Paid' });
  // @ts-expect-error a misspelt query parameter does not compile
  await gateway.transactions.list({ startAfter: 'x' });
  const refund = await gateway.refunds.create({ trxnRef: first?.paymentIntentId ?? '', amount: 500, reason: 'damaged' });
  return balance.availableBalance + refund.amount + wrong.length;
}

export function failures(error: unknown): string | undefined {
  if (!(error instanceof GatewayError)) return undefined;
  const problem: Problem = error.problem;
  const status: number = error.status;
  // @ts-expect-error the code is a string
  const wrong: number = error.code;
  return `${status} ${error.code} ${error.traceId} ${problem.title} ${wrong} ${Object.keys(error.errors ?? {}).join(',')}`;
}

export function receive(raw: string, headers: Record<string, string>): string | undefined {
  const event = webhooks.constructEvent(raw, headers, ['whsec_x'], { toleranceSeconds: 300 });
  const same = constructEvent(raw, headers, 'whsec_x');
  // @ts-expect-error statuses are the documented ones
  if (event.data.CurrentStatus === 'Paid') return undefined;
  return nextState(undefined, same)?.status;
}
