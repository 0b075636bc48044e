import { describe, expect, it } from 'vitest';
import { scenarioFor, sinceOption } from '../../scripts/listen.ts';

/** `npm run listen` options: --since says what it takes and refuses the rest at once; trigger speaks the webhooks' event types. */
describe('npm run listen options', () => {
  const now = Date.parse('2026-11-25T12:00:00Z');

  it('--since takes a date, a date-time or a time ago, and refuses anything else with what it takes', () => {
    expect(sinceOption('2026-11-25', now)).toBe('2026-11-25T00:00:00.000Z');
    expect(sinceOption('2026-11-25T09:30:00Z', now)).toBe('2026-11-25T09:30:00.000Z');
    expect(sinceOption('30m', now)).toBe('2026-11-25T11:30:00.000Z');
    expect(sinceOption('2h', now)).toBe('2026-11-25T10:00:00.000Z');
    expect(sinceOption('7d', now)).toBe('2026-11-18T12:00:00.000Z');
    expect(() => sinceOption('yesterday', now)).toThrow(/a date or date-time .* or a time ago/);
    expect(() => sinceOption('2026-13-45', now)).toThrow(/a date or date-time/);
    expect(() => sinceOption('2026-11-26', now)).toThrow(/in the future/);
    expect(() => sinceOption('31d', now)).toThrow(/30 days/);
  });

  it('trigger takes the event types the webhooks carry, with the outcome, as well as the scenarios', () => {
    expect(scenarioFor('TransactionStatusChanged')).toBe('checkout.completed');
    expect(scenarioFor('TransactionStatusChanged', 'Failed')).toBe('checkout.failed');
    expect(scenarioFor('RefundStatusChanged')).toBe('refund.completed');
    expect(scenarioFor('SettlementStatusChanged')).toBe('settlement.completed');
    expect(scenarioFor('withdrawal.failed')).toBe('withdrawal.failed');
    expect(scenarioFor('RefundStatusChanged', 'Failed')).toBeUndefined();
    expect(scenarioFor('payment.teleported')).toBeUndefined();
  });
});
