/** The webhook event types (shared/domain/events.ts builds them); merchants' endpoints subscribe to a subset. */
export const webhookEventTypes = ['TransactionStatusChanged', 'RefundStatusChanged', 'SettlementStatusChanged'] as const;
export type WebhookEventType = (typeof webhookEventTypes)[number];
