import { isRefusal } from '#shared/domain/core/decision.ts';
import { decideCharge, decideDepositAnswer, depositRefusal, newIntent, notificationMismatches } from '#shared/domain/core/intent.ts';
import type { ErrorCode } from '#shared/domain/error-codes.ts';
import { randomUUID } from 'node:crypto';
import { modes, type Mode } from '#shared/domain/credentials.ts';
import { BusinessRuleError, DomainError, NotFoundError } from '#shared/domain/errors.ts';
import { isTerminal, requestedFields, type OrderRef, type PaymentIntent } from '#shared/domain/intent.ts';
import type { Fee } from '#shared/domain/merchant.ts';
import { fromMinor, type Currency } from '#shared/domain/money.ts';
import { walletProviders, type WalletProviderId } from '#shared/domain/providers.ts';
import { logger } from '#shared/logger.ts';
import { assertSafeCallbackUrl } from '#shared/domain/webhook-url.ts';
import {
  firstInquiryAt,
  inquireCharge,
  providerIdByCode,
  requestedCharge,
  walletAdapter,
  type ChargeStart,
  type ChargeStatus,
  type RecordedCharge,
  type SettledStatus,
} from '#shared/providers/wallet.ts';
import type { TransactionFailed } from '#shared/store/client.ts';
import type { FinalChange, RequestChange } from '#shared/store/request.ts';
import { releaseWrite } from '#shared/store/idempotency.ts';
import {
  createIntentWrites,
  discardIntentWrites,
  findIntent,
  findProviderReference,
  getIntent,
  orderRefTaken,
  providerReferenceWrite,
  unlinkedSameStatusWrites,
} from '#shared/store/intents.ts';
import { holdApprovalIfSuspended, isHeld } from './held-approvals.ts';
import { changeIntent, lookAgainLater, type IntentOutcome } from './transactions.ts';

/**
 * Deposits: a direct charge against a customer's mobile wallet (docs/merchant-guide.md, Deposits).
 * Acceptance is not payment: the intent stays Pending until the provider's authoritative answer,
 * its status inquiry (asked by the reconciler, or at once when the provider's callback notifies),
 * makes it Completed, Failed or Expired. The reconciler is the due sweeper: a deposit is due a few seconds after it starts and
 * then every 15 s until it expires (its approval window: newIntent, shared/domain/core/intent.ts).
 */
const reconcileEveryMs = 15_000;

export interface DepositInput {
  merchantId: string;
  mode: Mode;
  traceId: string;
  currency: Currency;
  amountMinor: number;
  providerId: WalletProviderId;
  mobileNumber: string;
  description: string;
  orderRef: OrderRef;
  customerRef: Record<string, string> | null;
  callbackUrl: string | null;
  metadataJson: string | null;
  fee: Fee;
  allowInsecureWebhooks: boolean;
}

export interface DepositResponse {
  paymentIntentId: string;
  amount: number;
  currency: Currency;
  merchantReference: string;
  walletChargeInfo: WalletChargeInfo;
}

export interface WalletChargeInfo {
  provider: string;
  status: string;
  transactionReference: string;
  message: string;
  isSuccess: boolean;
  errorCode: string | null;
  errorDetails: string | null;
  traceId: string;
}

interface DepositDetails extends RecordedCharge {
  providerId: WalletProviderId;
  walletNumberLast4: string;
  walletChargeInfo: WalletChargeInfo;
}

const details = (intent: PaymentIntent) => intent.details as unknown as DepositDetails;

const depositResponse = (intent: PaymentIntent): DepositResponse => ({
  paymentIntentId: intent.paymentIntentId,
  amount: fromMinor(intent.amountMinor, intent.currency),
  currency: intent.currency,
  merchantReference: intent.orderRef.orderRef,
  walletChargeInfo: details(intent).walletChargeInfo,
});

const refusalOf = (refused: Extract<ChargeStart, { accepted: false }>) =>
  new BusinessRuleError(
    refused.message,
    refused.code === 'provider_unavailable'
      ? 'wallet_provider_unavailable'
      : refused.code === 'insufficient_balance'
        ? 'insufficient_customer_balance'
        : 'charge_rejected',
  );

/**
 * Starts a deposit, a two-step request (shared/store/request.ts) on the protocol of requestedCharge()
 * (shared/providers/wallet-contract.ts), the hosted checkout's: the FIRST commit takes the orderRef (its conditional put)
 * with the intent recorded Pending, `requesting`, under the reference the provider will know the charge by, due for the
 * reconciler's inquiry once the request can no longer be running; only then is the provider asked to charge, once. A
 * twin with the same orderRef is refused by that commit (422 duplicate_order_ref) and never reaches the provider. The
 * second commit records the answer (with the Idempotency-Key's response); a definite refusal undoes the first commit
 * (nothing charged: the orderRef is free again) and answers 422. A crash in between leaves the recorded charge, which
 * the reconciler settles by its inquiry as an unanswered charge: approved → Completed once, else Expired.
 */
export async function createDeposit(input: DepositInput, now = new Date()): Promise<RequestChange<DepositResponse>> {
  const provider = walletProviders[input.providerId];
  const refused = depositRefusal(input.amountMinor, input.currency, input.providerId);
  if (refused) throw new BusinessRuleError(refused.message, refused.refused as ErrorCode);
  if (input.callbackUrl) await assertSafeCallbackUrl(input.callbackUrl, input.allowInsecureWebhooks);
  const adapter = walletAdapter(input.mode, input.providerId);
  if (!adapter)
    throw new BusinessRuleError(
      `Wallet provider unavailable: ${provider.name} is not configured for live payments.`,
      'wallet_provider_unavailable',
    );
  // JazzCash's live wallet API takes the last six digits of the customer's CNIC (docs/providers/jazzcash.md).
  const cnic = input.customerRef?.cnic;
  if (adapter.asksForCnic && !cnic) {
    const rule = `required for ${provider.name} live deposits (the customer's 13-digit CNIC)`;
    throw new DomainError('invalid', `customerRef.cnic is ${rule}.`, { errors: { 'customerRef.cnic': [rule] } });
  }

  // An early answer for a reused orderRef; the first commit below decides a race.
  const duplicate = () => new BusinessRuleError(`orderRef ${input.orderRef.orderRef} was already used.`, 'duplicate_order_ref');
  if (await orderRefTaken(input.merchantId, input.mode, input.orderRef.orderRef)) throw duplicate();
  const paymentIntentId = randomUUID();
  const { charge: requested, dueAt } = requestedCharge(adapter, paymentIntentId, { mobileNumber: input.mobileNumber }, now);
  const walletChargeInfo: WalletChargeInfo = {
    provider: provider.name,
    status: 'Pending',
    transactionReference: requested.providerReference,
    message: `The charge request is being sent to ${provider.name}; its status inquiry decides.`,
    isSuccess: true,
    errorCode: null,
    errorDetails: null,
    traceId: input.traceId,
  };
  const recorded: DepositDetails = {
    providerId: input.providerId,
    walletNumberLast4: input.mobileNumber.slice(-4),
    walletChargeInfo,
    ...requested,
  };
  // The money core's rules of a new deposit (checked above, before anything else): its fee, its approval window.
  const intent = newIntent(
    {
      ...requestedFields(input),
      paymentIntentId,
      merchantId: input.merchantId,
      mode: input.mode,
      intentType: 'deposit',
      traceId: input.traceId,
      amountMinor: input.amountMinor,
      currency: input.currency,
      feeRate: input.fee,
      // The transaction reference of a wallet charge is the provider's; lookups and webhooks use it.
      transactionReference: requested.providerReference,
      details: recorded as unknown as Record<string, unknown>,
    },
    now,
  );
  const created = [
    ...createIntentWrites(intent, { dueAt }),
    providerReferenceWrite(provider.code, requested.providerReference, { paymentIntentId, mode: input.mode }),
  ];
  // Once, after the first commit (`next` runs again when its commit lost a race).
  let asked: Promise<ChargeStart> | undefined;
  const charge = () =>
    (asked ??= adapter.startCharge(
      {
        reference: paymentIntentId,
        mobileNumber: input.mobileNumber,
        amountMinor: input.amountMinor,
        currency: input.currency,
        ...(adapter.asksForCnic && cnic ? { cnicLast6: cnic.slice(-6) } : {}),
      },
      now,
    ));
  const again = (failed: TransactionFailed) => (failed.on('intent') ? ('again' as const) : undefined);
  return {
    writes: created,
    refused: (failed) => (failed.on('orderRef') ? duplicate() : undefined),
    next: async () => {
      // A charge that throws may have reached the handset: the recorded charge stays, settled by the reconciler.
      const started = await charge();
      const current = await getIntent(paymentIntentId);
      if (!current) throw new Error(`deposit ${paymentIntentId} not found after its first commit`);
      // Settled meanwhile (the reconciler's inquiry or a provider's notification about this very charge): left as it is.
      if (current.status !== 'Pending' || details(current).requesting !== true) return { writes: [], response: depositResponse(current) };
      if (!started.accepted)
        return { writes: discardIntentWrites(current, created), refusal: refusalOf(started), release: releaseWrite, refused: again };
      if (started.providerReference !== requested.providerReference)
        logger.error('deposit: the provider answered with another reference than it states before the request', {
          paymentIntentId,
          recorded: requested.providerReference,
          answered: started.providerReference,
        });
      const answer = { type: 'answered' as const, status: started.status, message: started.message, unanswered: started.unanswered };
      const answered = decideCharge(current, answer, now);
      if (isRefusal(answered)) return { writes: [], response: depositResponse(current) };
      const writes = unlinkedSameStatusWrites(current, answered.state, firstInquiryAt(adapter, now).toISOString());
      return { writes, response: depositResponse(answered.state), refused: again };
    },
    fallback: async () => {
      const stored = await getIntent(paymentIntentId);
      // Undone (the provider refused) before the fault: the refusal is the answer.
      if (!stored) {
        const started = await charge();
        throw started.accepted ? new Error(`deposit ${paymentIntentId} vanished`) : refusalOf(started);
      }
      return { writes: [], response: depositResponse(stored) };
    },
  };
}

/**
 * A deposit whose request died between its two commits, retried with its Idempotency-Key once the claim lapsed: the
 * deposit as stored is the answer (the reconciler settles its charge). Undefined when there is no such deposit.
 */
export async function recoverDeposit(merchantId: string, mode: Mode, orderRef: string): Promise<FinalChange<DepositResponse> | undefined> {
  const intent = await findIntent(merchantId, mode, orderRef);
  return intent?.intentType === 'deposit' ? { writes: [], response: depositResponse(intent) } : undefined;
}

const chargeInfo = (current: PaymentIntent, status: string, extra: Partial<WalletChargeInfo> = {}) => ({
  walletChargeInfo: { ...details(current).walletChargeInfo, status, ...extra },
});

/** What an approved deposit records of its charge (and when the provider recorded it, for reconciling its reports). */
const approvedCharge = (current: PaymentIntent, providerTime?: string) => ({
  ...chargeInfo(current, 'Completed', { message: 'Approved by the customer.' }),
  ...(providerTime ? { providerTime } : {}),
});

/** What a held deposit records of its charge when the operator releases or declines it (a checkout records nothing). */
export function heldChargeDetails(current: PaymentIntent, decision: 'release' | 'decline') {
  if (current.intentType !== 'deposit') return undefined;
  if (decision === 'release') return approvedCharge(current);
  const errorDetails = 'The payment was not accepted for this merchant; the customer is refunded by the wallet provider.';
  return chargeInfo(current, 'Failed', { isSuccess: false, errorCode: 'WP_REQUEST_REJECTED', errorDetails });
}

/**
 * What the provider's authoritative answer means for a deposit, as the money core decides it (decideAnswer: Completed
 * credits the wallet net of the fee; a held approval is the operator's only), with what the deposit records of its charge.
 */
export function decideDeposit(current: PaymentIntent, answer: SettledStatus, now: Date): IntentOutcome {
  const declined = { isSuccess: false, errorCode: 'WP_REQUEST_REJECTED', errorDetails: 'The customer did not approve the payment.' };
  const details =
    answer.status === 'Approved'
      ? approvedCharge(current, answer.providerTime)
      : answer.status === 'Declined'
        ? chargeInfo(current, 'Failed', declined)
        : chargeInfo(current, 'Expired', { isSuccess: false });
  return decideDepositAnswer(current, { type: 'charge-answered', answer, details }, now);
}

/** What asking the provider did to a deposit (a callback's answer). */
export interface InquiryResult {
  paymentIntentId: string;
  status: PaymentIntent['status'] | undefined;
  changed: boolean;
  held?: true;
}

/**
 * Asks the provider's status inquiry about a deposit and applies its answer, or looks again later:
 * the reconciler (a due handler) and, at once, a provider's notification (which only triggers it).
 * `confirm` sees the answer before anything changes and may refuse it by throwing.
 */
export async function reconcileDeposit(
  intent: PaymentIntent,
  now: Date,
  trigger: { source: 'inquiry' | 'callback'; confirm?: (answer: ChargeStatus) => void } = { source: 'inquiry' },
): Promise<InquiryResult> {
  const adapter = walletAdapter(intent.mode, details(intent).providerId);
  // "No such charge" about a charge whose request went unanswered waits for the window (then Expired, nothing credited).
  const answer: SettledStatus = adapter ? await inquireCharge(adapter, details(intent), now, trigger.confirm) : { status: 'Pending' };
  // The reconciler keeps its own schedule; a notification, which anyone may send, never moves it.
  const reschedules = trigger.source === 'inquiry';
  const unchanged = (current: PaymentIntent | undefined, held?: true): InquiryResult => ({
    paymentIntentId: intent.paymentIntentId,
    status: current?.status,
    changed: false,
    ...(held ? { held } : {}),
  });
  const expiring =
    intent.status === 'Pending' &&
    answer.status === 'Pending' &&
    intent.expiresAt !== null &&
    now.getTime() >= Date.parse(intent.expiresAt);
  if (expiring && adapter?.cancelCharge) {
    // Withdraw the prompt first: a charge approved after we wrote Expired would be money nobody credits.
    try {
      await adapter.cancelCharge(details(intent).providerReference);
    } catch (error) {
      logger.warn('deposit: provider did not confirm cancellation; not expiring yet', { paymentIntentId: intent.paymentIntentId, error });
      if (reschedules) await lookAgainLater(intent, new Date(now.getTime() + reconcileEveryMs).toISOString(), now);
      return unchanged(intent);
    }
  }
  if (answer.status === 'Approved') {
    const held = await holdApprovalIfSuspended(
      intent.paymentIntentId,
      { source: trigger.source, providerReference: details(intent).providerReference },
      now,
    );
    if (held) return unchanged(held, true);
  }
  const result = await changeIntent(
    intent.paymentIntentId,
    (current) => decideDeposit(current, answer, now),
    () => now,
  );
  reportLateApproval(result, answer);
  if (reschedules && !result.changed && result.intent?.status === 'Pending' && !isHeld(result.intent)) {
    const next = Math.min(now.getTime() + reconcileEveryMs, Date.parse(result.intent.expiresAt ?? now.toISOString()));
    await lookAgainLater(result.intent, new Date(Math.max(next, now.getTime() + 1000)).toISOString(), now);
  }
  return result.changed
    ? { paymentIntentId: intent.paymentIntentId, status: result.intent.status, changed: true }
    : unchanged(result.intent);
}

/**
 * A provider says "approved" for a deposit that already ended Failed or Expired: the customer paid
 * and nobody was credited. The status is never moved back; operators must refund the customer at
 * the provider (this error line is what the alarm on errors catches).
 */
function reportLateApproval(result: Awaited<ReturnType<typeof changeIntent>>, answer: SettledStatus) {
  if (
    answer.status === 'Approved' &&
    !result.changed &&
    result.intent &&
    isTerminal(result.intent.status) &&
    result.intent.status !== 'Completed'
  ) {
    logger.error('deposit: approval arrived after the deposit closed; refund the customer at the provider', {
      paymentIntentId: result.intent.paymentIntentId,
      status: result.intent.status,
      providerReference: details(result.intent).providerReference,
    });
  }
}

/**
 * A provider's notification (POST /providers/wallet/{provider}/callback) is a trigger, never the
 * decision (docs/security-and-limits.md, Provider callbacks): its signature is verified by the
 * provider's test or live adapter (none verifies: 401), the charge it names must be of that mode
 * (404), what it states (merchant account, transaction type, amount) must be the stored payment's
 * (400, nothing changes), and then the provider's own status inquiry is asked, whose answer alone
 * moves the payment (as the reconciler's would); its transaction id must be the notification's.
 * The provider unreachable: nothing changes and the reconciler asks later. Applying it twice changes nothing.
 */
export async function applyProviderCallback(
  providerCode: string,
  headers: Record<string, string>,
  rawBody: string,
  now = new Date(),
): Promise<InquiryResult> {
  const providerId = providerIdByCode(providerCode);
  if (!providerId) throw new NotFoundError(`No wallet provider ${providerCode}.`);
  for (const mode of modes) {
    const notification = await walletAdapter(mode, providerId)?.parseCallback(headers, rawBody);
    if (!notification) continue;
    const pointer = await findProviderReference(walletProviders[providerId].code, notification.providerReference);
    const intent = pointer?.mode === mode ? await getIntent(pointer.paymentIntentId) : undefined;
    if (intent?.intentType !== 'deposit') throw new NotFoundError(`No charge ${notification.providerReference}.`);
    const mismatched = notificationMismatches(intent, notification);
    if (mismatched.length) throw notificationMismatch(mismatched);
    const confirm = (answer: ChargeStatus) => {
      const stated = notification.providerTransactionId;
      if (stated && answer.providerTransactionId && stated !== answer.providerTransactionId) throw notificationMismatch(['transaction id']);
    };
    try {
      return await reconcileDeposit(intent, now, { source: 'callback', confirm });
    } catch (error) {
      if (error instanceof DomainError) throw error;
      // Acknowledged as it stands: the deposit stays due, and the reconciler asks again shortly.
      logger.warn('deposit: provider inquiry failed after a notification; the reconciler asks later', {
        paymentIntentId: intent.paymentIntentId,
        error,
      });
      return { paymentIntentId: intent.paymentIntentId, status: intent.status, changed: false };
    }
  }
  throw new DomainError('unauthenticated', 'The provider signature does not verify.', { code: 'provider_signature_invalid' });
}

const notificationMismatch = (fields: string[]) =>
  new DomainError('invalid', `The notification does not match the stored charge: ${fields.join(', ')}. Nothing changed.`, {
    code: 'provider_notification_mismatch',
    errors: Object.fromEntries(fields.map((f) => [f, ['does not match the stored charge']])),
  });
