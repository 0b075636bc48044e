import type { WalletProviderId } from '#shared/domain/providers.ts';
import type { Currency } from '#shared/domain/money.ts';

/** What every mobile-wallet adapter (the sandbox and any live one) implements; shared/providers/wallet.ts picks one. */
export type ChargeStart =
  | {
      accepted: true;
      providerReference: string;
      status: 'Pending' | 'Processing';
      message: string;
      /**
       * The provider gave no answer to the charge request (a timeout, a connection cut after sending, a 5xx, an answer
       * that cannot be read): the customer may have been prompted and may approve, so the charge is recorded as started
       * and the status inquiry decides (settledStatus: "no such charge" then means "not received" until the window ends).
       */
      unanswered?: true;
    }
  | { accepted: false; code: 'insufficient_balance' | 'provider_unavailable' | 'rejected'; message: string };

interface ChargeIds {
  providerTransactionId?: string;
  /** When the provider recorded the charge (ISO 8601), when its answer says: kept with a completed deposit for reconciliation. */
  providerTime?: string;
}

/** An answer that decides a charge (Approved, Declined) or leaves it waiting (Pending). */
export type SettledStatus = ({ status: 'Pending' } | { status: 'Approved' } | { status: 'Declined'; reason: string }) & ChargeIds;

/**
 * The provider's answer about a charge; `providerTransactionId` is its own id of the charge when it gives one.
 * `NotFound`: the provider says it has no such charge; `recorded` when that answer is a recorded code of the provider
 * (JazzCash 109), not an unconfirmed reading (Easypaisa 0003). settledStatus() says what it means for a given charge.
 */
export type ChargeStatus = SettledStatus | ({ status: 'NotFound'; recorded: boolean } & ChargeIds);

/**
 * What a status inquiry's answer means for a charge. "No such charge" about a charge whose request went unanswered
 * means the provider may never have received it: Pending, so that it ends Expired (nothing credited) when its approval
 * window ends, unless the provider answers otherwise before. About a charge the provider accepted, a recorded "no such
 * charge" declines it (`unknown_reference`); an unconfirmed one decides nothing: it throws, and the charge is asked
 * about again (docs/providers/easypaisa.md, Lost charge answers).
 */
export function settledStatus(answer: ChargeStatus, charge: { unanswered?: boolean }): SettledStatus {
  if (answer.status !== 'NotFound') return answer;
  const { status: _status, recorded, ...ids } = answer;
  if (charge.unanswered) return { status: 'Pending', ...ids };
  if (recorded) return { status: 'Declined', reason: 'unknown_reference', ...ids };
  throw new Error('no such charge, though accepted: asked again');
}

/**
 * A provider's notification about a charge, authenticated (its signature verified) but not
 * believed: it names the charge and states a few facts. It never decides: the gateway checks
 * the facts against the stored payment, then asks `statusInquiry`, whose answer alone moves the
 * payment (docs/security-and-limits.md, Provider callbacks).
 */
export interface ProviderNotification {
  providerReference: string;
  /** The amount the notification states (minor units), when it states one: it must be the stored payment's. */
  amountMinor?: number;
  /** The currency the notification states, when it states one: it must be the stored payment's. */
  currency?: Currency;
  /** The provider's own id of the charge (JazzCash's retrieval reference), when stated: it must be the inquiry's. */
  providerTransactionId?: string;
  /** Members that name another merchant account or transaction type than this adapter's: the notification is refused. */
  mismatched: string[];
}

/**
 * The longest a charge request waits for the provider's answer. The request's Lambda ends after 10 s
 * (infra/gateway-function.ts) and must still record the charge after the call: a provider that answers later (Easypaisa
 * answers only once the customer approved, up to 60 s) leaves the charge unanswered, recorded as started and settled by
 * the status inquiry (ChargeStart.unanswered), instead of a Lambda ended with a charge nobody recorded.
 */
export const chargeRequestTimeoutMs = 6_000;

/** A charge request the provider did not answer (ChargeStart.unanswered): recorded as started, its inquiry decides. */
export const unansweredCharge = (provider: string, providerReference: string): ChargeStart => ({
  accepted: true,
  providerReference,
  status: 'Pending',
  message: `Approval requested on the customer's handset; ${provider} has not answered yet: its status inquiry decides.`,
  unanswered: true,
});

/** When an adapter states no `firstInquiryAfterMs`: a handset prompt is rarely answered sooner. */
export const defaultFirstInquiryAfterMs = 3_000;

/** When to ask first about a charge prompted at `now`. */
export const firstInquiryAt = (adapter: WalletProviderAdapter, now: Date) =>
  new Date(now.getTime() + (adapter.firstInquiryAfterMs ?? defaultFirstInquiryAfterMs));

/** The longest a request runs (its Lambda's timeout, infra/gateway-function.ts): a charge request older than this has ended. */
const requestRunsAtMostMs = 10_000;

/** What a charge recorded before its request keeps (a hosted checkout's wallet attempt, a deposit). */
export interface RecordedCharge {
  /** The provider's reference of the charge (chargeReference, known before the request). */
  providerReference: string;
  chargeUnanswered?: true;
  /** Recorded before the request was sent; its answer not recorded yet. */
  requesting?: true;
}

/**
 * THE protocol of a charge that must reach the provider at most once (docs/providers/easypaisa.md, One charge per hosted
 * session; Deposits): the charge is recorded BEFORE the request, in the one conditional write that also takes what makes
 * it unique (the session's attempt, a deposit's orderRef), as `requesting` and unanswered, under the reference the
 * provider will know it by; due for the sweep's inquiry once the request can no longer be running. A twin refused by that
 * write never reaches the provider; a request that crashes before recording its answer is settled by the inquiry
 * (inquireCharge) like a lost answer: approved → credited once, "no such charge" → Expired when its window ends.
 */
export function requestedCharge(
  adapter: WalletProviderAdapter,
  reference: string,
  charge: { mobileNumber: string },
  now: Date,
): { charge: RecordedCharge & { chargeUnanswered: true; requesting: true }; dueAt: string } {
  const providerReference = adapter.chargeReference(reference, { mobileNumber: charge.mobileNumber, at: now });
  return {
    charge: { providerReference, chargeUnanswered: true, requesting: true },
    dueAt: firstInquiryAt(adapter, new Date(now.getTime() + requestRunsAtMostMs)).toISOString(),
  };
}

/**
 * The sweep's (or a notification's) inquiry about a recorded charge, as settledStatus() reads it: a charge whose request
 * was never answered (or whose answer was never recorded) is not declined by "no such charge" before its window ends.
 * `confirm` sees the provider's answer first and may refuse it by throwing.
 */
export async function inquireCharge(
  adapter: WalletProviderAdapter,
  charge: RecordedCharge,
  now: Date,
  confirm?: (answer: ChargeStatus) => void,
): Promise<SettledStatus> {
  const asked = await adapter.statusInquiry(charge.providerReference, now);
  confirm?.(asked);
  return settledStatus(asked, { unanswered: charge.chargeUnanswered === true });
}

interface WalletCharge {
  reference: string;
  mobileNumber: string;
  amountMinor: number;
  currency: string;
  cnicLast6?: string;
}

export interface WalletProviderAdapter {
  readonly providerId: WalletProviderId;
  readonly name: string;
  /** How long after the prompt the customer's answer is worth asking for (the first status inquiry). */
  readonly firstInquiryAfterMs?: number;
  /** Whether the one-time code the customer typed is the one the provider sent (hosted checkout's wallet step). */
  otpMatches?(otp: string): boolean;
  /**
   * The provider needs the last six digits of the customer's CNIC with every charge (JazzCash MWALLET
   * v2.0, docs/providers/jazzcash.md): the caller passes `cnicLast6` and refuses the request without it.
   */
  readonly asksForCnic?: boolean;
  /**
   * The provider's reference a charge given `reference` (to `mobileNumber`, requested `at`) will have, known before the
   * call: a charge is recorded under it before the customer is prompted (requestedCharge), so a crash or a lost answer
   * is settled by the inquiry. `startCharge` with the same charge at the same `now` answers with this reference.
   */
  chargeReference(reference: string, charge: { mobileNumber: string; at: Date }): string;
  /** `cnicLast6` goes to the provider only: never logged or stored. */
  startCharge(charge: WalletCharge, now: Date): Promise<ChargeStart>;
  /** The provider's authenticated server-to-server answer: the only thing that decides a charge. */
  statusInquiry(providerReference: string, now: Date): Promise<ChargeStatus>;
  /** Verifies the provider's signature over the raw body and reads what it states; undefined when it does not verify. */
  parseCallback(headers: Record<string, string>, rawBody: string): Promise<ProviderNotification | undefined>;
  /**
   * Withdraws a prompt the gateway will not record or will expire, so the customer cannot approve
   * a charge nobody credits. Throws when the provider cannot confirm it.
   */
  cancelCharge?(providerReference: string): Promise<void>;
}
