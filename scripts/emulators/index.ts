import { randomBytes } from 'node:crypto';
import type { LiveProvidersConfig } from '#shared/providers/live/index.ts';
import { startEasypaisaEmulator, type EasypaisaEmulator } from './easypaisa.ts';
import { startJazzCashEmulator, type JazzCashEmulator } from './jazzcash.ts';

export interface EmulatedProviders {
  jazzcash: JazzCashEmulator;
  easypaisa: EasypaisaEmulator;
  /** The live configuration that points the adapters at the emulators (fresh credentials each start). */
  config: LiveProvidersConfig;
  close(): Promise<void>;
}

/**
 * Both provider emulators on 127.0.0.1, with fresh credentials, sending their callbacks to the
 * gateway at `gatewayBaseUrl` (LIVE_PROVIDERS=emulated npm start; the live-* tests).
 */
export async function startEmulatedProviders(gatewayBaseUrl: string, options: { decideAfterMs?: number } = {}): Promise<EmulatedProviders> {
  const secret = (n: number) => randomBytes(n).toString('hex');
  const jc = {
    merchantId: `MC${secret(3).toUpperCase()}`,
    password: secret(5),
    integritySalt: secret(5),
    mpin: String(1000 + (randomBytes(2).readUInt16BE() % 9000)),
    disbursement: { clientId: secret(8), clientSecret: secret(16), aesKey: secret(8), aesIv: secret(8) },
  };
  const ep = {
    username: `store${secret(3)}`,
    password: secret(8),
    storeId: String(100000 + (randomBytes(3).readUIntBE(0, 3) % 900000)),
    accountNum: `0345${String(randomBytes(4).readUInt32BE() % 10_000_000).padStart(7, '0')}`,
  };
  const jazzcash = await startJazzCashEmulator({
    ...jc,
    returnUrl: `${gatewayBaseUrl}/providers/wallet/jazzcash/callback`,
    ...(options.decideAfterMs !== undefined ? { decideAfterMs: options.decideAfterMs } : {}),
  });
  const easypaisa = await startEasypaisaEmulator({ ...ep, ipnUrl: `${gatewayBaseUrl}/providers/wallet/easypaisa/callback` });
  return {
    jazzcash,
    easypaisa,
    config: {
      jazzcash: {
        baseUrl: jazzcash.url,
        merchantId: jc.merchantId,
        password: jc.password,
        integritySalt: jc.integritySalt,
        mpin: jc.mpin,
        disbursement: { baseUrl: jazzcash.url, ...jc.disbursement },
      },
      easypaisa: {
        baseUrl: easypaisa.url,
        username: ep.username,
        password: ep.password,
        storeId: ep.storeId,
        emailAddress: 'payments@example.com',
        accountNum: ep.accountNum,
      },
    },
    close: async () => {
      await Promise.all([jazzcash.close(), easypaisa.close()]);
    },
  };
}
