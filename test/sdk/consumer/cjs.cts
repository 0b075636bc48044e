// The same package through `require` (CommonJS declarations). Compiled by test/sdk/install.test.ts.
import sdk = require('@svc-gateway/node');

const gateway = new sdk.Gateway({ apiKey: 'pk_test_x', secretKey: 'sk_test_x' });

export async function firstCheckout(): Promise<string> {
  const checkout = await gateway.checkouts.create({ amount: 1500, description: 'Blue shirt', orderRef: { orderRef: 'A1' } });
  // @ts-expect-error a misspelt request field does not compile
  await gateway.checkouts.create({ amount: 1500, description: 'x', orderRef: { orderRef: 'A1' }, orderReff: 'A1' });
  return checkout.checkoutUrl;
}
