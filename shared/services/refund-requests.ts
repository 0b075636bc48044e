import { randomUUID } from 'node:crypto';
import type { Mode } from '#shared/domain/credentials.ts';
import { BusinessRuleError, NotFoundError } from '#shared/domain/errors.ts';
import { isRefusal } from '#shared/domain/core/decision.ts';
import { decideRefund } from '#shared/domain/core/refund.ts';
import type { ErrorCode } from '#shared/domain/error-codes.ts';
import type { Fee } from '#shared/domain/merchant.ts';
import { fromMinor, minorUnits } from '#shared/domain/money.ts';
import { paidThrough, refundableMinor, refundView, type RefundableIntent, type RefundView } from '#shared/domain/refund.ts';
import { logger } from '#shared/logger.ts';
import { refundRail } from '#shared/providers/rails.ts';
import type { FinalChange } from '#shared/store/request.ts';
import { findIntent } from '#shared/store/intents.ts';
import { refundMakerWrite, type Maker } from '#shared/store/dashboard.ts';
import { createRefundWrites, getRefund, listRefundsOfIntent, pageRefundsOfMerchant } from '#shared/store/refunds.ts';

/**
 * The merchant's refund requests (docs/merchant-guide.md "Refunds"): create (ONE transaction: the
 * refund, Pending and due at its 7-day expiry, the reservation of its amount on the transaction,
 * and the Idempotency-Key record, committed by the caller: shared/store/request.ts), read, list.
 * What happens to a refund after it was requested is in refunds.ts.
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
  /** Who asked (a dashboard user, or the user who minted the API key): recorded with the refund. */
  maker?: Maker;
}

/**
 * POST /Refunds: the refund, Pending and due at its 7-day expiry, with the reservation of its
 * amount on the transaction. A lost race on the reservation decides again from a fresh read.
 */
export async function createRefund(caller: RefundCaller, input: RefundInput, now = new Date()): Promise<FinalChange<RefundView>> {
  const rail = refundRail(caller.mode);
  if (!rail)
    throw new BusinessRuleError(
      'Refunds are not available in live mode: no refund provider is configured for this deployment.',
      'refund_provider_unavailable',
    );
  const intent = (await findIntent(caller.merchantId, caller.mode, input.trxnRef)) as RefundableIntent | undefined;
  if (!intent) throw new NotFoundError(`No transaction with reference ${input.trxnRef}.`);
  const walletProviderId = paidThrough(intent);
  const refusal = rail.refuses?.({ walletProviderId });
  if (refusal) throw new BusinessRuleError(refusal, 'refund_provider_unavailable');
  const given = input.amount === undefined || input.amount === null ? undefined : minorUnits(input.amount, intent.currency);
  // The money core decides the refund: what remains refundable, the amount, its fee (shared/domain/core/refund.ts).
  const request = {
    type: 'request' as const,
    id: randomUUID(),
    owner: caller,
    amountMinor: given,
    fee: caller.fee,
    reason: input.reason || null,
    capability: rail.refundsAllowed?.(walletProviderId),
  };
  const decision = decideRefund({ refund: undefined, payment: intent }, request, now);
  if (isRefusal(decision)) throw new BusinessRuleError(decision.message, decision.refused as ErrorCode);
  const { refund, effect } = decision.state;
  const { maker } = caller;
  const made = maker
    ? [refundMakerWrite({ ...maker, refundId: refund.id, merchantId: refund.merchantId, mode: refund.mode, createdAt: refund.requestedAt })]
    : [];
  return {
    writes: [...createRefundWrites(refund, effect), ...made],
    response: refundView(refund),
    refused: (failed) => (failed.on('reservation') ? 'again' : undefined), // a concurrent refund reserved first
    committed: () =>
      logger.info('refund created', {
        refundId: refund.id,
        paymentIntentId: intent.paymentIntentId,
        merchantId: intent.merchantId,
        mode: caller.mode,
      }),
  };
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
    refundableAmount: fromMinor(refundableMinor(intent), intent.currency),
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
