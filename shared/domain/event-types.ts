/** The event types the gateway sends (docs/merchant-guide.md, Webhooks). */
export const webhookEventTypes = ['TransactionStatusChanged', 'RefundStatusChanged', 'SettlementStatusChanged'] as const;
export type WebhookEventType = (typeof webhookEventTypes)[number];

/** Where an event's delivery stands (the events feed's `deliveryState`). */
export const deliveryStates = ['pending', 'retrying', 'delivered', 'dead_lettered', 'no_destination', 'endpoint_disabled'] as const;
export type DeliveryState = (typeof deliveryStates)[number];

/**
 * Every attribute an update of a webhook destination's health item names (shared/store/webhook-health.ts): the
 * dispatcher's grant to update it (functions/jobs.ts `updates`, dynamodb:Attributes) lists exactly these.
 */
export const healthAttributes = [
  'entity',
  'merchantId',
  'mode',
  'url',
  'updatedAt',
  'failingSince',
  'lastFailureAt',
  'disabledAt',
  'disabledReason',
] as const;
