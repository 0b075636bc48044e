import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { planted, refundStatusesReached, runSequence, sequences, type Plant } from '../support/core-model.ts';

/**
 * The money core (shared/domain/core) proven in memory (test/support/core-model.ts): random sequences of payments,
 * payouts, settlements, refunds, time and RACES (two commands decided on one read, the stale one refused by the
 * conditional commit and decided again) against a reference model, after every step; the ledger verifier at the
 * end. CORE_MODEL_RUNS sets the number of sequences (`npm run test:deep`: far more); CORE_MODEL_SEED replays one.
 * Each planted wrong rule must be caught: the property is checked with it and must fail, with a shrunk example.
 */
const runs = Number(process.env.CORE_MODEL_RUNS ?? 10_000);
const seed = Number(process.env.CORE_MODEL_SEED ?? Date.now() % 2_147_483_647);
const maxSteps = 30;

describe('money core model, in memory', () => {
  it(`agrees with the reference model over ${runs} random sequences with races (seed ${seed})`, { timeout: 600_000 }, () => {
    const started = process.cpuUsage();
    fc.assert(
      fc.property(sequences(maxSteps), (steps) => runSequence(steps)),
      { numRuns: runs, seed },
    );
    // Its own CPU time (the machine's other work does not count): under 20 s.
    const cpu = process.cpuUsage(started);
    if (!process.env.CORE_MODEL_RUNS) expect((cpu.user + cpu.system) / 1e6).toBeLessThan(20);
  });

  it('its sequences reach every refund status (so the rules above are exercised)', () => {
    const reached = new Set(fc.sample(sequences(maxSteps), { numRuns: 6_000, seed: 7 }).flatMap(refundStatusesReached));
    expect([...reached].sort()).toEqual(['Approved', 'Cancelled', 'Completed', 'Expired', 'Failed', 'Pending', 'Processing', 'Rejected']);
  });

  const plants: { plant: Plant; caught: RegExp }[] = [
    { plant: 'over-refund', caught: /refund|ledger verify|reference/ },
    { plant: 'refund-once-ignored', caught: /"refund".*answered ok, the reference refused/ },
    { plant: 'double-payout', caught: /held Withdrawal|platform fees|ledger verify|reference/ },
    { plant: 'missed-release', caught: /available|held Withdrawal|ledger verify|reference/ },
    { plant: 'unconditional-commit', caught: /./ },
    { plant: 'link-over-limit', caught: /link|"start".*answered ok, the reference refused/ },
    { plant: 'link-created-without-limit', caught: /link|"start".*answered ok, the reference refused/ },
    { plant: 'expiry-keeps-link-use', caught: /link \d+ uses held|"start".*answered invalid_status, the reference ok/ },
    { plant: 'deposit-fee-dropped', caught: /available|platform fees|ledger verify|reference/ },
    { plant: 'note-on-final', caught: /"note".*answered ok, the reference refused/ },
    { plant: 'accepted-changes-status', caught: /same-status change moved status/ },
    { plant: 'auto-settlement-keeps-nothing', caught: /available|held Settlement|reference/ },
    { plant: 'answer-about-any-attempt', caught: /"stale".*answered ok, the reference refused/ },
    {
      plant: 'held-answer-credits',
      caught: /"(approved|answer-declined)".*answered ok, the reference refused|available|platform fees|ledger verify/,
    },
    { plant: 'approval-deadline-ignored', caught: /"swept".*answered ok, the reference refused/ },
    { plant: 'release-held-twice', caught: /"release".*answered ok, the reference refused|available|platform fees|ledger verify/ },
  ];
  it.each(plants)('catches a planted wrong rule: $plant', ({ plant, caught }) => {
    const { core, conditional } = planted(plant);
    const result = fc.check(
      fc.property(sequences(maxSteps), (steps) => runSequence(steps, core, conditional)),
      { numRuns: 10_000, seed: 42 },
    );
    expect(result.failed, `${plant} was not caught`).toBe(true);
    // Shrunk to a short sequence a reader can follow.
    expect(result.counterexample?.[0].length).toBeLessThanOrEqual(15);
    expect(String(result.errorInstance)).toMatch(caught);
  });
});
