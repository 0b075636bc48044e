import { BusinessRuleError, DomainError } from '#shared/domain/errors.ts';
import type { PaymentIntent } from '#shared/domain/intent.ts';
import { withdrawalDetails } from '#shared/domain/payout.ts';
import { logger } from '#shared/logger.ts';
import type { PayoutInstruction } from '#shared/providers/bank-rail.ts';
import type { Rail } from '#shared/providers/rail.ts';
import { payoutRail } from '#shared/providers/rails.ts';
import { getIntent } from '#shared/store/intents.ts';
import { inquireOrLater, later, type OutboundProduct } from './outbound.ts';
import { changeIntent, type IntentOutcome } from './transactions.ts';
import { decidePayout, payoutOutstanding } from '#shared/domain/core/payout.ts';

/**
 * Withdrawals (payouts, docs/merchant-guide.md): declarations over the outbound-transfer engine
 * (shared/services/outbound.ts, docs/architecture.md).
 *
 *   create    ONE transaction: the intent (+ orderRef uniqueness), the hold journal whose wallet
 *             update refuses an overdraft, and (auto) the submission record.
 *   submit    only whoever wrote the submission record (creation with autoProcessPayout, or the
 *             operator's approval) calls the engine's one submit. Unknown: WP_OUTCOME_PENDING.
 *   due       the engine's status inquiry: Completed pays out, Failed / Cancelled release the hold.
 */

export const providerUnavailable = () =>
  new BusinessRuleError('Payout provider unavailable: no payout provider is configured for this mode.', 'payout_provider_unavailable');

const instruction = (intent: PaymentIntent): PayoutInstruction => {
  const d = withdrawalDetails(intent);
  return {
    reference: intent.transactionReference,
    paymentIntentId: intent.paymentIntentId,
    amountMinor: intent.amountMinor,
    currency: intent.currency,
    bankCode: d.beneficiary.bankCode,
    accountNumber: d.beneficiary.accountNumber ?? '',
    accountTitle: d.beneficiary.accountTitle,
    ...receiverCnic(intent),
    description: intent.description,
    submittedAt: d.submission?.submittedAt ?? intent.updatedAt,
  };
};

/** The receiver's CNIC: the operator's (given at approval), else the merchant's customerRef.cnic. */
const receiverCnic = (intent: PaymentIntent): { receiverCnic?: string } => {
  const cnic = withdrawalDetails(intent).beneficiary.receiverCnic ?? intent.customerRef?.cnic;
  return cnic ? { receiverCnic: cnic } : {};
};

/** Where a member of the payout instruction comes from, as the API and the dashboard's form name it. */
const requestFields: Partial<Record<keyof PayoutInstruction, { api: string; form: string; rule: string; detail: string }>> = {
  receiverCnic: {
    api: 'customerRef.cnic',
    form: 'receiverCnic',
    rule: "required for this payout: the receiver's CNIC, 13 digits (JazzCash matches the wallet number with it)",
    detail: "This payout needs the receiver's CNIC, 13 digits (customerRef.cnic): JazzCash matches the wallet number with it",
  },
};

/**
 * Refuses (400, naming each field, before anything is held or submitted) a payout without a member its rail needs
 * (Rail.requires: a live JazzCash wallet payout needs the receiver's CNIC). `hint` says where else to give it.
 */
export function assertPayoutComplete(rail: Rail<PayoutInstruction>, target: Partial<PayoutInstruction>, hint = ''): void {
  const absent = (rail.requires?.(target) ?? []).filter((member) => !target[member]);
  if (absent.length === 0) return;
  const fields = absent.map(
    (m) => requestFields[m] ?? { api: m, form: m, rule: 'required for this payout', detail: `This payout needs ${m}` },
  );
  throw new DomainError('invalid', `${fields.map((f) => f.detail).join('; ')}.${hint}`, {
    errors: Object.fromEntries(fields.map((f) => [f.api, [f.rule]])),
    field: fields[0]!.form,
  });
}

type PayoutChange = IntentOutcome;

/** Payouts over the outbound-transfer engine: their instruction and transitions. */
export const payouts: OutboundProduct<PaymentIntent, PayoutInstruction, PayoutChange> = {
  who: 'payout provider',
  context: (i) => ({ paymentIntentId: i.paymentIntentId }),
  instruction,
  submittedAt: (i) => withdrawalDetails(i).submission!.submittedAt,
  outstanding: payoutOutstanding,
  commit: async (asked, decide) => (await changeIntent(asked.paymentIntentId, decide)).intent,
  // Only the payout as submitted: if anything moved it on meanwhile (the reconciler), that stands.
  accepted: ({ current, asked, rail, now }, answer) => {
    if (current.version !== asked.version) return null;
    const expectedBy = answer.estimatedCompletionAt ?? new Date(now.getTime() + rail.timings.firstCheckAfterMs);
    const accepted = { type: 'accepted' as const, providerReference: answer.providerReference, expectedBy, message: answer.message };
    return { ...decidePayout(current, accepted, now), dueAt: later(now, rail.timings.firstCheckAfterMs) };
  },
  completed: ({ current, rail, now }, answer) => {
    const complete = { type: 'complete' as const, ledgerAccount: rail.ledgerAccount, completedAt: answer.completedAt ?? now };
    return decidePayout(current, { ...complete, providerReference: answer.providerReference ?? null }, now);
  },
  failed: ({ current, now }, why) => {
    if (why.kind === 'rejected' && why.internal)
      logger.error('payout not submitted', { paymentIntentId: current.paymentIntentId, detail: why.reason });
    return decidePayout(current, { type: 'fail', failure: why }, now);
  },
  dueAgain: ({ current, asked, now }, dueAt) =>
    current.version === asked.version ? { ...decidePayout(current, { type: 'note' }, now), dueAt } : null,
};

/**
 * The due handler (shared/services/due.ts): a Processing payout whose check is due. The engine asks
 * the rail's status inquiry, NEVER submits again: Completed (amount to the rail, fee to the
 * platform), Failed (hold released), or later. `rail`: the rail that holds the submission when the
 * caller knows it (a bank transfer file line marked by the operator), else the mode's payout rail.
 */
export async function reconcileWithdrawal(due: PaymentIntent, now = new Date(), rail?: Rail<PayoutInstruction>): Promise<void> {
  const intent = await getIntent(due.paymentIntentId);
  if (intent?.intentType !== 'withdrawal' || !payoutOutstanding(intent)) return;
  await inquireOrLater(payouts, rail ?? payoutRail(intent.mode, instruction(intent)), intent, now);
}
