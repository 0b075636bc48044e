import { afterEach, beforeAll, describe, expect, it, vi } from 'vitest';

/**
 * The EMF lines shared/metrics.ts writes (metrics on, as inside Lambda): names and dimensions the
 * dashboard and alarms of infra/observability.ts read.
 */
let m: typeof import('#shared/metrics.ts');
beforeAll(async () => {
  process.env.POWERTOOLS_METRICS_DISABLED = 'false';
  m = await import('#shared/metrics.ts');
});

function capture() {
  const lines: any[] = [];
  const spy = vi.spyOn(process.stdout, 'write').mockImplementation((chunk: unknown) => {
    for (const line of String(chunk).split('\n').filter(Boolean)) {
      try {
        lines.push(JSON.parse(line));
      } catch {
        /* not EMF */
      }
    }
    return true;
  });
  return { lines: () => lines.filter((l) => l._aws), restore: () => spy.mockRestore() };
}

describe('metrics (EMF)', () => {
  afterEach(() => vi.restoreAllMocks());

  it('writes a payment outcome with its type, outcome and amount', () => {
    const c = capture();
    m.emitOutcome('payment', 'Completed', 1234_00, 'checkout');
    c.restore();
    const [count, amount] = c.lines();
    expect(count._aws.CloudWatchMetrics[0]).toMatchObject({
      Namespace: m.metricsNamespace,
      Metrics: [{ Name: 'Payments', Unit: 'Count' }],
    });
    expect(count).toMatchObject({ service: m.serviceName, Type: 'checkout', Outcome: 'Completed', Payments: 1 });
    expect(amount).toMatchObject({ Type: 'checkout', Outcome: 'Completed', PaymentAmount: 1234_00 });
  });

  it('times every asynchronous provider call and counts the failed ones', async () => {
    const adapter = m.instrumented('bank_rail', {
      name: 'rail',
      submit: async (ok: boolean) => {
        if (!ok) throw new Error('down');
        return 'accepted';
      },
    });
    const c = capture();
    expect(adapter.name).toBe('rail');
    await expect(adapter.submit(true)).resolves.toBe('accepted');
    await expect(adapter.submit(false)).rejects.toThrow('down');
    c.restore();
    const emitted = c
      .lines()
      .map((l) => ({ metric: l._aws.CloudWatchMetrics[0].Metrics[0].Name, Provider: l.Provider, Operation: l.Operation }));
    expect(emitted).toEqual([
      { metric: 'ProviderLatency', Provider: 'bank_rail', Operation: 'submit' },
      { metric: 'ProviderLatency', Provider: 'bank_rail', Operation: 'submit' },
      { metric: 'ProviderErrors', Provider: 'bank_rail', Operation: 'submit' },
    ]);
  });
});
