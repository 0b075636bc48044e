import { afterAll, beforeAll, expect } from 'vitest';
import { configureLiveProviders } from '#shared/providers/live/index.ts';
import { advanceRefund, approveRefund } from '#shared/services/refunds.ts';
import { startEmulatedProviders, type EmulatedProviders } from '../../scripts/emulators/index.ts';
import { call, newMerchant, type TestMerchant } from './gateway.ts';
import { startReceiver, type Receiver } from './webhooks.ts';

/**
 * Live mode on this machine for one suite: the provider emulators (scripts/emulators) on 127.0.0.1
 * with the live adapters pointed at them, and a webhook receiver; all stopped after the suite.
 * `merchant(name)` sends its webhooks to that receiver; `refund(...)` makes a live refund over the API,
 * approves it as the operator and advances it once at `at` (the refund's id and its state then).
 */
export function useEmulatedLive(gw: { baseUrl: string }) {
  const live = {
    providers: undefined as unknown as EmulatedProviders,
    receiver: undefined as unknown as Receiver,
    merchant: (name: string) => newMerchant({ name, webhookUrl: `${live.receiver.url}/hooks`, allowInsecureWebhooks: true }),
    refund: async (m: TestMerchant, trxnRef: string, amount: number, at: Date) => {
      const created = await call(gw.baseUrl, 'POST', '/Gateway/v1/Refunds', {
        key: m.live.apiKey,
        secret: m.live.secretKey,
        body: { trxnRef, amount, reason: 'Returned' },
      });
      expect(created.status, created.text).toBe(201);
      await approveRefund(created.json.id);
      return { id: created.json.id as string, done: await advanceRefund(created.json.id, at) };
    },
  };
  beforeAll(async () => {
    live.providers = await startEmulatedProviders(gw.baseUrl);
    configureLiveProviders(live.providers.config);
    live.receiver = await startReceiver();
  });
  afterAll(async () => {
    configureLiveProviders(undefined);
    await live.providers?.close();
    await live.receiver?.stop();
  });
  return live;
}
