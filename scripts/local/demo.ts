import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { resolve } from 'node:path';
import type { Mode } from '#shared/domain/credentials.ts';
import type { LocalConfig } from './config.ts';

/** The demo merchant's endpoint for a receiver port: what the README's first-checkout script listens on. */
export const demoWebhookUrl = (port: number) => `http://127.0.0.1:${port}/webhooks`;

/** What `npm start` keeps in the data folder (git-ignored, 0600): the credentials it printed once, and the URL it last set. */
type DemoFile = Awaited<ReturnType<typeof import('#shared/services/merchants.ts').createMerchant>> & { webhookUrl?: string };

interface DemoMerchant {
  demo: DemoFile;
  /** Each mode's endpoint as stored now (read back after any change): what the banner prints. */
  endpoints: Record<Mode, { url: string | null; disabledAt: string | null }>;
  /** Endpoints moved to the configured receiver port on this start. */
  moved: { mode: Mode; from: string; to: string }[];
}

/**
 * Before `webhookUrl` was kept in the file, a start seeded `http://127.0.0.1:<PORT+1>/webhooks`; such a URL is
 * the seed's. Anything else was set by someone (dashboard, ops) and is left alone.
 */
const seeded = (demo: DemoFile, url: string | null): url is string =>
  url !== null && (demo.webhookUrl ? url === demo.webhookUrl : /^http:\/\/127\.0\.0\.1:\d+\/webhooks$/.test(url));

/**
 * The demo merchant: created on the first start (its keys kept in the data folder), found again on the
 * next. Its endpoints follow the receiver port (WEBHOOK_PORT, else PORT+1): an endpoint still at the URL
 * an earlier start seeded is moved through the same service `ops merchant webhook` uses (its signing
 * secret kept), so the first webhook after `PORT=3100 npm start` goes to 3101, not to the old port.
 */
export async function ensureDemoMerchant(config: LocalConfig): Promise<DemoMerchant> {
  const { getMerchant } = await import('#shared/store/merchants.ts');
  const { createMerchant, setWebhook } = await import('#shared/services/merchants.ts');
  const { getEndpointHealth, destinationKey } = await import('#shared/store/webhook-health.ts');
  const file = resolve(config.dataDir, 'demo-merchant.json');
  const wanted = demoWebhookUrl(config.webhookPort);
  // A throwaway (IN_MEMORY) database's merchant is not kept: the file keeps the one of the database in the data folder.
  const save = (demo: DemoFile) => config.inMemory || writeFileSync(file, JSON.stringify(demo, null, 2), { mode: 0o600 });
  let demo: DemoFile | undefined = existsSync(file) && !config.inMemory ? JSON.parse(readFileSync(file, 'utf8')) : undefined;
  let merchant = demo ? await getMerchant(demo.merchantId) : undefined;
  const moved: DemoMerchant['moved'] = [];
  if (!demo || !merchant) {
    demo = {
      ...(await createMerchant({ name: 'Demo Store', currency: 'PKR', webhookUrl: wanted, allowInsecureWebhooks: true })),
      webhookUrl: wanted,
    };
    save(demo);
  } else {
    for (const mode of ['test', 'live'] as const) {
      const url = merchant.webhooks[mode]?.url ?? null;
      if (!seeded(demo, url) || url === wanted) continue;
      await setWebhook(demo.merchantId, mode, wanted, true);
      moved.push({ mode, from: url, to: wanted });
    }
    if (demo.webhookUrl !== wanted) save({ ...demo, webhookUrl: wanted });
  }
  merchant = (await getMerchant(demo.merchantId))!;
  const urls = { test: merchant.webhooks.test?.url ?? null, live: merchant.webhooks.live?.url ?? null };
  const health = await getEndpointHealth(
    (['test', 'live'] as const).flatMap((mode) => (urls[mode] ? [{ merchantId: demo.merchantId, mode, url: urls[mode] }] : [])),
  );
  const state = (mode: Mode) => ({
    url: urls[mode],
    disabledAt: urls[mode]
      ? (health.get(destinationKey({ merchantId: demo.merchantId, mode, url: urls[mode] }))?.disabledAt ?? null)
      : null,
  });
  return { demo, endpoints: { test: state('test'), live: state('live') }, moved };
}
