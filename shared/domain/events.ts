import type { Mode } from './credentials.ts';
import { randomUUID } from 'node:crypto';
import type { IntentStatus, PaymentIntent } from './intent.ts';
import { fromMinor } from './money.ts';

/**
 * The one webhook event, TransactionStatusChanged (SPEC "Events"): a lower-case envelope with
 * PascalCase data. Built when a status change commits and stored with it (transactional outbox);
 * the id is stable across every delivery attempt.
 */
export const eventType = 'TransactionStatusChanged';
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
    Reason: string | null;
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

/**
 * An event and where it goes: what the outbox item, a merchant's resend request and a webhook queue
 * message all carry. `callbackUrl` is the request's; null = the merchant's endpoint for the mode.
 */
export interface AddressedEvent {
  eventId: string;
  paymentIntentId: string;
  merchantId: string;
  mode: Mode;
  callbackUrl: string | null;
  event: TransactionStatusChanged;
}

export function statusChangedEvent(intent: PaymentIntent, previous: IntentStatus, now: Date): TransactionStatusChanged {
  return {
    id: `evt_${randomUUID().replaceAll('-', '')}`,
    type: eventType,
    created: Math.floor(now.getTime() / 1000),
    livemode: intent.mode === 'live',
    api_version: apiVersion,
    data: {
      TransactionId: intent.paymentIntentId,
      PreviousStatus: previous,
      CurrentStatus: intent.status,
      Amount: fromMinor(intent.amountMinor, intent.currency),
      Currency: intent.currency,
      Reason: intent.reason,
      TransactionReference: intent.transactionReference,
      CustomerRef: intent.customerRef,
      OrderRef: JSON.stringify({ OrderRef: intent.orderRef.orderRef, Discount: intent.orderRef.discount ?? null, Tax: intent.orderRef.tax ?? null }),
      MerchantId: intent.merchantId,
      Timestamp: now.toISOString(),
      TraceId: intent.traceId,
      IntentType: intent.intentType,
      MetadataJson: intent.metadataJson,
    },
  };
}

/** An event as the outbox holds it: the addressed envelope and when it was recorded. */
export interface StoredEvent extends AddressedEvent {
  createdAt: string;
}
