import { describe, expect, it } from 'vitest';
import { again, backoffMs, retry, retryOr, retryPolicies } from '#shared/retry.ts';

describe('the retry helper', () => {
  const quick = { attempts: 4, baseMs: 0, capMs: 0 };

  it('tries again while the attempt answers `again`, and returns its first value', async () => {
    const seen: number[] = [];
    const value = await retry(quick, (n) => {
      seen.push(n);
      return n < 3 ? again : `done at ${n}`;
    });
    expect(value).toBe('done at 3');
    expect(seen).toEqual([1, 2, 3]);
  });

  it('stops at the policy limit with the error `exhausted` gives, or what `retryOr` answers instead', async () => {
    let tries = 0;
    await expect(
      retry(
        quick,
        () => (tries++, again),
        () => new Error('too much contention'),
      ),
    ).rejects.toThrow('too much contention');
    expect(tries).toBe(4);
    expect(
      await retryOr(
        quick,
        () => again,
        () => 'gave up',
      ),
    ).toBe('gave up');
  });

  it('ends at once when an attempt throws', async () => {
    let tries = 0;
    const failing = retry(quick, () => {
      tries++;
      throw new Error('refused');
    });
    await expect(failing).rejects.toThrow('refused');
    expect(tries).toBe(1);
  });

  it('waits full jitter below a doubling ceiling, capped; a policy without a base never waits', () => {
    const { hold, versionRace } = retryPolicies;
    expect([1, 2, 3, 6, 10].map((n) => backoffMs(hold, n, () => 1))).toEqual([10, 20, 40, 250, 250]);
    expect(backoffMs(hold, 3, () => 0.5)).toBe(20);
    expect(backoffMs(versionRace, 5, () => 1)).toBe(0);
  });
});
