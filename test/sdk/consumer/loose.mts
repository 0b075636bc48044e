// Proof that the check can fail: a `@ts-expect-error` over a valid call is itself an error (TS2578).
import { Gateway } from '@svc-gateway/node';

const gateway = new Gateway({ apiKey: 'pk_test_x', secretKey: 'sk_test_x' });
// @ts-expect-error (wrongly: this call is valid)
await gateway.checkouts.create({ amount: 1500, description: 'Blue shirt', orderRef: { orderRef: 'A1' } });
