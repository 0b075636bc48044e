import { afterEach, describe, expect, it, vi } from 'vitest';
import { bounded, later, outboundTimings, pastNotFoundGrace } from '#shared/services/outbound.ts';

describe('outbound-transfer protocol', () => {
  afterEach(() => vi.useRealTimers());

  it('measures the NotFound grace with the given clock, not the wall clock', () => {
    const submittedAt = '2026-01-01T00:00:00.000Z';
    const at = (ms: number) => new Date(Date.parse(submittedAt) + ms);
    expect(pastNotFoundGrace(submittedAt, at(outboundTimings.notFoundGraceMs - 1))).toBe(false);
    expect(pastNotFoundGrace(submittedAt, at(outboundTimings.notFoundGraceMs))).toBe(true);
  });

  it('computes the next due time from the given clock', () => {
    expect(later(new Date('2026-01-01T00:00:00.000Z'), outboundTimings.reinquireAfterMs)).toBe('2026-01-01T00:00:30.000Z');
  });

  it('passes the answer through, and turns a throw into an unknown outcome', async () => {
    expect(await bounded(async () => ({ status: 'Completed' }), 'test provider', {})).toEqual({ status: 'Completed' });
    expect(await bounded(async () => Promise.reject(new Error('boom')), 'test provider', {})).toEqual({ outcome: 'unknown' });
  });

  it('turns a call that does not answer in time into an unknown outcome and aborts its signal', async () => {
    vi.useFakeTimers();
    let seen: AbortSignal | undefined;
    const answer = bounded((signal) => ((seen = signal), new Promise<never>(() => {})), 'test provider', {});
    await vi.advanceTimersByTimeAsync(outboundTimings.callTimeoutMs);
    expect(await answer).toEqual({ outcome: 'unknown' });
    expect(seen?.aborted).toBe(true);
  });
});
