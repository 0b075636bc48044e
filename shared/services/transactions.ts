import type { Mode } from '#shared/domain/credentials.ts';
import { isTerminal, type IntentStatus, type IntentType, type PaymentIntent } from '#shared/domain/intent.ts';
import { fromMinor } from '#shared/domain/money.ts';
import { attemptsOf, attemptView, checkoutDetails } from '#shared/domain/checkout.ts';
import { changeVersioned } from '#shared/store/versioned.ts';
import { emitOutcome } from '#shared/metrics.ts';
import {
  findIntent,
  findIntentByOrderRef,
  getIntent,
  getIntentsOf,
  intentCursor,
  pageIntents,
  rescheduleDue,
  sameStatusWrites,
  transitionWrites,
  type Transition,
} from '#shared/store/intents.ts';
import { isRefusal, type Decided, type Decision } from '#shared/domain/core/decision.ts';
import { decideIntent } from '#shared/domain/core/intent.ts';
import { journalWrites } from './commit.ts';
import { type Contact, pageCustomerPayments } from '#shared/store/customer-index.ts';
import { searchReferences } from '#shared/store/reference-index.ts';

/**
 * Status changes and the transaction object of docs/merchant-guide.md, Transaction lookup. Every outcome (payment result, expiry,
 * provider callback, reconciler answer, operator decision) is a decision of the money core (shared/domain/core:
 * decideIntent, decidePayout, …) committed through changeIntent(): read the intent, decide, commit the state the core
 * returned + its outbox event + its journal in ONE transaction conditioned on the version read. A lost race re-reads
 * and decides again, so exactly one outcome wins and a terminal status is never left.
 */

/**
 * A decision of the money core about an intent as changeIntent commits it (a refusal changes nothing), due again at
 * `dueAt`: a status change stays in the due index unless given one (null: leaves it); a change that keeps the status
 * is due at `dueAt`, else at the intent's expiry (money held for the operator leaves the due index instead).
 */
export type IntentOutcome = Decision<PaymentIntent> & { dueAt?: string | null };

/**
 * "Look again later": the core's `note` (decideIntent), the intent due again at `dueAt` with `details` noted. False when
 * the core refuses (a final intent) or the intent changed meanwhile.
 */
export async function lookAgainLater(intent: PaymentIntent, dueAt: string, now: Date, details?: Record<string, unknown>) {
  const noted = decideIntent(intent, { type: 'note', ...(details ? { details } : {}) }, now);
  return !isRefusal(noted) && rescheduleDue(intent, noted.state, dueAt);
}

export type ChangeResult =
  | { changed: true; intent: PaymentIntent; transition?: Transition | undefined }
  | { changed: false; intent: PaymentIntent | undefined };

/**
 * The writes of the core's decision about `current` (the state it decided, its event, its journals given their id and
 * time `now`), for changeIntent or for a request that commits them itself (shared/store/request.ts); `committed`
 * reports a final status's outcome metric once the writes are committed. A decision that keeps the status writes no
 * event (sameStatusWrites); one that moves it, only a move the state machine permits (transitionWrites).
 */
export function intentChange(current: PaymentIntent, d: Decided<PaymentIntent> & { dueAt?: string | null }, now: Date) {
  const next = d.state;
  const journals = journalWrites(d.journals, current, now);
  if (next.status === current.status)
    return { next, writes: [...sameStatusWrites(current, next, d.dueAt ?? current.expiresAt!), ...journals], committed: () => {} };
  const transition = transitionWrites(current, next, { dueAt: d.dueAt, now });
  return {
    next,
    transition,
    writes: [...transition.writes, ...journals],
    committed: () => isTerminal(next.status) && emitOutcome('payment', next.status, current.amountMinor, current.intentType),
  };
}

/**
 * The reader of one intent for a read → decide → commit loop: the intent this request already holds (`known`: read
 * or committed by it) for the first decision, a fresh read after a lost race. So a request reads its intent once.
 */
export function intentReader(paymentIntentId: string, known?: PaymentIntent): () => Promise<PaymentIntent | undefined> {
  let first = known?.paymentIntentId === paymentIntentId ? known : undefined;
  return async () => {
    const given = first;
    first = undefined;
    return given ?? getIntent(paymentIntentId);
  };
}

/**
 * Reads, decides (`decide`: the money core's decision about the intent as read, null to change nothing) and commits it.
 * `known`: the intent as this request last read or committed it, decided on first (a stale one loses the version race
 * and is read again).
 */
export async function changeIntent(
  paymentIntentId: string,
  decide: (current: PaymentIntent) => IntentOutcome | null,
  now: () => Date = () => new Date(),
  known?: PaymentIntent,
): Promise<ChangeResult> {
  let change: ReturnType<typeof intentChange> | undefined;
  const result = await changeVersioned<PaymentIntent>(
    'intent',
    intentReader(paymentIntentId, known),
    (current) => {
      const decision = isTerminal(current.status) ? null : decide(current);
      change = decision && !isRefusal(decision) ? intentChange(current, decision, now()) : undefined;
      return change ?? null;
    },
    { label: `the status of ${paymentIntentId}`, committed: () => change?.committed() },
  );
  return result.changed
    ? { changed: true, intent: result.value, transition: change?.transition }
    : { changed: false, intent: result.value };
}

/**
 * The transaction object of docs/merchant-guide.md, Transaction lookup (camelCase). Card numbers never appear: brand and last four only.
 */
export function transactionView(intent: PaymentIntent) {
  const d = intent.details as Record<string, unknown>;
  return {
    paymentIntentId: intent.paymentIntentId,
    intentType: intent.intentType,
    status: intent.status,
    amount: fromMinor(intent.amountMinor, intent.currency),
    currency: intent.currency,
    fee: fromMinor(intent.feeMinor, intent.currency),
    refundedAmount: fromMinor(intent.refundedMinor, intent.currency),
    merchantReference: intent.orderRef.orderRef,
    transactionReference: intent.transactionReference,
    orderRef: { orderRef: intent.orderRef.orderRef, discount: intent.orderRef.discount ?? null, tax: intent.orderRef.tax ?? null },
    customerRef: intent.customerRef,
    description: intent.description,
    metadataJson: intent.metadataJson,
    isLive: intent.mode === 'live',
    // As before codes existed: the free text where there is some (withdrawals), else the code.
    reason: intent.reasonDetail ?? intent.reason,
    createdAt: intent.createdAt,
    updatedAt: intent.updatedAt,
    ...(intent.intentType === 'checkout'
      ? {
          expiresAt: intent.expiresAt,
          paymentMethod: d.paymentMethod ?? null,
          card: d.card ?? null,
          walletProvider: d.walletProvider ?? null,
          walletNumberLast4: d.walletNumberLast4 ?? null,
          attempts: attemptsOf(checkoutDetails(intent)).map(attemptView),
        }
      : {}),
    ...(intent.intentType === 'deposit' ? { walletChargeInfo: d.walletChargeInfo ?? null } : {}),
    ...(intent.intentType === 'withdrawal' ? { payoutInfo: d.payoutInfo ?? null } : {}),
    traceId: intent.traceId,
  };
}

export async function lookupTransaction(merchantId: string, mode: Mode, reference: string) {
  const intent = await findIntent(merchantId, mode, reference);
  return intent && transactionView(intent);
}

export interface TransactionListQuery {
  intentType?: IntentType;
  status?: IntentStatus;
  from?: string;
  to?: string;
  orderRef?: string;
  startingAfter?: string;
  limit: number;
}

/**
 * GET …/Transactions: the merchant's transactions in one mode, newest first, as the lookup returns
 * them. `orderRef` is unique per merchant and mode, so it is one pointer read; a cursor that is not
 * this merchant's and mode's transaction is a 400 (`invalid_cursor`), never a leak.
 */
export async function listTransactions(merchantId: string, mode: Mode, q: TransactionListQuery) {
  if (q.orderRef !== undefined) {
    const intent = await findIntentByOrderRef(merchantId, mode, q.orderRef);
    const keep =
      intent &&
      (q.intentType === undefined || intent.intentType === q.intentType) &&
      (q.status === undefined || intent.status === q.status) &&
      (q.from === undefined || intent.createdAt >= q.from) &&
      (q.to === undefined || intent.createdAt <= q.to);
    return { items: keep && !q.startingAfter ? [transactionView(intent)] : [], hasMore: false };
  }
  let before: string | undefined;
  if (q.startingAfter !== undefined) {
    const cursor = await getIntent(q.startingAfter, false);
    if (!cursor || cursor.merchantId !== merchantId || cursor.mode !== mode) return 'invalid_cursor' as const;
    before = intentCursor(cursor);
  }
  const page = await pageIntents(merchantId, mode, { ...q, ...(before ? { before } : {}) });
  return { items: page.items.map(transactionView), hasMore: page.hasMore };
}

/**
 * A customer's transactions with a merchant in one mode, by e-mail address or phone number
 * (customerRef.email / customerRef.phone; shared/store/customer-index.ts), newest first, with the
 * list's filters and `startingAfter` cursor. Each round is one Query of the customer's pointers and
 * one BatchGetItem of their intents; status and type are checked on those, at most 5 rounds per page.
 */
/**
 * The merchant's transactions in one mode whose orderRef, transaction reference or payment id begins
 * with `text` (case-insensitive; shared/store/reference-index.ts), in reference order, at most `limit`.
 */
export async function transactionsByReferencePrefix(merchantId: string, mode: Mode, text: string, limit: number) {
  const found = await searchReferences(merchantId, mode, text, limit);
  const intents = await getIntentsOf(merchantId, mode, found.ids);
  return { items: intents.map(transactionView), more: found.more };
}

export async function customerTransactions(merchantId: string, mode: Mode, contact: Contact, q: Omit<TransactionListQuery, 'orderRef'>) {
  let before: string | undefined;
  if (q.startingAfter !== undefined) {
    const cursor = await getIntent(q.startingAfter, false);
    if (!cursor || cursor.merchantId !== merchantId || cursor.mode !== mode) return 'invalid_cursor' as const;
    before = intentCursor(cursor);
  }
  const filtered = q.status !== undefined || q.intentType !== undefined;
  const items: PaymentIntent[] = [];
  let more = true;
  for (let round = 0; round < 5 && more && items.length <= q.limit; round++) {
    const page = await pageCustomerPayments(merchantId, mode, contact, {
      ...(q.from ? { from: q.from } : {}),
      ...(q.to ? { to: q.to } : {}),
      ...(before ? { before } : {}),
      limit: filtered ? 100 : q.limit + 1 - items.length,
    });
    const intents = await getIntentsOf(merchantId, mode, page.ids);
    items.push(
      ...intents.filter(
        (i) => (q.status === undefined || i.status === q.status) && (q.intentType === undefined || i.intentType === q.intentType),
      ),
    );
    before = page.last;
    more = page.more;
  }
  return { items: items.slice(0, q.limit).map(transactionView), hasMore: items.length > q.limit || (more && items.length > 0) };
}
