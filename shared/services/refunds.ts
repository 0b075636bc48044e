import { merchantMaySubmitNow } from '#shared/services/merchant-gate.ts';
import { BusinessRuleError } from '#shared/domain/errors.ts';
import { fromMinor } from '#shared/domain/money.ts';
import { decideApproval, type ApprovalAsk } from '#shared/domain/core/approval.ts';
import { isRefusal, type Decision } from '#shared/domain/core/decision.ts';
import { decideRefund, refundOutstanding, type RefundCommand, type RefundOutcome } from '#shared/domain/core/refund.ts';
import {
  refundHeldMinor,
  refundOverdue,
  refundStatusNames,
  RefundStatus,
  refundView,
  sandboxApprovalRetryMs,
  type Refund,
} from '#shared/domain/refund.ts';
import { logger } from '#shared/logger.ts';
import { refundRail } from '#shared/providers/rails.ts';
import type { RefundInstruction } from '#shared/providers/refund-provider.ts';
import { TransactionFailed } from '#shared/store/client.ts';
import { getMerchant } from '#shared/store/merchants.ts';
import { recordSideApproval } from '#shared/store/dashboard.ts';
import { getRefund, paymentCounterWrites, refundChange, refundEventWrites } from '#shared/store/refunds.ts';
import type { VersionedChange } from '#shared/store/versioned.ts';
import { getWallet, withFunds, type PlaceHold } from '#shared/store/wallets.ts';
import { changedFields, journalWrites } from './commit.ts';
import { moneyItems } from './money-items.ts';
import { inquire, inquireOrLater, later, submitOnce, type Failure, type OutboundProduct, type Step } from './outbound.ts';

/**
 * Refunds (docs/merchant-guide.md "Refunds"): declarations over the outbound-transfer engine
 * (shared/services/outbound.ts, docs/architecture.md).
 *
 *   create    refund-requests.ts: the refund (Pending, due at its 7-day expiry) with the
 *             reservation of its amount on the transaction (refused when refunds would exceed it).
 *   approve   the operator; amount + fee are HELD from the wallet (no overdraft).
 *   process   each attempt is recorded (Processing, attemptCount + 1, attemptedAt) before the
 *             engine's one call; every attempt sends the same reference (the refund id). A definite
 *             decline, or NotFound after the grace period, is retried; the 3rd is Failed with the
 *             hold and the reservation released. An unknown outcome is decided by the status inquiry.
 *   reject / cancel / expiry (Pending only): the reservation is released (nothing was held).
 */

type Change = VersionedChange<Refund>;

/** Read → decide → commit with the status event; the operator's commands on a Pending refund. */
const items = moneyItems('refund', getRefund, { change: refundChange, eventWrites: refundEventWrites }, refundStatusNames);
const { write: change, commit } = items;

/**
 * The commit path of a refund: the core's decision (shared/domain/core/refund.ts) as the writes of its ONE transaction:
 * the refund's versioned update and status event, the payment's counters moved by its effect, its journals on the
 * wallet. A refusal is null (nothing changes), or thrown where a caller asked for it (`refusals: 'throw'`).
 */
function decided(r: Refund, d: Decision<RefundOutcome>, dueAt: string | null | undefined, now: Date): Change | null {
  if (isRefusal(d)) return null;
  const { refund, effect } = d.state;
  const counters = paymentCounterWrites(r.paymentIntentId, effect, now);
  return change(r, changedFields(r, refund), dueAt, now, ...counters, ...journalWrites(d.journals, r, now));
}

/** An operator's command on a Pending refund: its refusal is the operator's answer. */
function required(r: Refund, command: RefundCommand, now: Date): Change {
  const d = decideRefund({ refund: r }, command, now);
  if (isRefusal(d)) throw new BusinessRuleError(d.message, d.refused === 'unchanged' ? 'invalid_status' : d.refused);
  return decided(r, d, null, now)!;
}

/** An operator's command on a Pending refund; an overdue one expires first (and is refused). */
async function operatorChange(id: string, action: string, decide: (r: Refund, now: Date) => Change | Promise<Change>, now: () => Date) {
  const overdue = await getRefund(id);
  if (overdue && refundOverdue(overdue, now())) {
    await advanceRefund(id, now());
    throw new BusinessRuleError(`Refund ${id} expired at ${overdue.expiresAt} without approval.`, 'invalid_status');
  }
  return refundView(await items.operator(id, action, (r) => decide(r, now())));
}

/** Operator: Pending → Approved, holding amount + fee from the wallet; processing starts at once. */
export async function approveRefund(id: string, now: () => Date = () => new Date()) {
  // The hold's wallet shard (0 unless sharded) is recorded on the refund for its completion or release.
  const hold = async (r: Refund, at: Date, place: PlaceHold) => {
    const walletShard = await place({ ...r, reference: r.id, need: refundHeldMinor(r) });
    const d = decideRefund({ refund: r }, { type: 'approve', walletShard }, at);
    if (isRefusal(d)) throw new BusinessRuleError(d.message, 'invalid_status');
    return decided(r, d, at.toISOString(), at)!;
  };
  // Test mode: the sandbox may have approved it already (sandboxApproval). The interface has the
  // operator approve in both modes, so that approval answers with the refund as it is, changing nothing.
  const existing = await getRefund(id);
  if (existing?.mode === 'test' && existing.approvedAt && existing.status !== RefundStatus.Pending) return refundView(existing);
  try {
    return await withFunds((place) => operatorChange(id, 'approved', (r, at) => hold(r, at, place), now));
  } catch (error) {
    if (!(error instanceof TransactionFailed && error.on('wallet'))) throw error;
    const r = (await getRefund(id))!;
    const available = fromMinor((await getWallet(r.merchantId, r.mode, r.currency, true)).available, r.currency);
    throw new BusinessRuleError(
      `Insufficient available balance to approve refund ${id}: ${available} ${r.currency} available, ` +
        `${fromMinor(refundHeldMinor(r), r.currency)} ${r.currency} needed.`,
      'insufficient_balance',
    );
  }
}

/** Pending → Rejected (the reservation released); `by` names who rejected in failureReason (the merchant's approver in the dashboard). */
export const rejectRefund = (id: string, reason?: string, now: () => Date = () => new Date(), by = 'the operator') =>
  operatorChange(
    id,
    'rejected',
    (r, at) => required(r, { type: 'reject', failureReason: reason ? `Rejected by ${by}: ${reason}` : `Rejected by ${by}.` }, at),
    now,
  );

export const cancelRefund = (id: string, now: () => Date = () => new Date()) =>
  operatorChange(id, 'cancelled', (r, at) => required(r, { type: 'cancel', failureReason: 'Cancelled by the operator.' }, at), now);

/** The core's decision on a provider's answer about the attempt `asked`; still Processing (declined, attempts left): due again. */
function answered({ current: r, asked, rail, now }: Step<Refund, RefundInstruction>, answer: Answer) {
  const paid = { ledgerAccount: rail.ledgerAccount, asked };
  const command: RefundCommand =
    answer.type === 'fail' ? { ...answer, asked } : { ...paid, type: answer.type, providerReference: answer.providerReference ?? null };
  if (answer.type === 'fail')
    logger.info('refund attempt unsuccessful', { refundId: r.id, attempt: r.attemptCount, outcome: answer.failure.kind });
  const d = decideRefund({ refund: r }, command, now);
  const retrying = !isRefusal(d) && d.state.refund.status === RefundStatus.Processing;
  return decided(r, d, retrying ? later(now, rail.timings.retryAfterMs) : null, now);
}
type Answer = { type: 'accepted' | 'complete'; providerReference?: string | null } | { type: 'fail'; failure: Failure };

/** Refunds over the outbound-transfer engine: one submission per attempt, all with the same reference. */
const refunds: OutboundProduct<Refund, RefundInstruction, Change> = {
  who: 'refund provider',
  context: (r) => ({ refundId: r.id, attempt: r.attemptCount }),
  instruction: (r) => ({
    ...{ reference: r.id, refundId: r.id, attempt: r.attemptCount, paymentIntentId: r.paymentIntentId },
    // The provider knows the payment by its paying attempt's reference (a checkout paid at a later attempt).
    ...{ transactionReference: r.paymentReference ?? r.transactionReference, amountMinor: r.amountMinor, currency: r.currency },
    ...(r.walletProviderId === undefined ? {} : { walletProviderId: r.walletProviderId }),
  }),
  submittedAt: (r) => r.attemptedAt!,
  outstanding: refundOutstanding,
  commit: (asked, decide) => commit(asked.id, decide),
  // The core decides what each answer does (a refund provider's acceptance completes the refund: core/refund.ts).
  accepted: (step, answer) => answered(step, { type: 'accepted', providerReference: answer.providerReference }),
  completed: (step, answer) => answered(step, { type: 'complete', providerReference: answer.providerReference }),
  failed: (step, failure) => answered(step, { type: 'fail', failure }),
  dueAgain: ({ current, now }, dueAt) => change(current, {}, dueAt, now),
  // A retry's "Failed" may still be the previous attempt's decline until the new request registers.
  failedMayBeStale: (r) => r.attemptCount > 1,
};

/**
 * Test mode (docs/merchant-guide.md, Refunds): the sandbox plays the operator. A new test refund is
 * due at once (refundFirstDueAt); the sweep approves it (the hold, as the operator's approval would)
 * and processes it in the same step, so an integration sees the refund Completed, with its
 * RefundStatusChanged events, within seconds. Not when the merchant's approval setting wants its
 * own approvers (shared/services/approvals.ts): under `merchant` it waits for their decision in the
 * dashboard (due again at its expiry); under `both` the sandbox records the operator's side of the
 * approval and the refund waits for the merchant's (which then approves it). A balance too short
 * for the hold leaves it Pending; the sandbox asks again a minute later, until the refund expires.
 */
async function sandboxApproval(r: Refund, now: Date): Promise<Refund | undefined> {
  const dueAgain = (at: string) => commit(r.id, (x) => (x.status === RefundStatus.Pending ? change(x, {}, at, now) : null));
  // The sandbox is the operator's side of the merchant's approval setting (core/approval.ts): under `both` it records it.
  const policy = (await getMerchant(r.merchantId, true))?.payoutApprovals ?? 'either';
  const ask: ApprovalAsk = { kind: 'refund', policy, decision: 'approve', side: 'operator', status: 'Pending' };
  let d = decideApproval(ask);
  if ('decided' in d && d.decided === 'waiting')
    d = decideApproval({ ...ask, approvals: await recordSideApproval('refund', r.id, 'operator', { at: now.toISOString() }) });
  if ('refused' in d || d.decided === 'waiting') return dueAgain(r.expiresAt);
  try {
    await approveRefund(r.id, () => now);
  } catch (error) {
    if (!(error instanceof BusinessRuleError)) throw error;
    logger.info('sandbox refund approval refused; asked again later', { refundId: r.id, refusal: error.message });
    return dueAgain(new Date(Math.min(now.getTime() + sandboxApprovalRetryMs, Date.parse(r.expiresAt))).toISOString());
  }
  return advanceRefund(r.id, now);
}

/**
 * One step, when the refund is due (the sweep; tests call it directly): expire an overdue Pending
 * refund; make a new attempt of an Approved refund or of one whose last attempt was declined; or,
 * while an attempt's outcome is unknown, ask the provider's status inquiry (never attempt again).
 */
export async function advanceRefund(id: string, now = new Date()): Promise<Refund | undefined> {
  const current = await getRefund(id);
  if (!current) return undefined;
  if (refundOverdue(current, now)) return commit(id, (r) => decided(r, decideRefund({ refund: r }, { type: 'expire' }, now), null, now));
  if (current.status === RefundStatus.Pending && current.mode === 'test') return sandboxApproval(current, now);
  if (current.status !== RefundStatus.Approved && current.status !== RefundStatus.Processing) return current;
  const rail = refundRail(current.mode);
  // Without a provider for its mode, an Approved refund waits as an outstanding attempt does.
  if (!rail) return inquireOrLater({ ...refunds, outstanding: (r, asked) => r.version === asked.version }, rail, current, now);
  if (current.status === RefundStatus.Processing && current.attemptedAt) return inquire(refunds, rail, current, now);
  if (!(await merchantMaySubmitNow(current.merchantId))) return current; // suspended: waits for reactivation
  // The attempt is recorded at the real time of the call, not the start of a possibly long sweep
  // pass, so the inquiry scheduled after it cannot overtake the call it asks about.
  const at = new Date(Math.max(now.getTime(), Date.now()));
  const dueAt = later(at, rail.timings.inquireAfterMs);
  return submitOnce(
    refunds,
    rail,
    at,
    items.change(id, (r) => decided(r, decideRefund({ refund: r }, { type: 'attempt' }, at), dueAt, at)),
  );
}
