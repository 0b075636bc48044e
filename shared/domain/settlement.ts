import type { Mode } from './credentials.ts';
import type { Fee } from './merchant.ts';
import type { SettlementBreakdown } from './settlement-breakdown.ts';
import { feeFor, fromMinor, type Currency } from './money.ts';
import type { Failure } from './outbound.ts';
import type { UsdtNetwork } from './usdt-address.ts';
import { SettlementStatus } from './core/machines.ts';

/**
 * Settlements (docs/merchant-guide.md: Settlements; Transaction lookup): moving wallet funds out to the merchant's bank
 * account or USDT address. Pure rules: statuses, transitions, amounts, destinations, the view.
 *
 * The status machine is in ./core/machines.ts; the decisions in ./core/settlement.ts.
 *
 * Approved → Processing records the submission (submittedAt) before the rail is called, once: a
 * Processing settlement is never submitted again, whatever happened to that call.
 *
 * The whole `amount` is held (available → held:Settlement) from creation until Completed, Failed
 * or Cancelled. `fee` is taken out of `amount`: netAmount = amount − fee, paid out converted.
 */
export { SettlementStatus, settlementStatusNames } from './core/machines.ts';

export type SettlementDestination =
  | { type: 'bank'; bankName: string; iban: string; accountTitle: string }
  | { type: 'usdt'; address: string; network: UsdtNetwork };

export interface Settlement {
  id: string;
  merchantId: string;
  mode: Mode;
  /** Source currency: the wallet the funds leave. */
  currency: Currency;
  amountMinor: number;
  feeMinor: number;
  netMinor: number;
  payoutCurrency: Currency;
  /** In payoutCurrency minor units; null until the FX rate is locked (approval) when converting. */
  payoutMinor: number | null;
  /** Decimal string; null when no conversion or not yet locked. */
  fxRate: string | null;
  fxRateTimestamp: string | null;
  destination: SettlementDestination;
  status: SettlementStatus;
  isAuto: boolean;
  requestedAt: string;
  approvedAt: string | null;
  processedAt: string | null;
  failureReason: string | null;
  /**
   * The submission record: when the settlement was handed to the rail, written (with Processing)
   * BEFORE the one submit. Once set, the settlement is only ever settled through the rail's status
   * inquiry, never submitted again. Absent on settlements stored before this field existed.
   */
  submittedAt?: string | null;
  /** The rail's reference once the submission was accepted (null while its answer is unknown). */
  railReference: string | null;
  traceId: string;
  updatedAt: string;
  version: number;
  /** The hold's shard of a sharded wallet (shared/store/wallets.ts); absent = shard 0. */
  walletShard?: number;
  /**
   * Its breakdown's window (shared/domain/settlement-breakdown.ts): `cutoff` is its hold journal's position,
   * `previousCutoff` and `previousSettlementId` the previous settlement's in this currency and mode (null: the first).
   * Absent on settlements created before breakdowns existed (they have none).
   */
  cutoff?: string;
  previousCutoff?: string | null;
  previousSettlementId?: string | null;
  /** The breakdown, stored once computed: it never changes (no journal can enter the window after the hold). */
  breakdown?: SettlementBreakdown;
}

/** fee and net of an amount (fee rounded half up, see feeFor); net must stay positive. */
export function settlementAmounts(amountMinor: number, fee: Fee): { feeMinor: number; netMinor: number } {
  const feeMinor = feeFor(amountMinor, fee);
  return { feeMinor, netMinor: amountMinor - feeMinor };
}

/**
 * Bank destination: `iban` is an IBAN (2 letters + 2 check digits + up to 30 letters/digits,
 * checked with ISO 13616 mod-97) or a plain account number of 10-24 letters and digits. Spaces
 * are ignored and letters upper-cased. Returns the normalised value or the reason it is refused.
 */
export function normaliseAccount(raw: string): { ok: true; value: string } | { ok: false; reason: string } {
  const value = raw.replace(/\s+/g, '').toUpperCase();
  if (/^[A-Z]{2}\d{2}/.test(value)) {
    if (!/^[A-Z]{2}\d{2}[A-Z0-9]{11,30}$/.test(value)) return { ok: false, reason: 'an IBAN is 15-34 letters and digits' };
    const rearranged = value.slice(4) + value.slice(0, 4);
    let remainder = 0;
    for (const c of rearranged) {
      const digits = /\d/.test(c) ? c : String(c.charCodeAt(0) - 55);
      for (const d of digits) remainder = (remainder * 10 + Number(d)) % 97;
    }
    return remainder === 1 ? { ok: true, value } : { ok: false, reason: 'has a wrong IBAN check digit (check for a typo)' };
  }
  if (!/^[A-Z0-9]{10,24}$/.test(value)) return { ok: false, reason: 'must be an IBAN or an account number of 10-24 letters and digits' };
  return { ok: true, value };
}

/** The settlement object merchants see (docs/merchant-guide.md, Settlements). */
export function settlementView(s: Settlement) {
  const bank = s.destination.type === 'bank' ? s.destination : null;
  const usdt = s.destination.type === 'usdt' ? s.destination : null;
  return {
    id: s.id,
    merchantId: s.merchantId,
    amount: fromMinor(s.amountMinor, s.currency),
    currency: s.currency,
    payoutCurrency: s.payoutCurrency,
    payoutAmount: s.payoutMinor === null ? null : fromMinor(s.payoutMinor, s.payoutCurrency),
    fee: fromMinor(s.feeMinor, s.currency),
    netAmount: fromMinor(s.netMinor, s.currency),
    fxRate: s.fxRate === null ? null : Number(s.fxRate),
    fxRateTimestamp: s.fxRateTimestamp,
    bankName: bank?.bankName ?? null,
    iban: bank?.iban ?? null,
    accountTitle: bank?.accountTitle ?? null,
    usdtAddress: usdt?.address ?? null,
    usdtNetwork: usdt?.network ?? null,
    status: s.status,
    isLive: s.mode === 'live',
    requestedAt: s.requestedAt,
    approvedAt: s.approvedAt,
    processedAt: s.processedAt,
    failureReason: s.failureReason,
    isAuto: s.isAuto,
  };
}

export type SettlementView = ReturnType<typeof settlementView>;

/** What a settlement request needs besides its merchant, mode and fee. */
export interface SettlementInput {
  amountMinor: number;
  currency: Currency;
  payoutCurrency: Currency;
  destination: SettlementDestination;
}

/**
 * A new Pending settlement, or 'amount_too_small' when the fee takes the whole amount. The payout
 * amount is known at once without conversion; with conversion it is fixed when the rate is locked.
 */
export function newSettlement(
  owner: { merchantId: string; mode: Mode; traceId: string },
  input: SettlementInput,
  fee: Fee,
  isAuto: boolean,
  now: Date,
  id: string,
): Settlement | 'amount_too_small' {
  const { feeMinor, netMinor } = settlementAmounts(input.amountMinor, fee);
  if (netMinor <= 0) return 'amount_too_small';
  const at = now.toISOString();
  return {
    id,
    ...owner,
    currency: input.currency,
    amountMinor: input.amountMinor,
    feeMinor,
    netMinor,
    payoutCurrency: input.payoutCurrency,
    payoutMinor: input.currency !== input.payoutCurrency ? null : netMinor,
    fxRate: null,
    fxRateTimestamp: null,
    destination: input.destination,
    status: SettlementStatus.Pending,
    isAuto,
    requestedAt: at,
    approvedAt: null,
    processedAt: null,
    failureReason: null,
    submittedAt: null,
    railReference: null,
    updatedAt: at,
    version: 1,
  };
}

/** failureReason (shown to the merchant) of a settlement the rail refused, failed or never received. */
export const settlementFailureReason = (failure: Failure) =>
  failure.kind === 'not_received' ? 'The settlement did not reach the settlement rail; the funds were released.' : failure.reason;

/**
 * The attributes a breakdown job's item holds besides its key (shared/store/settlements.ts queueBreakdownJob):
 * getSettlement's grant may update only these and `breakdown` (its `attributeUpdates`, IAM dynamodb:Attributes).
 */
export const breakdownJobAttributes = ['GSI2PK', 'GSI2SK', 'entity', 'id', 'step', 'cursors', 'sums', 'queuedAt', 'dueAt'] as const;
