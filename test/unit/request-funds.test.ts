import { describe, expect, it } from 'vitest';
import { commitRequest, type Funds } from '#shared/store/request.ts';
import type { HoldRef, PlaceHold } from '#shared/store/wallets.ts';

/**
 * shared/store/request.ts: the wallet's hold placement (withFunds) is passed in by the requests that hold funds, so the
 * Lambdas of every other request leave it out (test/infra/bundles.test.ts). One committed without it that asks for a
 * shard is refused before anything is written (no database here: unit-env points the store at a closed port).
 */
describe('commitRequest without withFunds', () => {
  it('refuses a decision that asks for a wallet shard, naming what is missing', async () => {
    const hold: HoldRef = { merchantId: 'm', mode: 'test', currency: 'PKR', reference: 'w1', need: 1 };
    await expect(commitRequest(async (place) => ({ writes: [], response: await place(hold) }))).rejects.toThrow(/without withFunds/);
  });

  it('gives the decision the placement it is passed', async () => {
    const funds: Funds = (run) => run(async (hold) => hold.need + 2);
    const hold: HoldRef = { merchantId: 'm', mode: 'test', currency: 'PKR', reference: 'w1', need: 1 };
    const decide = async (place: PlaceHold) => ({ writes: [], response: await place(hold) });
    await expect(commitRequest(decide, undefined, funds)).resolves.toBe(3);
  });
});
