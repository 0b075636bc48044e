/**
 * The state machines of the interface (docs/merchant-guide.md: Transaction lookup, Settlements, Refunds), written
 * once: transaction (checkout, deposit, withdrawal = payout), settlement and refund statuses and the moves between
 * them. The core's decisions (shared/domain/core) ask these; the store turns a permitted move into a conditional
 * write, so a final status is never left whatever races.
 */

/** Every intent type and status, once: the API's filters, the reference, the dashboard and the store read these lists. */
export const intentTypes = ['checkout', 'deposit', 'withdrawal'] as const;
export const intentStatuses = ['Pending', 'Processing', 'Completed', 'Failed', 'Cancelled', 'Expired'] as const;
export type IntentType = (typeof intentTypes)[number];
export type IntentStatus = (typeof intentStatuses)[number];

export const terminalStatuses: readonly IntentStatus[] = ['Completed', 'Failed', 'Cancelled', 'Expired'];
export const isTerminal = (s: IntentStatus) => terminalStatuses.includes(s);

/** from → allowed next statuses, per intent type (docs/merchant-guide.md, Transaction lookup). A payout is a withdrawal. */
const intentMoves: Record<IntentType, Partial<Record<IntentStatus, readonly IntentStatus[]>>> = {
  checkout: { Pending: ['Completed', 'Failed', 'Cancelled', 'Expired'] },
  deposit: { Pending: ['Completed', 'Failed', 'Expired'] },
  withdrawal: { Pending: ['Processing', 'Cancelled', 'Failed'], Processing: ['Completed', 'Failed'] },
};

export function canTransition(type: IntentType, from: IntentStatus, to: IntentStatus): boolean {
  return intentMoves[type][from]?.includes(to) ?? false;
}

/**
 *   0 Pending --approve (hold)--> 1 Approved --attempt--> 2 Processing --> 3 Completed (wallet debited)
 *   0 Pending --reject--> 6 Rejected;  --cancel--> 5 Cancelled;  --7 days--> 7 Expired
 *   2 Processing --attempt declined, attempts left--> 2 Processing (retried; attemptCount counts)
 *   2 Processing --3rd attempt declined--> 4 Failed (hold released)
 */
export const RefundStatus = {
  Pending: 0,
  Approved: 1,
  Processing: 2,
  Completed: 3,
  Failed: 4,
  Cancelled: 5,
  Rejected: 6,
  Expired: 7,
} as const;
export type RefundStatus = (typeof RefundStatus)[keyof typeof RefundStatus];
export const refundStatusNames = ['Pending', 'Approved', 'Processing', 'Completed', 'Failed', 'Cancelled', 'Rejected', 'Expired'] as const;

const refundMoves: Record<RefundStatus, readonly RefundStatus[]> = {
  0: [1, 5, 6, 7],
  1: [2],
  2: [2, 3, 4],
  3: [],
  4: [],
  5: [],
  6: [],
  7: [],
};

export const canRefundTransition = (from: RefundStatus, to: RefundStatus) => refundMoves[from].includes(to);

/**
 *   0 Pending    --approve-->  1 Approved  (FX rate locked)   --rail-->  2 Processing --> 3 Completed
 *   0 Pending    --reject / cancel-->  5 Cancelled (funds released)       2 Processing --> 4 Failed (funds released)
 *   1 Approved   --rail refuses-->  4 Failed (funds released)
 */
export const SettlementStatus = { Pending: 0, Approved: 1, Processing: 2, Completed: 3, Failed: 4, Cancelled: 5 } as const;
export type SettlementStatus = (typeof SettlementStatus)[keyof typeof SettlementStatus];
export const settlementStatusNames = ['Pending', 'Approved', 'Processing', 'Completed', 'Failed', 'Cancelled'] as const;

const settlementMoves: Record<SettlementStatus, readonly SettlementStatus[]> = {
  0: [1, 5],
  1: [2, 4],
  2: [3, 4],
  3: [],
  4: [],
  5: [],
};

export const canSettlementTransition = (from: SettlementStatus, to: SettlementStatus) => settlementMoves[from].includes(to);
