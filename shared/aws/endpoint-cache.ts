/**
 * Bundled in place of @aws-sdk/endpoint-cache (see infra/bundling.ts `alias`): the same
 * EndpointCache on a Map instead of mnemonist's LRU cache (mnemonist with obliterator and the
 * package: 8 kB minified in every Lambda, issue 26). Every DynamoDB client builds one, and uses it
 * only with endpoint discovery, which the gateway never turns on; it still behaves as the SDK's:
 * entries expire after their CachePeriodInMinutes and the least recently used goes when full
 * (test/unit/endpoint-cache.test.ts runs both side by side).
 */
interface Endpoint {
  Address: string | undefined;
  CachePeriodInMinutes: number | undefined;
}
interface EndpointWithExpiry {
  Address: string;
  Expires: number;
}

export class EndpointCache {
  private readonly cache = new Map<string, EndpointWithExpiry[]>();

  constructor(private readonly capacity: number) {}

  getEndpoint(key: string): string | undefined {
    const endpoints = this.get(key)?.map((endpoint) => endpoint.Address);
    return endpoints?.length ? endpoints[Math.floor(Math.random() * endpoints.length)] : undefined;
  }

  get(key: string): EndpointWithExpiry[] | undefined {
    if (!this.has(key)) return undefined;
    const value = this.cache.get(key)!;
    this.touch(key, value);
    const now = Date.now();
    const live = value.filter((endpoint) => now < endpoint.Expires);
    if (live.length === 0) {
      this.delete(key);
      return undefined;
    }
    return live;
  }

  set(key: string, endpoints: Endpoint[]): void {
    const now = Date.now();
    this.touch(
      key,
      endpoints.map(({ Address, CachePeriodInMinutes }) => ({
        Address: Address as string,
        Expires: now + (CachePeriodInMinutes as number) * 60 * 1000,
      })),
    );
  }

  delete(key: string): void {
    this.touch(key, []);
  }

  /** Without refreshing the entry's recency (mnemonist's peek). */
  has(key: string): boolean {
    return (this.cache.get(key)?.length ?? 0) > 0;
  }

  clear(): void {
    this.cache.clear();
  }

  /** Stores `value` as the most recently used entry, dropping the least recently used one when full. */
  private touch(key: string, value: EndpointWithExpiry[]): void {
    this.cache.delete(key);
    this.cache.set(key, value);
    if (this.cache.size > this.capacity) this.cache.delete(this.cache.keys().next().value!);
  }
}
