import type { Mode } from '#shared/domain/credentials.ts';
import { instrumented } from '#shared/metrics.ts';
import { sandboxBankRail, type PayoutInstruction } from './bank-rail.ts';
import type { Rail } from './rail.ts';
import { sandboxRefundProvider, type RefundInstruction, type RefundRail } from './refund-provider.ts';
import { sandboxSettlementRail, type SettlementInstruction } from './settlement-rail.ts';

/**
 * The one registry of outbound rails, per product family and mode. Test mode uses the sandboxes;
 * live mode uses the adapters configured for the deployment (configureRail); with none, the
 * product refuses with a 422. Every rail is returned instrumented (latency, errors, fault points)
 * under its family's metric name.
 */
export interface RailInstructions {
  payout: PayoutInstruction;
  settlement: SettlementInstruction;
  refund: RefundInstruction;
}
export type RailFamily = keyof RailInstructions;

/** The Provider dimension of the provider metrics and the fault points (unchanged names). */
const metricFamily: Record<RailFamily, string> = { payout: 'bank_rail', settlement: 'settlement_rail', refund: 'refund_provider' };

/** Rails installed with configureRail: the deployment's live adapters, or a test's own rail. */
const installed: { [F in RailFamily]: Partial<Record<Mode, Rail<RailInstructions[F]>>> } = { payout: {}, settlement: {}, refund: {} };

function railOf<F extends RailFamily>(
  family: F,
  mode: Mode,
  sandbox: Rail<RailInstructions[F]>,
  target?: Partial<RailInstructions[F]>,
): Rail<RailInstructions[F]> | undefined {
  const rail = (installed[family][mode] as Rail<RailInstructions[F]> | undefined) ?? (mode === 'test' ? sandbox : undefined);
  return instrumented(metricFamily[family], target && rail?.route ? rail.route(target) : rail);
}

/**
 * The rail of a family for a mode: the installed one, else the sandbox in test mode; undefined when
 * none is configured (live mode by default). With a target, a routing rail (Rail.route) gives the
 * rail that serves it. One accessor per family, so a Lambda bundles only the sandboxes of the
 * families it uses (issue 26).
 */
export const payoutRail = (mode: Mode, target?: Partial<PayoutInstruction>) => railOf('payout', mode, sandboxBankRail, target);
export const settlementRail = (mode: Mode, target?: Partial<SettlementInstruction>) =>
  railOf('settlement', mode, sandboxSettlementRail, target);
export const refundRail = (mode: Mode): RefundRail | undefined => railOf('refund', mode, sandboxRefundProvider);

/** Installs a live adapter (deployment wiring) or, in tests, a fake one; `undefined` removes it (test mode: the sandbox again). */
export function configureRail<F extends RailFamily>(family: F, mode: Mode, rail: Rail<RailInstructions[F]> | undefined): void {
  const rails = installed[family] as Partial<Record<Mode, Rail<RailInstructions[F]>>>;
  if (rail) rails[mode] = rail;
  else delete rails[mode];
}
