import type { Mode } from './credentials.ts';
import type { WebhookEventType } from './event-types.ts';
import type { Currency } from './money.ts';

/** Fee of one product: basis points of the amount plus a fixed part, both in minor units. */
export interface Fee {
  basisPoints: number;
  fixedMinor: number;
}

export type FeeProduct = 'checkout' | 'deposit' | 'withdrawal' | 'settlement' | 'refund';

/** Why a fee rate is not valid (0-10,000 basis points, a whole number; a fixed part of whole minor units >= 0), or undefined. */
export function feeRefusal(fee: Fee): string | undefined {
  if (!Number.isInteger(fee.basisPoints) || fee.basisPoints < 0 || fee.basisPoints > 10_000) return 'basis points must be 0-10000';
  if (!Number.isSafeInteger(fee.fixedMinor) || fee.fixedMinor < 0) return 'fixed fee must be >= 0 minor units';
  return undefined;
}

/** Documented defaults (docs/merchant-guide.md "Fees"); the operator overrides them per merchant. */
export const defaultFees: Record<FeeProduct, Fee> = {
  checkout: { basisPoints: 250, fixedMinor: 0 },
  deposit: { basisPoints: 150, fixedMinor: 0 },
  withdrawal: { basisPoints: 100, fixedMinor: 1000 },
  settlement: { basisPoints: 50, fixedMinor: 0 },
  refund: { basisPoints: 0, fixedMinor: 0 },
};

export type SettlementFrequency = 'manual' | 'daily' | 'weekly' | 'monthly';

export interface SettlementSchedule {
  frequency: SettlementFrequency;
  /** weekly: 1 (Monday) … 7; monthly: 1 … 28. */
  dayOfPeriod: number | null;
  /** UTC hour the sweep runs. */
  hourUtc: number;
  /** Amount kept back in the wallet, in minor units of the merchant's currency. */
  minimumBalanceMinor: number;
  destination: { bankName: string; iban: string; accountTitle: string } | null;
}

export const defaultSchedule: SettlementSchedule = {
  frequency: 'manual',
  dayOfPeriod: null,
  hourUtc: 0,
  minimumBalanceMinor: 0,
  destination: null,
};

/**
 * A mode's webhook endpoint. Every merchant has one per mode from creation, with a signing secret,
 * so deliveries to a request's `callbackUrl` are signed even when no portal URL is configured.
 */
export interface WebhookEndpoint {
  url: string | null;
  /** Sealed signing secrets: the current one first; an old one may live until `expiresAt`. */
  secrets: { sealed: string; expiresAt: string | null }[];
  /** The event types sent to `url` (`ops merchant webhook --events`); absent or null: every type. */
  events?: WebhookEventType[] | null;
}

/** Does the endpoint subscribe to this event type? (A request's callbackUrl always gets its own events.) */
export const endpointWants = (endpoint: Pick<WebhookEndpoint, 'events'>, type: string): boolean =>
  !endpoint.events || endpoint.events.includes(type as WebhookEventType);

/**
 * Who approves the merchant's manual payouts and its settlements (the dashboard's Settings page):
 * its own approvers in the dashboard, the operator (ops CLI), or both (both must approve, in either
 * order). Absent: either one, whichever decides first (the behaviour before the setting existed).
 */
export const payoutApprovalPolicies = ['either', 'merchant', 'operator', 'both'] as const;
export type PayoutApprovalPolicy = (typeof payoutApprovalPolicies)[number];
/**
 * Under `operator` and `both` an API withdrawal with `autoProcessPayout: true` is held Pending for
 * approval like a manual one: no key alone moves money out past the operator's approval.
 */
export const holdsAutomaticPayouts = (policy: PayoutApprovalPolicy | 'either' | undefined): boolean =>
  policy === 'operator' || policy === 'both';

export interface Merchant {
  merchantId: string;
  name: string;
  status: 'active' | 'suspended';
  defaultCurrency: Currency;
  fees: Record<FeeProduct, Fee>;
  settlementSchedule: SettlementSchedule;
  webhooks: Partial<Record<Mode, WebhookEndpoint>>;
  /** Local development only: accept http://127.0.0.1 / localhost webhook receivers. */
  allowInsecureWebhooks: boolean;
  /** Who approves manual payouts and settlements; absent = either the merchant's approvers or the operator. */
  payoutApprovals?: PayoutApprovalPolicy;
  createdAt: string;
  updatedAt: string;
  /** Bumped by every change (shared/store/merchants.ts changeMerchant); absent on merchants never changed since. */
  version?: number;
}

/** The next instant an automatic settlement runs, or null for a manual schedule. Pure. */
export function nextSettlementRun(schedule: SettlementSchedule, now: Date): Date | null {
  if (schedule.frequency === 'manual') return null;
  const at = (y: number, m: number, d: number) => new Date(Date.UTC(y, m, d, schedule.hourUtc));
  const y = now.getUTCFullYear();
  const m = now.getUTCMonth();
  const d = now.getUTCDate();
  if (schedule.frequency === 'daily') {
    const today = at(y, m, d);
    return today > now ? today : at(y, m, d + 1);
  }
  if (schedule.frequency === 'weekly') {
    const isoDay = ((now.getUTCDay() + 6) % 7) + 1; // Monday 1 … Sunday 7
    let ahead = (schedule.dayOfPeriod! - isoDay + 7) % 7;
    if (ahead === 0 && at(y, m, d) <= now) ahead = 7;
    return at(y, m, d + ahead);
  }
  const thisMonth = at(y, m, schedule.dayOfPeriod!);
  return thisMonth > now ? thisMonth : at(y, m + 1, schedule.dayOfPeriod!);
}

/** A suspended merchant's money stays put: no payout, settlement or refund goes to a provider (docs/security-and-limits.md). Pure. */
export const merchantMaySubmit = (merchant: Pick<Merchant, 'status'> | undefined): boolean => merchant?.status === 'active';
