import type { Mode } from '#shared/domain/credentials.ts';
import { isTerminal, type IntentStatus, type IntentType, type PaymentIntent } from '#shared/domain/intent.ts';
import type { ReasonCode } from '#shared/domain/reasons.ts';
import type { Journal, WalletDelta } from '#shared/domain/ledger.ts';
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
import { postJournal } from '#shared/store/wallets.ts';
import { isRefusal, type Decision as CoreDecision } from '#shared/domain/core/decision.ts';
import { decideIntent, type IntentCommand } from '#shared/domain/core/intent.ts';
import { journalEntry } from './commit.ts';
import { type Contact, pageCustomerPayments } from '#shared/store/customer-index.ts';
import { searchReferences } from '#shared/store/reference-index.ts';

/**
 * Status changes and the transaction object of docs/merchant-guide.md, Transaction lookup. Every outcome (payment result, expiry,
 * provider callback, reconciler answer, operator decision) goes through changeStatus(): read the
 * intent, let the caller decide, commit the change + its outbox event + its journal in ONE
 * transaction conditioned on the version read. A lost race re-reads and decides again, so exactly
 * one outcome wins and a terminal status is never left.
 */
export interface Decision {
  to: IntentStatus;
  /** A stable code; free text goes in reasonDetail. */
  reason?: ReasonCode | null;
  reasonDetail?: string | null;
  details?: Record<string, unknown>;
  feeMinor?: number;
  dueAt?: string | null;
  /** Ledger movement committed with the change (e.g. crediting the wallet on Completed). */
  journal?: { journal: Journal; delta: WalletDelta };
}

/**
 * A decision of the money core about an intent (shared/domain/core: decidePayout, decideIntent) as the change this
 * module commits: the status, reason and details the core decided, its journal given an id and `journalAt` (the
 * commit path, ./commit.ts); null when the core refuses (nothing changes).
 */
export function coreDecision(
  current: PaymentIntent,
  decision: CoreDecision<PaymentIntent>,
  extra: { dueAt?: string | null; journalAt?: Date } = {},
): Decision | null {
  if (isRefusal(decision)) return null;
  const next = decision.state;
  if (decision.journals.length > 1) throw new Error(`an intent's change posts one journal, not ${decision.journals.length}`);
  const [draft] = decision.journals;
  return {
    to: next.status,
    // The reason as the core left it (a code; an older intent's free text stays as it was).
    reason: next.reason as ReasonCode | null,
    reasonDetail: next.reasonDetail ?? null,
    details: next.details,
    feeMinor: next.feeMinor,
    ...(extra.dueAt !== undefined ? { dueAt: extra.dueAt } : {}),
    ...(draft ? { journal: journalEntry(draft, current, extra.journalAt ?? new Date()) } : {}),
  };
}

/**
 * coreDecision() that also takes the core's same-status decisions (a checkout's attempt recorded, a link use taken or
 * given back): the session as the core left it, due at its expiry; null when the core refuses.
 */
export const coreOutcome = (current: PaymentIntent, d: CoreDecision<PaymentIntent>): Decision | SameStatus | null =>
  !isRefusal(d) && d.state.status === current.status ? keptStatus(d, current.expiresAt!) : coreDecision(current, d);

/** A decision of the core that keeps the status (keepingStatus) as the change this module commits, due again at `dueAt`. */
export const keptStatus = (d: CoreDecision<PaymentIntent>, dueAt: string): SameStatus | null =>
  isRefusal(d) ? null : { sameStatus: true, next: d.state, dueAt };

/**
 * "Look again later": the core's `note` (decideIntent), the intent due again at `dueAt` with `details` noted. False when
 * the core refuses (a final intent) or the intent changed meanwhile.
 */
export async function lookAgainLater(intent: PaymentIntent, dueAt: string, now: Date, details?: Record<string, unknown>) {
  const noted = decideIntent(intent, { type: 'note', ...(details ? { details } : {}) }, now);
  return !isRefusal(noted) && rescheduleDue(intent, noted.state, dueAt);
}

/** coreDecision() for a caller that decided only what the state machine permits: a refusal is a bug, thrown. */
export function requiredCoreDecision(current: PaymentIntent, decision: CoreDecision<PaymentIntent>, extra: { journalAt?: Date } = {}) {
  const change = coreDecision(current, decision, extra);
  if (!change) throw new Error(`${current.paymentIntentId}: ${isRefusal(decision) ? decision.message : 'refused'}`);
  return change;
}

/** The money core's decision about a checkout or deposit (decideIntent) as its change; a refusal is a bug, thrown. */
export const intentDecision = (current: PaymentIntent, command: IntentCommand, now: Date) =>
  requiredCoreDecision(current, decideIntent(current, command, now));

export type ChangeResult =
  | { changed: true; intent: PaymentIntent; transition: Transition }
  | { changed: false; intent: PaymentIntent | undefined };

export function changeStatus(
  paymentIntentId: string,
  decide: (current: PaymentIntent) => Decision | null,
  now: () => Date = () => new Date(),
): Promise<ChangeResult> {
  return changeIntent(paymentIntentId, decide, now) as Promise<ChangeResult>;
}

/**
 * A change that keeps the status, as the money core decided it (`next`, keepingStatus): the intent learns something (a
 * rail accepted a payout) or is due again later. No event is written: nothing a merchant watches has changed.
 */
export interface SameStatus {
  sameStatus: true;
  next: PaymentIntent;
  dueAt: string;
}

/**
 * The writes of a decision about `current` (its version-conditioned update, event, journal), for
 * changeIntent or for a request that commits them itself (shared/store/request.ts); `committed`
 * reports a final status's outcome metric once the writes are committed.
 */
export function intentChange(current: PaymentIntent, decision: Decision | SameStatus, now: Date) {
  if ('sameStatus' in decision)
    return { next: decision.next, writes: sameStatusWrites(current, decision.next, decision.dueAt), committed: () => undefined };
  const transition = transitionWrites(current, decision.to, { ...decision, now });
  const { next } = transition;
  return {
    next,
    transition,
    writes: [...transition.writes, ...(decision.journal ? postJournal(decision.journal) : [])],
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
 * changeStatus() that also accepts same-status changes (shared/store/intents.ts sameStatusWrites). `known`: the intent
 * as this request last read or committed it, decided on first (a stale one loses the version race and is read again).
 */
export async function changeIntent(
  paymentIntentId: string,
  decide: (current: PaymentIntent) => Decision | SameStatus | null,
  now: () => Date = () => new Date(),
  known?: PaymentIntent,
): Promise<ChangeResult | { changed: true; intent: PaymentIntent; transition?: undefined }> {
  let change: ReturnType<typeof intentChange> | undefined;
  const result = await changeVersioned<PaymentIntent>(
    'intent',
    intentReader(paymentIntentId, known),
    (current) => {
      const decision = isTerminal(current.status) ? null : decide(current);
      change = decision ? intentChange(current, decision, now()) : undefined;
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
