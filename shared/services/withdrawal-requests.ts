import { randomUUID } from 'node:crypto';
import { BusinessRuleError } from '#shared/domain/errors.ts';
import type { Mode } from '#shared/domain/credentials.ts';
import { fromMinor } from '#shared/domain/money.ts';
import { isRefusal } from '#shared/domain/core/decision.ts';
import { decidePayout, payoutNeed, payoutRequestRefusal } from '#shared/domain/core/payout.ts';
import { withdrawalResponse, type NewWithdrawal, type WithdrawalResponse } from '#shared/domain/payout.ts';
import { assertSafeCallbackUrl } from '#shared/domain/webhook-url.ts';
import { payoutRail } from '#shared/providers/rails.ts';
import type { SubmitAnswer } from '#shared/providers/rail.ts';
import { holdsAutomaticPayouts } from '#shared/domain/merchant.ts';
import { payoutMakerWrite, type Maker } from '#shared/store/dashboard.ts';
import { createIntentWrites, findIntent, getIntent } from '#shared/store/intents.ts';
import { getMerchant } from '#shared/store/merchants.ts';
import type { FinalChange, RequestChange } from '#shared/store/request.ts';
import { getWallet, type PlaceHold } from '#shared/store/wallets.ts';
/** A withdrawal holds funds: its request is committed with the wallet's hold placement (shared/store/request.ts, Funds). */
export { withFunds } from '#shared/store/wallets.ts';
import { answerDecision, submitRecorded } from './outbound.ts';
import { intentChange } from './transactions.ts';
import { journalWrites } from './commit.ts';

import { assertPayoutComplete, payouts, providerUnavailable } from './withdrawals.ts';

/**
 * The merchant's withdrawal requests (POST /Payment/withdraw, docs/merchant-guide.md): the request
 * and the recovery of one whose request died between its two commits. What happens to a
 * withdrawal after it was requested is in withdrawals.ts.
 */

export interface WithdrawalInput extends NewWithdrawal {
  allowInsecureWebhooks: boolean;
  /** Who asked (a dashboard user, or the user who minted the API key): recorded for maker-checker. */
  maker?: Maker;
}

const newReference = () => `WD${randomUUID().replaceAll('-', '').slice(0, 20).toUpperCase()}`;

/**
 * POST /Payment/withdraw, a two-step request (shared/store/request.ts): the first commit holds the
 * funds and (auto) records the submission; `next` submits once and records the answer in the
 * commit that stores the response.
 */
export async function requestWithdrawal(input: WithdrawalInput, place: PlaceHold): Promise<RequestChange<WithdrawalResponse>> {
  assertAboveMinimum(input);
  if (input.callbackUrl) await assertSafeCallbackUrl(input.callbackUrl, input.allowInsecureWebhooks);
  return recordWithdrawal(input, place);
}

/**
 * A payout the dashboard asks for: requestWithdrawal without a callbackUrl, so the dashboard's payouts Lambda
 * bundles no URL check (its address rule is ipaddr.js, 13 kB: docs/scaling.md, Lambda bundles).
 */
export async function requestDashboardPayout(
  input: WithdrawalInput & { callbackUrl: null },
  place: PlaceHold,
): Promise<RequestChange<WithdrawalResponse>> {
  assertAboveMinimum(input);
  return recordWithdrawal(input, place);
}

function assertAboveMinimum(input: WithdrawalInput): void {
  const refusal = payoutRequestRefusal(input);
  if (refusal) throw new BusinessRuleError(refusal.message, 'amount_below_minimum');
}

async function recordWithdrawal(input: WithdrawalInput, place: PlaceHold): Promise<RequestChange<WithdrawalResponse>> {
  const rail = payoutRail(input.mode, { bankCode: input.bank.code });
  if (!rail) throw providerUnavailable();
  const refusal = rail.refuses?.({ bankCode: input.bank.code });
  if (refusal) throw new BusinessRuleError(refusal, 'payout_provider_unavailable');
  assertPayoutComplete(rail, { bankCode: input.bank.code, ...(input.customer.cnic ? { receiverCnic: input.customer.cnic } : {}) });

  const now = new Date();
  // The merchant's approval setting may hold automatic payouts for approval too.
  const held = input.autoProcessPayout && holdsAutomaticPayouts((await getMerchant(input.merchantId, true))?.payoutApprovals);
  const submit = input.autoProcessPayout && !held;
  const reconcileAt = new Date(now.getTime() + rail.timings.inquireAfterMs);
  const ids = { paymentIntentId: randomUUID(), transactionReference: newReference() };
  const create = { type: 'create' as const, request: input, ids, provider: { name: rail.name, reconcileAt }, held };
  const need = payoutNeed(input);
  const wallet = { merchantId: input.merchantId, mode: input.mode, currency: input.currency };
  // The hold's wallet shard (0 unless sharded) is recorded on the intent for its completion or release.
  const walletShard = await place({ ...wallet, reference: ids.paymentIntentId, need });
  // The money core decides the payout and its hold (shared/domain/core/payout.ts); creation cannot be refused there.
  const decision = decidePayout(undefined, { ...create, walletShard }, now);
  if (isRefusal(decision)) throw new Error(decision.message);
  const intent = decision.state;
  // With autoProcessPayout the intent is created Processing WITH its submission record and due
  // for the reconciler: whatever happens after this commit, it is never submitted again.
  const creates = createIntentWrites(intent, submit ? { dueAt: reconcileAt.toISOString() } : {});
  // The maker (maker-checker) in the withdrawal's first transaction.
  const { merchantId, mode, orderRef, maker } = input;
  const made = maker ? [payoutMakerWrite({ ...maker, merchantId, mode, orderRef: orderRef.orderRef, createdAt: now.toISOString() })] : [];
  // After the first commit, once: the balance after the hold (before any release) and the one submit.
  let afterHold: Promise<[number, SubmitAnswer | undefined]> | undefined;
  const answered = () =>
    (afterHold ??= Promise.all([
      getWallet(input.merchantId, input.mode, input.currency, true).then((w) => w.available),
      submit ? submitRecorded(payouts, rail, intent) : undefined,
    ]));
  return {
    writes: [...creates, ...journalWrites(decision.journals, wallet, now), ...made],
    refused: (failed) => {
      if (failed.on('orderRef'))
        return new BusinessRuleError(`orderRef ${input.orderRef.orderRef} was already used.`, 'duplicate_order_ref');
      if (!failed.on('wallet')) return undefined;
      const [total, fee] = [fromMinor(need, input.currency), fromMinor(intent.feeMinor, input.currency)];
      return new BusinessRuleError(
        `Insufficient balance: the withdrawal needs ${total} ${input.currency} (amount plus fee ${fee}), ` +
          'more than the available balance.',
        'insufficient_balance',
      );
    },
    next: async () => {
      const [available, answer] = await answered();
      const decide = answer && answerDecision(payouts, rail, intent, answer, now);
      const current = decide ? ((await getIntent(intent.paymentIntentId)) ?? intent) : intent;
      const decision = decide?.(current);
      const change = decision && !isRefusal(decision) ? intentChange(current, decision, new Date()) : undefined;
      const released = change?.next.status === 'Failed';
      const final = change?.next ?? current;
      return {
        writes: change?.writes ?? [],
        response: withdrawalResponse(final, available + (released ? final.amountMinor + final.feeMinor : 0)),
        refused: (failed) => (failed.on('intent') ? 'again' : undefined),
        ...(change ? { committed: change.committed } : {}),
      };
    },
    fallback: async () => (await storedWithdrawal(intent.paymentIntentId))!,
  };
}

/** The withdrawal as stored, as the response to its request (with no writes). */
async function storedWithdrawal(paymentIntentId: string): Promise<FinalChange<WithdrawalResponse> | undefined> {
  const intent = await getIntent(paymentIntentId);
  if (!intent) return undefined;
  return {
    writes: [],
    response: withdrawalResponse(intent, (await getWallet(intent.merchantId, intent.mode, intent.currency, true)).available),
  };
}

/**
 * Recovery of a withdrawal whose request died between its two commits (its Idempotency-Key claim
 * lapsed): the retry answers with the withdrawal as stored, which the pipeline commits with the
 * key's response. Undefined when there is no such withdrawal.
 */
export async function recoverWithdrawal(merchantId: string, mode: Mode, orderRef: string) {
  const intent = await findIntent(merchantId, mode, orderRef);
  return intent?.intentType === 'withdrawal' ? storedWithdrawal(intent.paymentIntentId) : undefined;
}
