import { afterAll, beforeAll } from 'vitest';
import { configureLiveProviders } from '#shared/providers/live/index.ts';
import { startEmulatedProviders, type EmulatedProviders } from '../../scripts/emulators/index.ts';
import { newMerchant } from './gateway.ts';
import { startReceiver, type Receiver } from './webhooks.ts';

/**
 * Live mode on this machine for one suite: the provider emulators (scripts/emulators) on 127.0.0.1
 * with the live adapters pointed at them, and a webhook receiver; all stopped after the suite.
 * `merchant(name)` sends its webhooks to that receiver.
 */
export function useEmulatedLive(gw: { baseUrl: string }) {
  const live = {
    providers: undefined as unknown as EmulatedProviders,
    receiver: undefined as unknown as Receiver,
    merchant: (name: string) => newMerchant({ name, webhookUrl: `${live.receiver.url}/hooks`, allowInsecureWebhooks: true }),
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
