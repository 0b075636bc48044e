import type { Mode } from './credentials.ts';
import { randomUUID } from 'node:crypto';
import type { IntentStatus, PaymentIntent } from './intent.ts';
import { fromMinor } from './money.ts';
import { eventReason, type ReasonCode } from './reasons.ts';
import { refundStatusNames, type Refund, type RefundStatus } from './refund.ts';
import { settlementStatusNames, type Settlement, type SettlementStatus } from './settlement.ts';
import { breakdownEventData } from './settlement-breakdown.ts';

/**
 * Webhook events (docs/merchant-guide.md, Webhooks): a lower-case envelope with PascalCase data, one
 * type per kind of thing whose status changed. Built when a status change commits and stored with
 * it (transactional outbox); the id is stable across every delivery attempt.
 */
export const eventType = 'TransactionStatusChanged';
import type { WebhookEventType } from './event-types.ts';

export { deliveryStates, webhookEventTypes, type DeliveryState, type WebhookEventType } from './event-types.ts';
export const apiVersion = 'v1';

export interface TransactionStatusChanged {
  id: string;
  type: typeof eventType;
  created: number;
  livemode: boolean;
  api_version: typeof apiVersion;
  data: {
    TransactionId: string;
    PreviousStatus: IntentStatus;
    CurrentStatus: IntentStatus;
    Amount: number;
    Currency: string;
    /** A stable code (shared/domain/reasons.ts); free text is in ReasonDetail. */
    Reason: ReasonCode | null;
    ReasonDetail: string | null;
    TransactionReference: string;
    CustomerRef: Record<string, string> | null;
    /** A JSON string holding OrderRef, Discount, Tax: receivers must parse it. */
    OrderRef: string;
    MerchantId: string;
    Timestamp: string;
    TraceId: string;
    IntentType: string;
    MetadataJson: string | null;
  };
}

interface Envelope<T extends WebhookEventType> {
  id: string;
  type: T;
  created: number;
  livemode: boolean;
  api_version: typeof apiVersion;
}

/** A refund's status changed (statuses are the refund's integers, shared/domain/refund.ts). */
export interface RefundStatusChanged extends Envelope<'RefundStatusChanged'> {
  data: {
    RefundId: string;
    PaymentIntentId: string;
    TransactionReference: string;
    PreviousStatus: RefundStatus;
    CurrentStatus: RefundStatus;
    CurrentStatusName: (typeof refundStatusNames)[number];
    Amount: number;
    Currency: string;
    Reason: string | null;
    AttemptCount: number;
    MerchantId: string;
    Timestamp: string;
    TraceId: string;
  };
}

/** A settlement's status changed (statuses are the settlement's integers, shared/domain/settlement.ts). */
export interface SettlementStatusChanged extends Envelope<'SettlementStatusChanged'> {
  data: {
    SettlementId: string;
    PreviousStatus: SettlementStatus;
    CurrentStatus: SettlementStatus;
    CurrentStatusName: (typeof settlementStatusNames)[number];
    Amount: number;
    Currency: string;
    PayoutCurrency: string;
    PayoutAmount: number | null;
    FxRate: number | null;
    FailureReason: string | null;
    IsAuto: boolean;
    MerchantId: string;
    Timestamp: string;
    TraceId: string;
    /** What it paid out (shared/domain/settlement-breakdown.ts); null for a settlement from before breakdowns. */
    Breakdown: ReturnType<typeof breakdownEventData> | null;
  };
}

export type WebhookEvent = TransactionStatusChanged | RefundStatusChanged | SettlementStatusChanged;

/**
 * What an event is about. Its outbox item, delivery log and resend requests live in that thing's
 * partition (shared/store/keys.ts `eventHome`).
 */
export interface EventSubject {
  kind: 'transaction' | 'refund' | 'settlement';
  id: string;
}

/**
 * An event and where it goes: what the outbox item, a merchant's resend request and a webhook queue
 * message all carry. `callbackUrl` is the request's; null = the merchant's endpoint for the mode.
 * `paymentIntentId` is the transaction (for a refund event: the refunded one; null for a
 * settlement event). `subject` is absent on items and messages written before refund and
 * settlement events existed: they are all about their transaction (subjectOf).
 */
export interface AddressedEvent {
  eventId: string;
  paymentIntentId: string | null;
  subject?: EventSubject;
  merchantId: string;
  mode: Mode;
  callbackUrl: string | null;
  event: WebhookEvent;
}

export function subjectOf(e: { paymentIntentId: string | null; subject?: EventSubject }): EventSubject {
  if (e.subject) return e.subject;
  if (!e.paymentIntentId) throw new Error('an event without a subject must name its transaction');
  return { kind: 'transaction', id: e.paymentIntentId };
}

const newEventId = () => `evt_${randomUUID().replaceAll('-', '')}`;
const envelope = <T extends WebhookEventType>(type: T, mode: Mode, now: Date): Envelope<T> => ({
  id: newEventId(),
  type,
  created: Math.floor(now.getTime() / 1000),
  livemode: mode === 'live',
  api_version: apiVersion,
});

export function refundStatusChangedEvent(refund: Refund, previous: RefundStatus, now: Date): RefundStatusChanged {
  return {
    ...envelope('RefundStatusChanged', refund.mode, now),
    data: {
      RefundId: refund.id,
      PaymentIntentId: refund.paymentIntentId,
      TransactionReference: refund.transactionReference,
      PreviousStatus: previous,
      CurrentStatus: refund.status,
      CurrentStatusName: refundStatusNames[refund.status],
      Amount: fromMinor(refund.amountMinor, refund.currency),
      Currency: refund.currency,
      Reason: refund.reason,
      AttemptCount: refund.attemptCount,
      MerchantId: refund.merchantId,
      Timestamp: now.toISOString(),
      TraceId: refund.traceId,
    },
  };
}

export function settlementStatusChangedEvent(settlement: Settlement, previous: SettlementStatus, now: Date): SettlementStatusChanged {
  return {
    ...envelope('SettlementStatusChanged', settlement.mode, now),
    data: {
      SettlementId: settlement.id,
      PreviousStatus: previous,
      CurrentStatus: settlement.status,
      CurrentStatusName: settlementStatusNames[settlement.status],
      Amount: fromMinor(settlement.amountMinor, settlement.currency),
      Currency: settlement.currency,
      PayoutCurrency: settlement.payoutCurrency,
      PayoutAmount: settlement.payoutMinor === null ? null : fromMinor(settlement.payoutMinor, settlement.payoutCurrency),
      FxRate: settlement.fxRate === null ? null : Number(settlement.fxRate),
      FailureReason: settlement.failureReason,
      IsAuto: settlement.isAuto,
      MerchantId: settlement.merchantId,
      Timestamp: now.toISOString(),
      TraceId: settlement.traceId,
      Breakdown: settlement.breakdown ? breakdownEventData(settlement.breakdown, settlement.currency) : null,
    },
  };
}

export function statusChangedEvent(intent: PaymentIntent, previous: IntentStatus, now: Date): TransactionStatusChanged {
  return {
    ...envelope(eventType, intent.mode, now),
    data: {
      TransactionId: intent.paymentIntentId,
      PreviousStatus: previous,
      CurrentStatus: intent.status,
      Amount: fromMinor(intent.amountMinor, intent.currency),
      Currency: intent.currency,
      ...eventReason(intent),
      TransactionReference: intent.transactionReference,
      CustomerRef: intent.customerRef,
      OrderRef: JSON.stringify({
        OrderRef: intent.orderRef.orderRef,
        Discount: intent.orderRef.discount ?? null,
        Tax: intent.orderRef.tax ?? null,
      }),
      MerchantId: intent.merchantId,
      Timestamp: now.toISOString(),
      TraceId: intent.traceId,
      IntentType: intent.intentType,
      MetadataJson: intent.metadataJson,
    },
  };
}

/** An event as the outbox holds it: the addressed envelope and when it was recorded. */
export interface StoredEvent<E extends WebhookEvent = WebhookEvent> extends AddressedEvent {
  event: E;
  createdAt: string;
}
