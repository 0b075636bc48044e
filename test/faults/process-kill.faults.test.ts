import { describe, expect, it } from 'vitest';
import { flows } from './flows.ts';
import { crashGroups, describeKills } from './harness.ts';

/**
 * The local stack process killed (SIGKILL) at every fault point, a new process recovers
 * (test/faults/harness.ts): `npm test` for the automatic withdrawal, `npm run test:deep` for every flow.
 */
describeKills(process.env.DEEP_TESTS ? flows.map((f) => f.name) : ['withdrawal …0000']);

describe('fault points: the crash groups', () => {
  it('hold every money flow of test/faults/flows.ts exactly once', () => {
    const grouped = Object.values(crashGroups).flat();
    expect([...grouped].sort()).toEqual(flows.map((f) => f.name).sort());
    expect(new Set(grouped).size).toBe(grouped.length);
  });
});
