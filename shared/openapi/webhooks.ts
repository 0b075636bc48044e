import type { z } from 'zod';
import {
  RefundStatusChanged,
  refundStatusChangedExample,
  SettlementStatusChanged,
  settlementStatusChangedExample,
  TransactionStatusChanged,
  transactionStatusChangedExample,
} from './responses.ts';

/**
 * The event types the gateway delivers, for the document's `webhooks` section. One entry per type:
 * add a row here when a type is added in shared/domain/events.ts (the document test checks that
 * every type listed there has a row).
 */
export interface WebhookEventDoc {
  readonly type: string;
  readonly summary: string;
  readonly description: string;
  readonly schema: z.ZodType;
  readonly example: unknown;
}

export const webhookEvents: readonly WebhookEventDoc[] = [
  {
    type: 'TransactionStatusChanged',
    summary: 'A checkout, deposit or withdrawal changed status',
    description:
      'Sent when a transaction moves between statuses (Pending, Processing, Completed, Failed, Cancelled, ' +
      'Expired), to the request’s callbackUrl or else the merchant’s endpoint for the mode.',
    schema: TransactionStatusChanged,
    example: transactionStatusChangedExample,
  },
  {
    type: 'RefundStatusChanged',
    summary: 'A refund changed status',
    description:
      'Sent on every refund status change (Pending, Approved, Processing, Completed, Failed, ' +
      'Cancelled, Rejected, Expired) to the merchant’s endpoint for the mode, if it subscribes to ' +
      'this type. Statuses are the refund’s integers; CurrentStatusName names the new one.',
    schema: RefundStatusChanged,
    example: refundStatusChangedExample,
  },
  {
    type: 'SettlementStatusChanged',
    summary: 'A settlement changed status',
    description:
      'Sent on every settlement status change (Pending, Approved, Processing, Completed, Failed, ' +
      'Cancelled) to the merchant’s endpoint for the mode, if it subscribes to this type. ' +
      'Statuses are the settlement’s integers; CurrentStatusName names the new one.',
    schema: SettlementStatusChanged,
    example: settlementStatusChangedExample,
  },
];

/** The headers on every delivery (shared/webhooks/signing.ts; docs/merchant-guide.md, Webhooks, "Headers"). */
export const webhookHeaders = {
  'X-Svc-Signature-V2': {
    description:
      '`t=<unix>,v1=<hex>`: the header to verify. `v1` is hex HMAC-SHA256 of `<timestamp>.<raw body>` with ' +
      'the endpoint’s whsec_ secret; during a secret rotation one `v1=` per live secret is sent. Compare ' +
      'in constant time and refuse timestamps more than 300 seconds from your clock.',
    example: 't=1748772900,v1=5d41402abc4b2a76b9719d911017c592ae41b6f4a1d2c3e4f5a6b7c8d9e0f1a2',
  },
  'X-Svc-Signature-Timestamp': { description: 'The Unix timestamp, also inside X-Svc-Signature-V2.', example: '1748772900' },
  'X-Svc-Signature': {
    description: 'Deprecated: hex HMAC-SHA256 of the body alone, with the newest secret. Verify X-Svc-Signature-V2 instead.',
    example: '9f86d081884c7d659a2feaa0c55ad015a3bf4f1b2b0b822cd15d6c15b0f00a08',
  },
  'X-Svc-Event-Type': { description: 'The event type, as in `type`.', example: 'TransactionStatusChanged' },
  'X-Svc-Event-Id': {
    description: 'The event id (`id`), the same on every attempt: deduplicate on it.',
    example: 'evt_5b1f0c2a9d3e4f6a8b7c1d2e3f4a5b6c',
  },
  'X-Svc-Delivery-Id': { description: 'The id of this delivery attempt.', example: 'dlv_7c1d2e3f4a5b6c5b1f0c2a9d3e4f6a8b' },
  'webhook-id': { description: 'Standard Webhooks: the event id.', example: 'evt_5b1f0c2a9d3e4f6a8b7c1d2e3f4a5b6c' },
  'webhook-timestamp': { description: 'Standard Webhooks: Unix seconds.', example: '1748772900' },
  'webhook-signature': {
    description: 'Standard Webhooks: `v1,<base64>` per live secret, space separated (verifies with standardwebhooks libraries).',
    example: 'v1,K5oZfzN95Z9UVu1EsfQmfVNQhnkZ2pj9o9NDN/H/pI4=',
  },
} as const;
