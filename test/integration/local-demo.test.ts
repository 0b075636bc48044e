import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { localConfig } from '../../scripts/local/config.ts';
import { ensureDemoMerchant } from '../../scripts/local/demo.ts';
import { setWebhook } from '#shared/services/merchants.ts';
import { getMerchant } from '#shared/store/merchants.ts';

/**
 * `npm start`'s demo merchant across restarts (its data folder kept, as .data/ is): its endpoints follow the
 * receiver port (WEBHOOK_PORT, else PORT+1) instead of keeping the port of the first start.
 */
describe('npm start: the demo merchant', () => {
  const dir = mkdtempSync(join(tmpdir(), 'demo-'));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));
  const start = (env: NodeJS.ProcessEnv) => ensureDemoMerchant(localConfig({ DATA_DIR: dir, ...env }));
  const url = (port: number) => `http://127.0.0.1:${port}/webhooks`;

  it('moves the endpoints an earlier start seeded to the new receiver port, keeps their secrets, and leaves a hand-set one', async () => {
    const first = await start({ PORT: '3100' });
    expect(first.endpoints.test).toEqual({ url: url(3101), disabledAt: null });
    expect(first.endpoints.live.url).toBe(url(3101));
    expect(first.moved).toEqual([]);
    const sealed = (await getMerchant(first.demo.merchantId))!.webhooks.test!.secrets;

    // PORT changed, same data folder: the same merchant, its endpoints on PORT+1, the printed webhook secret still good.
    const second = await start({ PORT: '3200' });
    expect(second.demo.merchantId).toBe(first.demo.merchantId);
    expect(second.demo.test.webhookSecret).toBe(first.demo.test.webhookSecret);
    expect(second.endpoints.test.url).toBe(url(3201));
    expect(second.endpoints.live.url).toBe(url(3201));
    expect(second.moved).toEqual([
      { mode: 'test', from: url(3101), to: url(3201) },
      { mode: 'live', from: url(3101), to: url(3201) },
    ]);
    const stored = (await getMerchant(first.demo.merchantId))!;
    expect(stored.webhooks.test!.url).toBe(url(3201));
    expect(stored.webhooks.test!.secrets).toEqual(sealed);

    // WEBHOOK_PORT wins over PORT+1; the same start again changes nothing.
    expect((await start({ PORT: '3200', WEBHOOK_PORT: '4555' })).endpoints.test.url).toBe(url(4555));
    expect((await start({ PORT: '3200', WEBHOOK_PORT: '4555' })).moved).toEqual([]);

    // An endpoint set by someone (dashboard, ops) is theirs: a restart on another port does not move it.
    await setWebhook(first.demo.merchantId, 'test', 'http://127.0.0.1:4000/hooks', true);
    const third = await start({ PORT: '3300' });
    expect(third.endpoints.test.url).toBe('http://127.0.0.1:4000/hooks');
    expect(third.endpoints.live.url).toBe(url(3301));
    expect(third.moved.map((m) => m.mode)).toEqual(['live']);

    // A data folder from before the seeded URL was kept in demo-merchant.json: a seeded-looking URL still moves.
    const file = join(dir, 'demo-merchant.json');
    const { webhookUrl, ...older } = JSON.parse(readFileSync(file, 'utf8'));
    expect(webhookUrl).toBe(url(3301));
    writeFileSync(file, JSON.stringify(older));
    const fourth = await start({ PORT: '3400' });
    expect(fourth.endpoints.live.url).toBe(url(3401));
    expect(fourth.endpoints.test.url).toBe('http://127.0.0.1:4000/hooks');

    // An IN_MEMORY start makes its own merchant and leaves the data folder's file to the kept database's merchant.
    const throwaway = await start({ PORT: '3500', IN_MEMORY: '1' });
    expect(throwaway.demo.merchantId).not.toBe(first.demo.merchantId);
    expect(JSON.parse(readFileSync(file, 'utf8')).merchantId).toBe(first.demo.merchantId);
  });
});
