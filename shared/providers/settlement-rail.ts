import type { Currency } from '#shared/domain/money.ts';
import type { SettlementDestination } from '#shared/domain/settlement.ts';
import type { Rail } from './rail.ts';
import { sandboxRail } from './sandbox-rail.ts';

/**
 * The settlement rail (bank transfer or USDT transfer): its instruction and the sandbox of test
 * mode. The contract is the one of every outbound rail (shared/providers/rail.ts); adapters are
 * installed with configureRail('settlement', mode, rail). `reference` is the settlement id.
 */
export interface SettlementInstruction {
  reference: string;
  payoutMinor: number;
  payoutCurrency: Currency;
  destination: SettlementDestination;
  submittedAt: string;
}

export const sandboxSettlementRejection = 'The receiving bank or network rejected the transfer (sandbox destination ending 1111).';

const last4 = (i: SettlementInstruction) => (i.destination.type === 'bank' ? i.destination.iban : i.destination.address).slice(-4);

/**
 * The sandbox rail, by the last four characters of the IBAN / account number or USDT address:
 *   1111        rejected (Failed, funds released)
 *   any other   accepted; Completed about 2 s later
 * It answers the status inquiry only for references it received (shared/store/sandbox-receipts.ts),
 * NotFound otherwise.
 */
export const sandboxSettlementRail: Rail<SettlementInstruction> = /* @__PURE__ */ sandboxRail(
  { receipts: 'settlement_rail', name: 'Sandbox Settlement Rail', ledgerAccount: 'settlement_rail', prefix: 'SBXSTL' },
  { firstCheckAfterMs: 2_000, pollIntervalMs: 2_000, inquireAfterMs: 30_000, retryAfterMs: 30_000 },
  (i) => (last4(i) === '1111' ? sandboxSettlementRejection : undefined),
);
