import { describe, expect, it } from 'vitest';
import { homeView } from '#functions/dashboard/views.ts';
import type { Frame } from '#shared/http/dashboard-views.ts';

const frame = (role: Frame['role']): Frame => ({
  merchantName: 'Acme',
  userId: 'u1',
  email: 'a@acme.test',
  role,
  mode: 'test',
  csrf: 'token',
  current: 'home',
});
const summary = { balances: [], today: { count: 0, capped: false, volume: [] }, failures: [] };
const health = (retrying: number, deadLettered: number, held: number) => ({
  endpoint: null,
  latest: 25,
  delivered: 25 - retrying - deadLettered - held,
  troubles: [
    { state: 'retrying' as const, label: 'retrying' as const, count: retrying },
    { state: 'dead_lettered' as const, label: 'dead-lettered' as const, count: deadLettered },
    { state: 'endpoint_disabled' as const, label: 'held (endpoint disabled)' as const, count: held },
  ],
});
const latestLine = (html: string) => /<dd id="webhook-latest">(.*?)<\/dd>/s.exec(html)![1]!.replace(/<[^>]+>/g, '');

describe('dashboard home: webhook health', () => {
  it('names retrying, dead-lettered and held deliveries apart, each linking to the log filtered by its state', () => {
    const html = homeView(frame('admin'), summary as never, health(1, 2, 3) as never);
    expect(latestLine(html)).toBe('19 of the latest 25 delivered, 1 retrying, 2 dead-lettered, 3 held (endpoint disabled)');
    expect(html).toContain('/developers/webhooks?state=dead_lettered">2 dead-lettered</a>');
    expect(html).toContain('/developers/webhooks?state=endpoint_disabled">3 held (endpoint disabled)</a>');
  });

  it('says only what is there, and gives no log link to a role that cannot open it', () => {
    expect(latestLine(homeView(frame('admin'), summary as never, health(0, 0, 0) as never))).toBe('25 of the latest 25 delivered');
    const viewer = homeView(frame('viewer'), summary as never, health(0, 4, 0) as never);
    expect(latestLine(viewer)).toBe('21 of the latest 25 delivered, 4 dead-lettered');
    expect(viewer).not.toContain('?state=');
  });
});
