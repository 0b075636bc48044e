import type { Mode } from '#shared/domain/credentials.ts';
import type { Currency } from '#shared/domain/money.ts';
import type { SettlementDestination } from '#shared/domain/settlement.ts';
import { instrumented } from '#shared/metrics.ts';

/**
 * The settlement rail: where settlements leave the gateway (bank transfer or USDT transfer). The
 * gateway records the submission (Processing, submittedAt) BEFORE it calls `submit`, and calls it AT
 * MOST ONCE per settlement; a rail must also treat `reference` (the settlement id) as an idempotency
 * key.
 *
 *   submit(instruction)  → accepted | rejected; THROWS when the outcome is unknown (timeout,
 *                          connection lost after sending): the settlement stays Processing and only
 *                          `status` settles it. The gateway also gives up waiting after a timeout.
 *   status(instruction)  → Completed | Failed | Processing | NotFound, by `reference`.
 *
 * NotFound (the rail has no record of the reference) is final once a grace period has passed: the
 * settlement is Failed and its funds released to the merchant. A live adapter must therefore
 * guarantee that a submission it reported NotFound will never execute later (or void it before
 * answering NotFound); otherwise the money would leave twice (paid out and released).
 *
 * Test mode uses the sandbox below. Live mode uses the adapter configured for the deployment
 * (configureSettlementRail); with none, live settlements are refused with a 422 at creation.
 */
export interface SettlementInstruction {
  reference: string;
  payoutMinor: number;
  payoutCurrency: Currency;
  destination: SettlementDestination;
  submittedAt: string;
}

export type SettlementSubmitResult = { outcome: 'accepted'; railReference: string } | { outcome: 'rejected'; reason: string };
export type SettlementStatusResult =
  | { status: 'Completed' }
  | { status: 'Failed'; reason: string }
  | { status: 'Processing' }
  /** The rail has no record of the reference (never received). */
  | { status: 'NotFound' };

export interface SettlementRail {
  /** The ledger's external account the net amount goes to: `external:<ledgerAccount>`. */
  readonly ledgerAccount: string;
  submit(instruction: SettlementInstruction): Promise<SettlementSubmitResult>;
  status(instruction: SettlementInstruction): Promise<SettlementStatusResult>;
  /** After submission, when to ask for the outcome, then every pollIntervalMs. */
  readonly firstCheckAfterMs: number;
  readonly pollIntervalMs: number;
}

export const sandboxSettlementRejection = 'The receiving bank or network rejected the transfer (sandbox destination ending 1111).';

/**
 * The sandbox rail, by the last four characters of the IBAN / account number or USDT address:
 *   1111        rejected (Failed, funds released)
 *   any other   accepted; Completed about 2 s later
 * Stateless (the outcome follows from the instruction), so any process may ask its status; it never
 * loses a submission, so it never answers NotFound.
 */
export const sandboxSettlementRail: SettlementRail = {
  ledgerAccount: 'settlement_rail',
  firstCheckAfterMs: 2_000,
  pollIntervalMs: 2_000,
  async submit(i) {
    const last4 = (i.destination.type === 'bank' ? i.destination.iban : i.destination.address).slice(-4);
    if (last4 === '1111') return { outcome: 'rejected', reason: sandboxSettlementRejection };
    return { outcome: 'accepted', railReference: `SBXSTL${i.reference.replaceAll('-', '').slice(0, 20).toUpperCase()}` };
  },
  async status(i) {
    const last4 = (i.destination.type === 'bank' ? i.destination.iban : i.destination.address).slice(-4);
    return last4 === '1111' ? { status: 'Failed', reason: sandboxSettlementRejection } : { status: 'Completed' };
  },
};

const configured: Partial<Record<Mode, SettlementRail>> = { test: sandboxSettlementRail };

/** The rail for a mode; undefined when live mode has none configured. */
export const settlementRailFor = (mode: Mode): SettlementRail | undefined => instrumented('settlement_rail', configured[mode]);

/** Installs a live adapter (deployment wiring) or, in tests, a fake one; `undefined` removes it. */
export function configureSettlementRail(mode: Mode, rail: SettlementRail | undefined): void {
  if (rail) configured[mode] = rail;
  else delete configured[mode];
}
