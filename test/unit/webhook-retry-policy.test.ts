import { describe, expect, it } from 'vitest';
import { parseRetryAfter, retryDelay, retryScheduleSeconds } from '#shared/webhooks/policy.ts';

describe('retry delay with Retry-After', () => {
  it('follows the schedule without Retry-After', () => {
    expect(retryScheduleSeconds.map((_, i) => retryDelay(i + 1))).toEqual([...retryScheduleSeconds]);
    expect(retryDelay(retryScheduleSeconds.length + 1)).toBeUndefined();
  });
  it('is never sooner than Retry-After asks and never later than the next step', () => {
    expect(retryDelay(1, 120)).toBe(120); // 5 s step, next 300 s
    expect(retryDelay(1, 1)).toBe(5);
    expect(retryDelay(1, 10_000)).toBe(300);
    expect(retryDelay(2, 1000)).toBe(1000); // 300 s step, next 1800 s
    expect(retryDelay(7, 10 * 3600 + 1)).toBe(10 * 3600); // the last step caps itself
    expect(retryDelay(8, 60)).toBeUndefined(); // after the 8th attempt: dead letter
  });
  it('reads delay-seconds and HTTP dates', () => {
    const now = new Date('2026-01-01T00:00:00Z');
    expect(parseRetryAfter('30', now)).toBe(30);
    expect(parseRetryAfter('Thu, 01 Jan 2026 00:02:00 GMT', now)).toBe(120);
    expect(parseRetryAfter('Wed, 31 Dec 2025 00:00:00 GMT', now)).toBe(0);
    expect(parseRetryAfter('soon', now)).toBeNull();
    expect(parseRetryAfter(undefined, now)).toBeNull();
  });
});
