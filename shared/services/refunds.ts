import { merchantMaySubmitNow } from '#shared/services/merchant-gate.ts';
import { randomUUID } from 'node:crypto';
import type { Mode } from '#shared/domain/credentials.ts';
import { BusinessRuleError, ConflictError, NotFoundError } from '#shared/domain/errors.ts';
import { holdFunds, journal, releaseHold } from '#shared/domain/ledger.ts';
import type { Fee } from '#shared/domain/merchant.ts';
import { feeFor, fromMinor, type Currency } from '#shared/domain/money.ts';
import {
  canRefundTransition,
  maxRefundAttempts,
  minimumRefundMinor,
  refundExpiryDays,
  refundRefusal,
  refundStatusNames,
  RefundStatus,
  refundView,
  reservedOf,
  type Refund,
  type RefundableIntent,
  type RefundView,
} from '#shared/domain/refund.ts';
import { minorUnits } from '#shared/domain/money.ts';
import { bounded, later, outboundTimings, pastNotFoundGrace } from './outbound.ts';
import { logger } from '#shared/logger.ts';
import { refundProviderFor, type RefundInstruction, type RefundProvider } from '#shared/providers/refund-provider.ts';
import { transact, TransactionFailed, type TxItem } from '#shared/store/client.ts';
import { emitOutcome } from '#shared/metrics.ts';
import { findIntent } from '#shared/store/intents.ts';
import { createRefundWrites, getRefund, refundEventWrites, listRefundsOfIntent, recordRefundedWrite, refundChange, releaseReservationWrite, reservationWriteIndex } from '#shared/store/refunds.ts';
import { getWallet, postJournal, walletWriteIndex } from '#shared/store/wallets.ts';

/**
 * Refunds (SPEC "Refund", CONTRACT §6, docs/merchant-guide.md "Refunds").
 *
 *   create    ONE transaction: the refund item (Pending, due at its 7-day expiry), the reservation
 *             of its amount on the transaction (refused when pending + completed refunds would
 *             exceed the amount, whatever runs concurrently) and the Idempotency-Key record.
 *   approve   the operator; the amount (+ refund fee) is HELD from the wallet at approval
 *             (available → held:Refund, no overdraft), so processing can never overdraw.
 *   process   the sweep: each attempt is recorded (Processing, attemptCount + 1, attemptedAt)
 *             before the ONE provider call, raced by a timeout; every attempt sends the same
 *             reference (the refund id), so the provider pays a refund at most once. Completed
 *             debits the hold to the provider and grows the transaction's refundedAmount; a
 *             definite decline is retried, the 3rd decline is Failed with the hold and the
 *             reservation released. A thrown / timed-out call (or a crash before the answer is
 *             recorded) is an UNKNOWN outcome: the refund stays Processing and only the provider's
 *             status inquiry settles it (Completed / Failed as above; NotFound after a grace
 *             period = never sent: retried with the same reference, or Failed after the 3rd).
 *   reject / cancel / expiry (Pending only): the reservation is released (nothing was held).
 */
export class RefundRefused extends BusinessRuleError {}

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

const refundWriteIndex = 0;

const dayMs = 86_400_000;

/**
 * POST /Refunds. `commit(view)` returns the Idempotency-Key record committed with the refund (or
 * nothing). A lost race on the reservation reads the transaction again and decides again.
 */
export async function createRefund(caller: RefundCaller, input: RefundInput, commit: (view: RefundView) => TxItem | undefined, now = new Date()): Promise<RefundView> {
  if (!refundProviderFor(caller.mode)) throw new RefundRefused('Refunds are not available in live mode: no refund provider is configured for this deployment.', 'refund_provider_unavailable');
  for (let attempt = 0; attempt < 8; attempt++) {
    const intent = (await findIntent(caller.merchantId, caller.mode, input.trxnRef)) as RefundableIntent | undefined;
    if (!intent) throw new NotFoundError(`No transaction with reference ${input.trxnRef}.`);
    const refusal = refundRefusal(intent);
    if (refusal) throw new RefundRefused(refusal, refusal.includes('already refunded') ? 'already_refunded' : 'not_refundable');
    const remaining = intent.amountMinor - reservedOf(intent);
    let amountMinor = remaining;
    if (input.amount !== undefined && input.amount !== null) {
      amountMinor = minorUnits(input.amount, intent.currency);
      const minimum = minimumRefundMinor(intent.currency);
      if (amountMinor < minimum) throw new RefundRefused(`The minimum refund is ${fromMinor(minimum, intent.currency)} ${intent.currency}.`, 'amount_below_minimum');
      if (amountMinor > remaining) {
        throw new RefundRefused(`The amount exceeds what remains refundable: ${fromMinor(remaining, intent.currency)} ${intent.currency}.`, 'amount_exceeds_refundable');
      }
    }
    const at = now.toISOString();
    const refund: Refund = {
      id: randomUUID(),
      paymentIntentId: intent.paymentIntentId,
      merchantId: caller.merchantId,
      mode: caller.mode,
      intentType: intent.intentType,
      transactionReference: intent.transactionReference,
      amountMinor,
      feeMinor: feeFor(amountMinor, caller.fee),
      currency: intent.currency,
      reason: input.reason ? input.reason : null,
      status: RefundStatus.Pending,
      attemptCount: 0,
      requestedAt: at,
      approvedAt: null,
      processedAt: null,
      expiresAt: new Date(now.getTime() + refundExpiryDays * dayMs).toISOString(),
      failureReason: null,
      providerReference: null,
      attemptedAt: null,
      traceId: caller.traceId,
      updatedAt: at,
      version: 1,
    };
    const view = refundView(refund);
    try {
      await transact(createRefundWrites(refund, intent), { idempotency: commit(view) });
      logger.info('refund created', { refundId: refund.id, paymentIntentId: intent.paymentIntentId, merchantId: caller.merchantId, mode: caller.mode });
      return view;
    } catch (error) {
      if (error instanceof TransactionFailed && error.failedAt(reservationWriteIndex)) continue; // a concurrent refund reserved first
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
    page,
    pageSize,
    totalCount: all.length,
    totalPages,
    hasMore: page < totalPages,
    paymentIntentId: intent.paymentIntentId,
    currency: intent.currency,
    amount: fromMinor(intent.amountMinor, intent.currency),
    refundedAmount: fromMinor(intent.refundedMinor, intent.currency),
    refundableAmount: fromMinor(intent.status === 'Completed' ? intent.amountMinor - reservedOf(intent) : 0, intent.currency),
  };
}

/** Read → decide → one conditional transaction; a lost race reads again and decides again. */
async function changeRefund(
  id: string,
  decide: (current: Refund) => { next: Refund; writes: TxItem[] } | null,
): Promise<{ refund: Refund | undefined; changed: boolean }> {
  for (let attempt = 0; attempt < 8; attempt++) {
    const current = await getRefund(id);
    if (!current) return { refund: undefined, changed: false };
    const decision = decide(current);
    if (!decision) return { refund: current, changed: false };
    try {
      // A status change commits with its RefundStatusChanged event, last so the writes' indexes stay put.
      await transact([...decision.writes, ...refundEventWrites(current, decision.next)]);
      if (decision.next.status !== current.status && decision.next.status >= RefundStatus.Completed) emitOutcome('refund', refundStatusNames[decision.next.status], decision.next.amountMinor);
      return { refund: decision.next, changed: true };
    } catch (error) {
      if (error instanceof TransactionFailed && error.failedAt(refundWriteIndex)) continue;
      throw error;
    }
  }
  throw new Error(`could not change refund ${id}: too much contention`);
}

const heldOf = (r: Refund) => r.amountMinor + r.feeMinor;

const scopeOf = (r: Refund, now: Date) => ({ merchantId: r.merchantId, mode: r.mode, currency: r.currency, reference: r.id, now });
const holdJournal = (r: Refund, now: Date) => holdFunds(scopeOf(r, now), 'Refund', heldOf(r), 'refund.hold');
const releaseJournal = (r: Refund, now: Date) => releaseHold(scopeOf(r, now), 'Refund', heldOf(r), 'refund.failed');

function completedJournal(r: Refund, provider: RefundProvider, now: Date) {
  return journal({
    merchantId: r.merchantId,
    mode: r.mode,
    currency: r.currency,
    kind: 'refund.completed',
    reference: r.id,
    movements: [
      { account: { kind: 'held', holdType: 'Refund' }, amount: -heldOf(r) },
      { account: { kind: 'external', name: provider.ledgerAccount }, amount: r.amountMinor },
      { account: { kind: 'fees' }, amount: r.feeMinor },
    ],
    now,
  });
}

function requirePending(r: Refund, action: string) {
  if (r.status !== RefundStatus.Pending) throw new RefundRefused(`Refund ${r.id} is ${refundStatusNames[r.status]}; only a Pending refund can be ${action}.`, 'invalid_status');
}

/** Pending → a terminal status that releases the reservation (nothing was held while Pending). */
function closePending(r: Refund, status: RefundStatus, failureReason: string | null, now: Date) {
  const { next, write } = refundChange(r, { status, failureReason }, null, now);
  return { next, writes: [write, releaseReservationWrite(r)] };
}

const isOverdue = (r: Refund, now: Date) => r.status === RefundStatus.Pending && now.toISOString() >= r.expiresAt;

async function operatorChange(id: string, decide: (r: Refund, now: Date) => { next: Refund; writes: TxItem[] } | null, now: () => Date) {
  const { refund } = await changeRefund(id, (r) => decide(r, now()));
  if (!refund) throw new NotFoundError(`No refund with id ${id}.`);
  return refundView(refund);
}

async function expireIfOverdue(id: string, now: () => Date) {
  const current = await getRefund(id);
  if (current && isOverdue(current, now())) {
    await advanceRefund(id, now());
    throw new RefundRefused(`Refund ${id} expired at ${current.expiresAt} without approval.`, 'invalid_status');
  }
}

/** Operator: Pending → Approved, holding amount + fee from the wallet; processing starts at once. */
export async function approveRefund(id: string, now: () => Date = () => new Date()) {
  await expireIfOverdue(id, now);
  try {
    return await operatorChange(
      id,
      (r, at) => {
        requirePending(r, 'approved');
        const { next, write } = refundChange(r, { status: RefundStatus.Approved, approvedAt: at.toISOString() }, at.toISOString(), at);
        return { next, writes: [write, ...postJournal(holdJournal(r, at))] };
      },
      now,
    );
  } catch (error) {
    if (error instanceof TransactionFailed && error.failedAt(1 + walletWriteIndex)) {
      const r = (await getRefund(id))!;
      const wallet = await getWallet(r.merchantId, r.mode, r.currency, true);
      throw new RefundRefused(
        `Insufficient available balance to approve refund ${id}: ${fromMinor(wallet.available, r.currency)} ${r.currency} available, ${fromMinor(heldOf(r), r.currency)} ${r.currency} needed.`,
        'insufficient_balance',
      );
    }
    throw error;
  }
}

export async function rejectRefund(id: string, reason?: string, now: () => Date = () => new Date()) {
  await expireIfOverdue(id, now);
  return operatorChange(
    id,
    (r, at) => {
      requirePending(r, 'rejected');
      return closePending(r, RefundStatus.Rejected, reason ? `Rejected by the operator: ${reason}` : 'Rejected by the operator.', at);
    },
    now,
  );
}

export async function cancelRefund(id: string, now: () => Date = () => new Date()) {
  await expireIfOverdue(id, now);
  return operatorChange(
    id,
    (r, at) => {
      requirePending(r, 'cancelled');
      return closePending(r, RefundStatus.Cancelled, 'Cancelled by the operator.', at);
    },
    now,
  );
}

/** Takes a refund out of the due index without changing anything else. */
function refundChangeOnly(r: Refund, now: Date) {
  const { next, write } = refundChange(r, {}, null, now);
  return { next, writes: [write] };
}

/** Only moves a refund's due time. */
function dueAgain(r: Refund, dueAt: string, now: Date) {
  const { next, write } = refundChange(r, {}, dueAt, now);
  return { next, writes: [write] };
}

/**
 * An outstanding attempt (recorded, outcome not recorded) is first asked about this long after it
 * was recorded: well after the call's timeout, so the inquiry never overlaps the call.
 */
const inquireAfterMs = 60_000;
const inquireAgainMs = outboundTimings.reinquireAfterMs;
/** failureReason when the last attempt never reached the provider. Shown to the merchant. */
const notReceivedReason = 'The refund request did not reach the refund provider.';

const instructionOf = (r: Refund): RefundInstruction => ({
  reference: r.id, // the SAME for every attempt: the provider pays a reference at most once
  refundId: r.id,
  attempt: r.attemptCount,
  paymentIntentId: r.paymentIntentId,
  transactionReference: r.transactionReference,
  amountMinor: r.amountMinor,
  currency: r.currency,
});

/** What is known about the outstanding attempt. */
type Settled = { kind: 'completed'; providerReference: string } | { kind: 'declined'; reason: string } | { kind: 'not_sent' };

const isOutstanding = (r: Refund, attempt: Refund) => r.status === RefundStatus.Processing && r.attemptCount === attempt.attemptCount && r.attemptedAt === attempt.attemptedAt;

/**
 * Records the definite outcome of the outstanding attempt of `attempt` (if it is still outstanding):
 * completed → Completed (hold debited, refundedAmount grows); declined / not sent → retried with the
 * same reference while attempts remain, else Failed with the hold and the reservation released.
 */
async function settleAttempt(attempt: Refund, outcome: Settled, provider: RefundProvider, now: Date) {
  const decided = await changeRefund(attempt.id, (r) => {
    if (!isOutstanding(r, attempt)) return null;
    if (outcome.kind === 'completed') {
      const { next, write } = refundChange(
        r,
        { status: RefundStatus.Completed, processedAt: now.toISOString(), providerReference: outcome.providerReference, failureReason: null, attemptedAt: null },
        null,
        now,
      );
      return { next, writes: [write, recordRefundedWrite(r, now), ...postJournal(completedJournal(r, provider, now))] };
    }
    const failureReason = outcome.kind === 'declined' ? outcome.reason : (r.failureReason ?? notReceivedReason);
    if (r.attemptCount < maxRefundAttempts) {
      const { next, write } = refundChange(r, { failureReason, attemptedAt: null }, later(now, provider.retryAfterMs), now);
      return { next, writes: [write] };
    }
    const { next, write } = refundChange(
      r,
      { status: RefundStatus.Failed, processedAt: now.toISOString(), failureReason: outcome.kind === 'declined' ? outcome.reason : notReceivedReason, attemptedAt: null },
      null,
      now,
    );
    return { next, writes: [write, releaseReservationWrite(r), ...postJournal(releaseJournal(r, now))] };
  });
  if (!decided.changed && outcome.kind === 'completed' && decided.refund?.status !== RefundStatus.Completed) {
    logger.error('refund: the provider completed an attempt that is no longer outstanding; reconcile with the provider', { refundId: attempt.id, attempt: attempt.attemptCount, status: decided.refund?.status });
  }
  logger.info('refund attempt', { refundId: attempt.id, attempt: attempt.attemptCount, outcome: outcome.kind, status: decided.refund?.status });
  return decided.refund;
}

/** Asks about the outstanding attempt again later (nothing if it was settled meanwhile). */
async function askAgain(attempt: Refund, now: Date) {
  return (await changeRefund(attempt.id, (r) => (isOutstanding(r, attempt) ? dueAgain(r, later(now, inquireAgainMs), now) : null))).refund;
}

/** A new attempt: recorded first (Processing, attemptCount + 1, attemptedAt), then the ONE call. */
async function attemptRefund(id: string, provider: RefundProvider, sweptAt: Date) {
  // The claim's time is the real time of the call, not the start of a possibly long sweep pass, so
  // the inquiry scheduled after it cannot overtake the call it asks about.
  const now = new Date(Math.max(sweptAt.getTime(), Date.now()));
  const claim = await changeRefund(id, (r) => {
    const ready = r.status === RefundStatus.Approved || (r.status === RefundStatus.Processing && r.attemptedAt === null && r.attemptCount < maxRefundAttempts);
    if (!ready || !canRefundTransition(r.status, RefundStatus.Processing)) return null;
    const { next, write } = refundChange(r, { status: RefundStatus.Processing, attemptCount: r.attemptCount + 1, attemptedAt: now.toISOString() }, later(now, inquireAfterMs), now);
    return { next, writes: [write] };
  });
  if (!claim.changed || !claim.refund) return claim.refund;
  const claimed = claim.refund;
  const result = await bounded(() => provider.refund(instructionOf(claimed)), 'refund provider', { refundId: id, attempt: claimed.attemptCount, call: 'refund' });
  // Unknown: stays Processing with attemptedAt, due for the status inquiry; never attempted again meanwhile.
  if (result.outcome === 'unknown') return claimed;
  return settleAttempt(claimed, result.outcome === 'completed' ? { kind: 'completed', providerReference: result.providerReference } : { kind: 'declined', reason: result.reason }, provider, now);
}

/** The outstanding attempt's outcome, from the provider's status inquiry (never a new attempt). */
async function inquireRefund(current: Refund, provider: RefundProvider, now: Date) {
  const answer = await bounded(() => provider.status(instructionOf(current)), 'refund provider', { refundId: current.id, attempt: current.attemptCount, call: 'status' });
  if ('outcome' in answer) return askAgain(current, now);
  switch (answer.status) {
    case 'Completed':
      return settleAttempt(current, { kind: 'completed', providerReference: answer.providerReference }, provider, now);
    case 'Failed':
      // For a retry (same reference), "Failed" may still be the previous attempt's decline if the new
      // request has not registered yet: believe it only after the grace period, as for NotFound.
      if (current.attemptCount > 1 && !pastNotFoundGrace(current.attemptedAt!, now)) return askAgain(current, now);
      return settleAttempt(current, { kind: 'declined', reason: answer.reason }, provider, now);
    case 'Processing':
      return askAgain(current, now);
    case 'NotFound':
      if (pastNotFoundGrace(current.attemptedAt!, now)) return settleAttempt(current, { kind: 'not_sent' }, provider, now);
      return askAgain(current, now);
  }
}

/**
 * One step, when the refund is due (the sweep; tests call it directly): expire an overdue Pending
 * refund; make a new attempt of an Approved refund or of one whose last attempt was declined; or,
 * while an attempt's outcome is unknown, ask the provider's status inquiry (never attempt again).
 */
export async function advanceRefund(id: string, now = new Date()): Promise<Refund | undefined> {
  const current = await getRefund(id);
  if (!current) return undefined;
  if (isOverdue(current, now)) {
    return (await changeRefund(id, (r) => (isOverdue(r, now) ? closePending(r, RefundStatus.Expired, 'Not approved within 7 days.', now) : null))).refund;
  }
  if (current.status !== RefundStatus.Approved && current.status !== RefundStatus.Processing) return current;
  if (current.status === RefundStatus.Processing && (current.attemptedAt === undefined || (current.attemptedAt === null && current.attemptCount >= maxRefundAttempts))) {
    // Stored before attempts shared one reference (`<id>-<attempt>` was sent): an earlier attempt
    // may have paid. Neither paying nor releasing is safe without the provider's word on each
    // reference. Out of the sweep, for support.
    logger.error('refund needs manual reconciliation with the provider', { refundId: id, attempt: current.attemptCount, references: `${id}-1..${id}-${current.attemptCount}` });
    return (await changeRefund(id, (r) => (r.version === current.version ? refundChangeOnly(r, now) : null))).refund;
  }
  const provider = refundProviderFor(current.mode);
  if (!provider) {
    logger.error('refund cannot be processed: no refund provider for its mode', { refundId: id, mode: current.mode });
    return (await changeRefund(id, (r) => (r.version === current.version ? dueAgain(r, later(now, inquireAgainMs), now) : null))).refund;
  }
  if (current.status === RefundStatus.Processing && current.attemptedAt) return inquireRefund(current, provider, now);
  if (!(await merchantMaySubmitNow(current.merchantId))) return current; // suspended: waits for reactivation
  return attemptRefund(id, provider, now);
}
