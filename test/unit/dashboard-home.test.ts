import { describe, expect, it } from 'vitest';
import { homeView } from '#functions/dashboard/views.ts';
import type { Frame } from '#shared/http/dashboard-views.ts';
import { lastDays } from '#shared/services/dashboard.ts';

const frame = (role: Frame['role']): Frame => ({
  merchantName: 'Acme',
  userId: 'u1',
  email: 'a@acme.test',
  role,
  mode: 'test',
  csrf: 'token',
  current: 'home',
});
const summary = { balances: [], today: { count: 0, volume: [] }, volume: [], failures: [] };
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

describe('dashboard home: 30-day volume chart', () => {
  const days = lastDays(new Date('2026-03-31T12:00:00Z'));
  const amounts = days.map((_, i) => (i === 29 ? 300 : i === 10 ? 150.5 : 0));
  const volume = {
    currency: 'PKR',
    days: days.map((day, i) => ({ day, count: amounts[i] ? 2 : 0, amount: amounts[i]! })),
    count: 4,
    total: 450.5,
    peak: 300,
  };
  const page = homeView(frame('viewer'), { ...summary, volume: [volume] } as never, health(0, 0, 0) as never);

  it('draws 30 days oldest first as a named SVG image, bars scaled to the highest day and titled with their figures', () => {
    expect(days).toHaveLength(30);
    expect(days[0]).toBe('2026-03-02');
    expect(days.at(-1)).toBe('2026-03-31');
    const svg = /<svg role="img" aria-labelledby="volume-pkr-title volume-pkr-desc"[\s\S]*?<\/svg>/.exec(page)![0];
    expect(svg).toContain('<title id="volume-pkr-title">Completed payment volume in PKR per day, 2 Mar to 31 Mar</title>');
    expect(svg).toContain('Highest day 31 Mar with PKR 300.00');
    const bars = [...svg.matchAll(/<rect class="bar" x="(\d+)" y="(\d+)" width="8" height="(\d+)"><title>([^<]*)<\/title>/g)];
    expect(bars).toHaveLength(30);
    expect(bars[29]!.slice(2)).toEqual(['4', '96', '31 Mar: PKR 300.00, 2 payments']);
    expect(bars[10]!.slice(2)).toEqual([String(100 - 48), '48', '12 Mar: PKR 150.50, 2 payments']);
    expect(bars[0]!.slice(3)).toEqual(['0', '2 Mar: PKR 0.00, 0 payments']);
  });

  it('gives the same figures as a table behind a disclosure, newest day first', () => {
    const table = /<details><summary>The 30 days as a table<\/summary>[\s\S]*?<\/details>/.exec(page)![0];
    const rows = [...table.matchAll(/<tr><td data-label="Day">([^<]+)<\/td><td[^>]*>(\d+)<\/td><td[^>]*>([^<]+)<\/td><\/tr>/g)];
    expect(rows).toHaveLength(30);
    expect(rows[0]!.slice(1)).toEqual(['2026-03-31', '2', 'PKR 300.00']);
    expect(rows[29]!.slice(1)).toEqual(['2026-03-02', '0', 'PKR 0.00']);
    expect(page).toContain('PKR: PKR 450.50 in 4 completed payments');
  });

  it('says so when nothing was paid', () => {
    const empty = { ...volume, days: volume.days.map((d) => ({ ...d, count: 0, amount: 0 })), count: 0, total: 0, peak: 0 };
    const html = homeView(frame('viewer'), { ...summary, volume: [empty] } as never, health(0, 0, 0) as never);
    expect(html).toContain('No completed payments in these days.');
    expect(html).not.toMatch(/<rect class="bar"[^>]*height="[1-9]/);
  });
});
