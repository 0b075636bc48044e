import { merchantMaySubmitNow } from '#shared/services/merchant-gate.ts';
import { randomUUID } from 'node:crypto';
import type { Mode } from '#shared/domain/credentials.ts';
import { BusinessRuleError, ConflictError, NotFoundError } from '#shared/domain/errors.ts';
import type { Fee } from '#shared/domain/merchant.ts';
import { feeFor, fromMinor, minorUnits } from '#shared/domain/money.ts';
import {
  canRefundTransition,
  refundAfterFailure,
  refundAmount,
  newRefund,
  refundHeldMinor,
  refundJournals,
  refundOverdue,
  refundReadyForAttempt,
  refundRetries,
  refundStatusNames,
  RefundStatus,
  refundView,
  reservedOf,
  type Refund,
  type RefundableIntent,
  type RefundView,
} from '#shared/domain/refund.ts';
import { logger } from '#shared/logger.ts';
import { emitOutcome } from '#shared/metrics.ts';
import { railFor } from '#shared/providers/rails.ts';
import type { RefundInstruction } from '#shared/providers/refund-provider.ts';
import { transact, TransactionFailed, type TxItem } from '#shared/store/client.ts';
import type { RecordResponse } from '#shared/store/idempotency.ts';
import { findIntent } from '#shared/store/intents.ts';
import {
  createRefundWrites,
  getRefund,
  listRefundsOfIntent,
  pageRefundsOfMerchant,
  refundEventWrites,
  recordRefundedWrite,
  refundChange,
  releaseReservationWrite,
} from '#shared/store/refunds.ts';
import { changeVersioned, type VersionedChange } from '#shared/store/versioned.ts';
import { getWallet, postJournal, withFunds } from '#shared/store/wallets.ts';
import { askLater, inquire, later, submitAndRecord, type OutboundProduct } from './outbound.ts';
import '#shared/providers/live/boot.ts';

/**
 * Refunds (docs/merchant-guide.md "Refunds"): declarations over the outbound-transfer engine
 * (shared/services/outbound.ts, docs/architecture.md).
 *
 *   create    ONE transaction: the refund (Pending, due at its 7-day expiry), the reservation of
 *             its amount on the transaction (refused when refunds would exceed the amount) and the
 *             Idempotency-Key record.
 *   approve   the operator; amount + fee are HELD from the wallet (no overdraft).
 *   process   each attempt is recorded (Processing, attemptCount + 1, attemptedAt) before the
 *             engine's one call; every attempt sends the same reference (the refund id). A definite
 *             decline, or NotFound after the grace period, is retried; the 3rd is Failed with the
 *             hold and the reservation released. An unknown outcome is decided by the status inquiry.
 *   reject / cancel / expiry (Pending only): the reservation is released (nothing was held).
 */

export interface RefundInput {
  trxnRef: string;
  amount?: number | null;
  reason?: string | null;
}

export interface RefundCaller {
  merchantId: string;
  mode: Mode;
  fee: Fee;
  traceId: string;
}

/**
 * POST /Refunds. `recordResponse(view)` returns the Idempotency-Key record committed with the refund (or
 * nothing). A lost race on the reservation reads the transaction again and decides again.
 */
export async function createRefund(
  caller: RefundCaller,
  input: RefundInput,
  recordResponse: RecordResponse<RefundView>,
  now = new Date(),
): Promise<RefundView> {
  if (!railFor('refund', caller.mode))
    throw new BusinessRuleError(
      'Refunds are not available in live mode: no refund provider is configured for this deployment.',
      'refund_provider_unavailable',
    );
  for (let attempt = 0; attempt < 8; attempt++) {
    const intent = (await findIntent(caller.merchantId, caller.mode, input.trxnRef)) as RefundableIntent | undefined;
    if (!intent) throw new NotFoundError(`No transaction with reference ${input.trxnRef}.`);
    const amount = refundAmount(
      intent,
      input.amount === undefined || input.amount === null ? undefined : minorUnits(input.amount, intent.currency),
    );
    if ('code' in amount) throw new BusinessRuleError(amount.message, amount.code);
    const refund = newRefund(
      caller,
      intent,
      amount.amountMinor,
      feeFor(amount.amountMinor, caller.fee),
      input.reason || null,
      now,
      randomUUID(),
    );
    const view = refundView(refund);
    try {
      await transact(createRefundWrites(refund, intent), { idempotency: recordResponse(view) });
      logger.info('refund created', {
        refundId: refund.id,
        paymentIntentId: intent.paymentIntentId,
        merchantId: caller.merchantId,
        mode: caller.mode,
      });
      return view;
    } catch (error) {
      if (error instanceof TransactionFailed && error.on('reservation')) continue; // a concurrent refund reserved first
      throw error;
    }
  }
  throw new ConflictError('Too many concurrent refunds of this transaction; retry with the same Idempotency-Key.');
}

/** GET /Refunds/{id}: another merchant's or mode's refund does not exist. */
export async function refundFor(merchantId: string, mode: Mode, id: string): Promise<RefundView> {
  const r = await getRefund(id);
  if (!r || r.merchantId !== merchantId || r.mode !== mode) throw new NotFoundError(`No refund with id ${id}.`);
  return refundView(r);
}

/** GET /Refunds?trxnRef=: the refunds of one transaction (newest first) with what remains refundable. */
export async function refundsOfTransaction(merchantId: string, mode: Mode, trxnRef: string, page: number, pageSize: number) {
  const intent = (await findIntent(merchantId, mode, trxnRef)) as RefundableIntent | undefined;
  if (!intent) throw new NotFoundError(`No transaction with reference ${trxnRef}.`);
  const all = await listRefundsOfIntent(intent.paymentIntentId);
  const totalPages = Math.ceil(all.length / pageSize);
  return {
    items: all.slice((page - 1) * pageSize, page * pageSize).map(refundView),
    ...{
      page,
      pageSize,
      totalCount: all.length,
      totalPages,
      hasMore: page < totalPages,
      paymentIntentId: intent.paymentIntentId,
      currency: intent.currency,
    },
    amount: fromMinor(intent.amountMinor, intent.currency),
    refundedAmount: fromMinor(intent.refundedMinor, intent.currency),
    refundableAmount: fromMinor(intent.status === 'Completed' ? intent.amountMinor - reservedOf(intent) : 0, intent.currency),
  };
}

/**
 * A merchant's refunds in one mode, newest first, `limit` per page; `startingAfter` is the id of the
 * last refund of the previous page (another merchant's or mode's refund, or an unknown id, is
 * 'invalid_cursor').
 */
export async function refundsOfMerchant(
  merchantId: string,
  mode: Mode,
  query: { limit: number; startingAfter?: string },
): Promise<{ items: RefundView[]; hasMore: boolean } | 'invalid_cursor'> {
  let before: { requestedAt: string; id: string } | undefined;
  if (query.startingAfter) {
    const cursor = await getRefund(query.startingAfter, false);
    if (!cursor || cursor.merchantId !== merchantId || cursor.mode !== mode) return 'invalid_cursor';
    before = { requestedAt: cursor.requestedAt, id: cursor.id };
  }
  const page = await pageRefundsOfMerchant(merchantId, mode, query.limit, before);
  return { items: page.items.map(refundView), hasMore: page.hasMore };
}

type Change = VersionedChange<Refund>;

/** Read → decide → one conditional transaction, retried on a lost race; a final status counts once. */
async function changeRefund(id: string, decide: (current: Refund) => Change | null) {
  // A status change commits with its RefundStatusChanged event in the same transaction.
  const withEvent = (r: Refund): Change | null => {
    const c = decide(r);
    return c && { next: c.next, writes: [...c.writes, ...refundEventWrites(r, c.next)] };
  };
  const result = await changeVersioned('refund', () => getRefund(id), withEvent, {
    label: `refund ${id}`,
    committed: (before, after) =>
      after.status !== before.status &&
      after.status >= RefundStatus.Completed &&
      emitOutcome('refund', refundStatusNames[after.status], after.amountMinor),
  });
  return result.value;
}

/** refundChange with extra writes in the same transaction. */
function change(r: Refund, changes: Partial<Refund>, dueAt: string | null | undefined, now: Date, ...extra: TxItem[]): Change {
  const { next, write } = refundChange(r, changes, dueAt, now);
  return { next, writes: [write, ...extra] };
}

/** Pending → a final status that releases the reservation (nothing was held while Pending). */
const closePending = (r: Refund, status: RefundStatus, failureReason: string | null, now: Date) =>
  change(r, { status, failureReason }, null, now, releaseReservationWrite(r));

async function operatorChange(id: string, action: string, decide: (r: Refund, now: Date) => Change, now: () => Date) {
  const overdue = await getRefund(id);
  if (overdue && refundOverdue(overdue, now())) {
    await advanceRefund(id, now());
    throw new BusinessRuleError(`Refund ${id} expired at ${overdue.expiresAt} without approval.`, 'invalid_status');
  }
  const refund = await changeRefund(id, (r) => {
    if (r.status !== RefundStatus.Pending)
      throw new BusinessRuleError(
        `Refund ${r.id} is ${refundStatusNames[r.status]}; only a Pending refund can be ${action}.`,
        'invalid_status',
      );
    return decide(r, now());
  });
  if (!refund) throw new NotFoundError(`No refund with id ${id}.`);
  return refundView(refund);
}

/** Operator: Pending → Approved, holding amount + fee from the wallet; processing starts at once. */
export async function approveRefund(id: string, now: () => Date = () => new Date()) {
  try {
    return await withFunds(
      () => getRefund(id),
      () =>
        operatorChange(
          id,
          'approved',
          (r, at) =>
            change(
              r,
              { status: RefundStatus.Approved, approvedAt: at.toISOString() },
              at.toISOString(),
              at,
              ...postJournal(refundJournals.hold(r, at)),
            ),
          now,
        ),
    );
  } catch (error) {
    if (!(error instanceof TransactionFailed && error.on('wallet'))) throw error;
    const r = (await getRefund(id))!;
    const wallet = await getWallet(r.merchantId, r.mode, r.currency, true);
    throw new BusinessRuleError(
      `Insufficient available balance to approve refund ${id}: ${fromMinor(wallet.available, r.currency)} ${r.currency} available, ` +
        `${fromMinor(refundHeldMinor(r), r.currency)} ${r.currency} needed.`,
      'insufficient_balance',
    );
  }
}

export const rejectRefund = (id: string, reason?: string, now: () => Date = () => new Date()) =>
  operatorChange(
    id,
    'rejected',
    (r, at) => closePending(r, RefundStatus.Rejected, reason ? `Rejected by the operator: ${reason}` : 'Rejected by the operator.', at),
    now,
  );

export const cancelRefund = (id: string, now: () => Date = () => new Date()) =>
  operatorChange(id, 'cancelled', (r, at) => closePending(r, RefundStatus.Cancelled, 'Cancelled by the operator.', at), now);

/** Refunds over the outbound-transfer engine: one submission per attempt, all with the same reference. */
const refunds: OutboundProduct<Refund, RefundInstruction, Change> = {
  who: 'refund provider',
  context: (r) => ({ refundId: r.id, attempt: r.attemptCount }),
  instruction: (r) => ({
    ...{ reference: r.id, refundId: r.id, attempt: r.attemptCount, paymentIntentId: r.paymentIntentId },
    ...{ transactionReference: r.transactionReference, amountMinor: r.amountMinor, currency: r.currency },
  }),
  submittedAt: (r) => r.attemptedAt!,
  outstanding: (r, asked) =>
    r.status === RefundStatus.Processing && r.attemptCount === asked.attemptCount && r.attemptedAt === asked.attemptedAt,
  commit: (asked, decide) => changeRefund(asked.id, decide),
  accepted: (step, answer) => refunds.completed(step, { status: 'Completed', providerReference: answer.providerReference }),
  completed: ({ current: r, rail, now }, answer) =>
    change(
      r,
      {
        status: RefundStatus.Completed,
        processedAt: now.toISOString(),
        providerReference: answer.providerReference ?? null,
        failureReason: null,
        attemptedAt: null,
      },
      null,
      now,
      ...[recordRefundedWrite(r, now), ...postJournal(refundJournals.completed(r, rail.ledgerAccount, now))],
    ),
  failed: ({ current: r, rail, now }, why) => {
    logger.info('refund attempt unsuccessful', { refundId: r.id, attempt: r.attemptCount, outcome: why.kind });
    const { retry, failureReason } = refundAfterFailure(r, why);
    if (retry) return change(r, { failureReason, attemptedAt: null }, later(now, rail.timings.retryAfterMs), now);
    return change(
      r,
      { status: RefundStatus.Failed, processedAt: now.toISOString(), failureReason, attemptedAt: null },
      null,
      now,
      releaseReservationWrite(r),
      ...postJournal(refundJournals.released(r, now)),
    );
  },
  dueAgain: ({ current, now }, dueAt) => change(current, {}, dueAt, now),
  // A retry's "Failed" may still be the previous attempt's decline until the new request registers.
  failedMayBeStale: (r) => r.attemptCount > 1,
};

/**
 * One step, when the refund is due (the sweep; tests call it directly): expire an overdue Pending
 * refund; make a new attempt of an Approved refund or of one whose last attempt was declined; or,
 * while an attempt's outcome is unknown, ask the provider's status inquiry (never attempt again).
 */
export async function advanceRefund(id: string, now = new Date()): Promise<Refund | undefined> {
  const current = await getRefund(id);
  if (!current) return undefined;
  if (refundOverdue(current, now))
    return changeRefund(id, (r) =>
      refundOverdue(r, now) ? closePending(r, RefundStatus.Expired, 'Not approved within 7 days.', now) : null,
    );
  if (current.status !== RefundStatus.Approved && current.status !== RefundStatus.Processing) return current;
  if (
    current.status === RefundStatus.Processing &&
    (current.attemptedAt === undefined || (current.attemptedAt === null && !refundRetries(current)))
  ) {
    // Stored before attempts shared one reference (`<id>-<attempt>` was sent): an earlier attempt
    // may have paid. Neither paying nor releasing is safe without the provider's word on each
    // reference. Out of the sweep, for support.
    logger.error('refund needs manual reconciliation with the provider', {
      refundId: id,
      attempt: current.attemptCount,
      references: `${id}-1..${id}-${current.attemptCount}`,
    });
    return changeRefund(id, (r) => (r.version === current.version ? change(r, {}, null, now) : null));
  }
  const rail = railFor('refund', current.mode);
  if (!rail) {
    logger.error('refund cannot be processed: no refund provider for its mode', { refundId: id, mode: current.mode });
    return askLater({ ...refunds, outstanding: (r, asked) => r.version === asked.version }, rail, current, now);
  }
  if (current.status === RefundStatus.Processing && current.attemptedAt) return inquire(refunds, rail, current, now);
  if (!(await merchantMaySubmitNow(current.merchantId))) return current; // suspended: waits for reactivation
  // The attempt is recorded at the real time of the call, not the start of a possibly long sweep
  // pass, so the inquiry scheduled after it cannot overtake the call it asks about.
  const at = new Date(Math.max(now.getTime(), Date.now()));
  let recorded = false;
  const claimed = await changeRefund(id, (r) => {
    recorded = refundReadyForAttempt(r) && canRefundTransition(r.status, RefundStatus.Processing);
    return recorded
      ? change(
          r,
          { status: RefundStatus.Processing, attemptCount: r.attemptCount + 1, attemptedAt: at.toISOString() },
          later(at, rail.timings.inquireAfterMs),
          at,
        )
      : null;
  });
  return recorded ? submitAndRecord(refunds, rail, claimed!, at) : claimed;
}
