import { EndpointCache as SdkEndpointCache } from '@aws-sdk/endpoint-cache';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { EndpointCache } from '#shared/aws/endpoint-cache.ts';

/**
 * shared/aws/endpoint-cache.ts is bundled in place of the SDK's endpoint cache (infra/bundling.ts):
 * the same answers for the same calls, side by side with the SDK's own class.
 */
describe('the bundled endpoint cache behaves as the SDK’s', () => {
  afterEach(() => vi.useRealTimers());

  const both = (capacity: number) => [new SdkEndpointCache(capacity), new EndpointCache(capacity)] as const;
  const same = <T>(caches: readonly [SdkEndpointCache, EndpointCache], read: (c: SdkEndpointCache | EndpointCache) => T) => {
    const [sdk, ours] = caches.map(read);
    expect(ours).toEqual(sdk);
    return ours;
  };

  it('stores, reads, deletes and clears', () => {
    const caches = both(10);
    for (const c of caches) c.set('a', [{ Address: 'one.example', CachePeriodInMinutes: 1 }]);
    expect(same(caches, (c) => c.has('a'))).toBe(true);
    expect(same(caches, (c) => c.getEndpoint('a'))).toBe('one.example');
    expect(same(caches, (c) => c.get('b'))).toBeUndefined();
    for (const c of caches) c.delete('a');
    expect(same(caches, (c) => [c.has('a'), c.get('a'), c.getEndpoint('a')])).toEqual([false, undefined, undefined]);
    for (const c of caches) c.set('b', [{ Address: 'two.example', CachePeriodInMinutes: 1 }]);
    for (const c of caches) c.clear();
    expect(same(caches, (c) => c.has('b'))).toBe(false);
  });

  it('forgets endpoints after their cache period', () => {
    vi.useFakeTimers({ now: 1_000_000 });
    const caches = both(10);
    for (const c of caches)
      c.set('a', [
        { Address: 'short.example', CachePeriodInMinutes: 1 },
        { Address: 'long.example', CachePeriodInMinutes: 5 },
      ]);
    vi.setSystemTime(1_000_000 + 2 * 60_000);
    expect(same(caches, (c) => c.get('a')?.map((e) => e.Address))).toEqual(['long.example']);
    vi.setSystemTime(1_000_000 + 6 * 60_000);
    expect(same(caches, (c) => [c.get('a'), c.has('a')])).toEqual([undefined, false]);
  });

  it('drops the least recently used entry when full', () => {
    const caches = both(2);
    const endpoint = (name: string) => [{ Address: `${name}.example`, CachePeriodInMinutes: 1 }];
    for (const c of caches) {
      c.set('a', endpoint('a'));
      c.set('b', endpoint('b'));
      c.get('a'); // a is now the most recently used
      c.set('c', endpoint('c'));
    }
    expect(same(caches, (c) => ['a', 'b', 'c'].map((k) => c.has(k)))).toEqual([true, false, true]);
  });
});
