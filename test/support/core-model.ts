import fc from 'fast-check';
import { banks } from '#shared/domain/bank-codes.ts';
import { decided, isRefusal, type Decided, type Decision, type JournalDraft } from '#shared/domain/core/decision.ts';
import {
  decideAnswer,
  decideCharge,
  decideDepositAnswer,
  decideHeld,
  decideIntent,
  holdApproval,
  newIntent,
  type ProviderAnswer,
} from '#shared/domain/core/intent.ts';
import { decideLinkCreate, decideLinkUse, linkOf, linkUseOf } from '#shared/domain/core/payment-link.ts';
import { checkoutDetails, holdsLinkUse, maxPaymentAttempts, walletApprovalWindowMs } from '#shared/domain/checkout.ts';
import type { PaymentLink } from '#shared/domain/payment-link.ts';
import { refundStatusNames, settlementStatusNames, type IntentStatus } from '#shared/domain/core/machines.ts';
import { decidePayout } from '#shared/domain/core/payout.ts';
import { decideRefund, type RefundOutcome } from '#shared/domain/core/refund.ts';
import { decideAutoSettlement, decideSettlement, type AutoSettlementMerchant } from '#shared/domain/core/settlement.ts';
import { applyJournals, decideTestCredit, emptyWallet, type WalletBalances } from '#shared/domain/core/wallet.ts';
import { heldApprovalOf, type PaymentIntent } from '#shared/domain/intent.ts';
import { accountName, holdTypes, type Journal } from '#shared/domain/ledger.ts';
import { checkLedger } from '#shared/domain/ledger-invariants.ts';
import { feeFor } from '#shared/domain/money.ts';
import type { Refund, RefundableIntent } from '#shared/domain/refund.ts';
import type { Settlement } from '#shared/domain/settlement.ts';

/**
 * The money core's model test, in memory (test/unit/money-core.model.test.ts): random command sequences drive the
 * pure core (shared/domain/core) through an in-memory store whose commit is conditional as DynamoDB's is (every
 * written item at the revision it was read, the wallet never below zero), and a small reference model written
 * apart from the core predicts every outcome. Concurrency: a `race` decides two commands on the SAME read and
 * commits both; the one whose read went stale is refused by the condition and decided again from a fresh read.
 */

const merchantId = 'm_model';
const ledgerAccount = 'bank_rail';
const withdrawalFee = { basisPoints: 0, fixedMinor: 14_00 };
const settlementFee = { basisPoints: 100, fixedMinor: 0 };
const refundFeeMinor = 2_00;
const refundFee = { basisPoints: 0, fixedMinor: refundFeeMinor };
const day = 86_400_000;
const card = { brand: 'visa', last4: '4242', expMonth: 12, expYear: 2030 };

// ---------------------------------------------------------------- commands

type PaymentKind = 'card' | 'wallet' | 'deposit';
type PaymentAction =
  | 'start'
  | 'abandon'
  | 'decline'
  | 'complete'
  | 'fail'
  | 'cancel'
  | 'expire'
  | 'note'
  | 'answered'
  | 'hold'
  | 'release'
  | 'decline-held'
  | 'approved'
  | 'answer-declined'
  | 'stale'
  | 'swept';
type PayoutAction = 'approve' | 'reject' | 'complete' | 'fail' | 'accepted' | 'note';
export type Command =
  /** A payment link limited to `max` payments. */
  | { t: 'link'; max: number }
  /** A checkout (or deposit) opened; a checkout may be a link's (`link`: which one). */
  | { t: 'pay'; kind: PaymentKind; amount: number; feeBps: number; link: number | null }
  /**
   * `start`: a payment attempt on a link's checkout starts, taking one of the link's uses; `abandon`: the attempt left
   * waiting gives it back (the sweep); `decline`: a checkout's attempt declined (the third fails the checkout); `note`:
   * nothing decided, looked at again later (the status stays; refused on a final payment); `answered`: a deposit's
   * charge request answered by the provider (once; the status stays); `hold`: the money arrived for a suspended
   * merchant, held for the operator (the status stays); `release` / `decline-held`: the operator's decision about it.
   * `approved` / `answer-declined`: the provider's answer about the payment's attempt (a card's confirmation, a wallet
   * charge's inquiry, a deposit's charge); `stale`: an approval about an EARLIER attempt of a checkout (changes nothing);
   * `swept`: the sweep's look at a checkout whose provider still answers Pending (a wallet charge past its approval
   * window expires; a card being confirmed waits for its provider).
   */
  | { t: 'payment'; i: number; action: PaymentAction }
  | { t: 'withdraw'; amount: number; auto: boolean }
  /** The operator funds the test wallet from the sandbox (refused in live mode). */
  | { t: 'credit'; amount: number; live: boolean }
  /** `accepted`: the rail took a Processing payout's submission; `note`: looked at again later (both keep the status). */
  | { t: 'payout'; i: number; action: PayoutAction }
  | { t: 'settle'; amount: number }
  /** A due automatic-settlement run: everything available above `keep` (the schedule's minimum balance). */
  | { t: 'autoSettle'; keep: number }
  | { t: 'settlement'; i: number; action: 'approve' | 'submit' | 'cancel' | 'complete' | 'fail' }
  /** `rail`: what the refund rail can refund of the payment (JazzCash: once; decideRefund refuses a second refund). */
  | { t: 'refund'; i: number; amount: number | null; rail: 'partial' | 'once' }
  /** `accepted`: the refund provider accepts the attempt's submission (a completion, as the status inquiry's `complete`). */
  | { t: 'refundStep'; i: number; action: 'approve' | 'reject' | 'cancel' | 'expire' | 'attempt' | 'complete' | 'accepted' | 'fail' }
  | { t: 'advance'; ms: number };
export type Step = Command | { t: 'race'; a: Command; b: Command };

const amount = fc.integer({ min: 1, max: 200 }).map((n) => n * 5_00);
const refundAmount = fc.integer({ min: 1, max: 40 }).map((n) => n * 5_00);
const index = fc.nat({ max: 2 });
const payment = fc.integer({ min: 1, max: 2_000 }).map((n) => n * 5_00);
const weighted = (weight: number, arbitrary: fc.Arbitrary<unknown>) => ({ weight, arbitrary: arbitrary as fc.Arbitrary<Command> });
const one: fc.Arbitrary<Command> = fc.oneof(
  weighted(
    3,
    fc.record({
      t: fc.constant('pay'),
      kind: fc.constantFrom('card', 'wallet', 'deposit'),
      amount: payment,
      feeBps: fc.nat({ max: 500 }),
      link: fc.option(index, { nil: null, freq: 2 }),
    }),
  ),
  weighted(
    3,
    fc.record({
      t: fc.constant('payment'),
      i: index,
      action: fc.constantFrom<PaymentAction>(
        'start',
        'abandon',
        'decline',
        'decline',
        'complete',
        'complete',
        'complete',
        'fail',
        'cancel',
        'expire',
        'note',
        'answered',
        'hold',
        'release',
        'decline-held',
        'approved',
        'answer-declined',
        'stale',
        'swept',
      ),
    }),
  ),
  weighted(1, fc.record({ t: fc.constant('link'), max: fc.integer({ min: 1, max: 2 }) })),
  weighted(3, fc.record({ t: fc.constant('withdraw'), amount, auto: fc.boolean() })),
  weighted(1, fc.record({ t: fc.constant('credit'), amount, live: fc.constantFrom(false, false, false, true) })),
  weighted(
    2,
    fc.record({
      t: fc.constant('payout'),
      i: index,
      action: fc.constantFrom<PayoutAction>('approve', 'reject', 'complete', 'complete', 'fail', 'accepted', 'note'),
    }),
  ),
  weighted(2, fc.record({ t: fc.constant('settle'), amount })),
  weighted(1, fc.record({ t: fc.constant('autoSettle'), keep: fc.nat({ max: 200 }).map((n) => n * 5_00) })),
  weighted(
    2,
    fc.record({ t: fc.constant('settlement'), i: index, action: fc.constantFrom('approve', 'submit', 'cancel', 'complete', 'fail') }),
  ),
  weighted(
    3,
    fc.record({
      t: fc.constant('refund'),
      i: index,
      amount: fc.option(refundAmount, { nil: null }),
      rail: fc.constantFrom('partial', 'once'),
    }),
  ),
  weighted(
    7,
    fc.record({
      t: fc.constant('refundStep'),
      i: index,
      action: fc.constantFrom(
        'approve',
        'approve',
        'reject',
        'cancel',
        'expire',
        'attempt',
        'attempt',
        'complete',
        'accepted',
        'fail',
        'fail',
      ),
    }),
  ),
  // Minutes, or about a refund's 7-day approval window.
  weighted(
    1,
    fc.record({
      t: fc.constant('advance'),
      ms: fc.oneof(fc.integer({ min: 1, max: 3_600_000 }), fc.integer({ min: 6 * day, max: 8 * day })),
    }),
  ),
);
// Not an automatic settlement: it settles the balance it read, which a command committed meanwhile may have changed.
const racing = one.filter((c) => c.t !== 'advance' && c.t !== 'autoSettle');
const step: fc.Arbitrary<Step> = fc.oneof(
  { arbitrary: one, weight: 5 },
  // Two commands decided on one read (not the clock: a decision is made at its own time).
  { arbitrary: fc.record({ t: fc.constant('race' as const), a: racing, b: racing }), weight: 2 },
);
/** An attempt the provider declines: three in a row fail a refund (its hold and reservation released). */
const declined: fc.Arbitrary<Step[]> = index.map((i) => [
  { t: 'refundStep', i, action: 'attempt' },
  { t: 'refundStep', i, action: 'fail' },
]);
/** The same command twice (a provider's callback delivered twice, a retried request). */
const twice: fc.Arbitrary<Step[]> = one.map((c) => [c, c]);
/** A payment made and paid, then (sometimes) a refund of it asked and approved: the refund rules get their share. */
const paid: fc.Arbitrary<Step[]> = fc
  .tuple(
    fc.record({ t: fc.constant('pay'), kind: fc.constantFrom('card', 'wallet', 'deposit'), amount: payment, feeBps: fc.nat({ max: 500 }) }),
    fc.boolean(),
    fc.option(refundAmount, { nil: null }),
  )
  .map(([pay, refunding, amount]) => [
    { ...pay, link: null } as Step,
    { t: 'payment', i: -1, action: 'complete' },
    ...(refunding
      ? ([
          { t: 'refund', i: -1, amount, rail: 'partial' },
          { t: 'refundStep', i: -1, action: 'approve' },
        ] as Step[])
      : []),
  ]);
/** Two customers paying through one newly made link with a limit of 1 or 2 payments. */
const linked: fc.Arbitrary<Step[]> = fc
  .tuple(fc.integer({ min: 1, max: 2 }), amount, fc.constantFrom('start', 'complete'), fc.constantFrom('start', 'complete'))
  .map(([max, amount, first, second]) => [
    { t: 'link', max },
    { t: 'pay', kind: 'card', amount, feeBps: 0, link: -1 },
    { t: 'pay', kind: 'wallet', amount, feeBps: 0, link: -1 },
    { t: 'payment', i: -2, action: first },
    { t: 'payment', i: -1, action: second },
  ]);
/** Money held for a suspended merchant, then the operator's decision (sometimes given twice: a retried command). */
const heldFlow: fc.Arbitrary<Step[]> = fc
  .tuple(
    fc.record({ t: fc.constant('pay'), kind: fc.constantFrom('card', 'wallet', 'deposit'), amount: payment, feeBps: fc.nat({ max: 500 }) }),
    fc.option(index, { nil: null }),
    fc.constantFrom<PaymentAction>('release', 'decline-held'),
    fc.boolean(),
  )
  .map(([pay, link, decision, again]) => [
    { ...pay, link } as Step,
    { t: 'payment', i: -1, action: 'start' },
    { t: 'payment', i: -1, action: 'hold' },
    ...Array.from({ length: again ? 2 : 1 }, () => ({ t: 'payment', i: -1, action: decision }) as Step),
  ]);
/** A provider's answer (or one about an earlier attempt) racing the customer's cancel or the session's expiry. */
const answered: fc.Arbitrary<Step[]> = fc
  .tuple(
    fc.record({ t: fc.constant('pay'), kind: fc.constantFrom('card', 'wallet', 'deposit'), amount: payment, feeBps: fc.nat({ max: 500 }) }),
    fc.option(index, { nil: null }),
    fc.constantFrom<PaymentAction>('approved', 'answer-declined', 'stale'),
    fc.constantFrom<PaymentAction>('cancel', 'expire', 'decline', 'approved', 'stale', 'swept'),
    fc.boolean(),
  )
  .map(([pay, link, answer, other, racing]) => {
    const a: Command = { t: 'payment', i: -1, action: answer };
    const b: Command = { t: 'payment', i: -1, action: other };
    return [
      { ...pay, link } as Step,
      { t: 'payment', i: -1, action: 'start' } as Step,
      ...(racing ? [{ t: 'race', a, b } as Step] : [b, a]),
    ];
  });
const chunk = fc.oneof(
  { weight: 8, arbitrary: step.map((s) => [s]) },
  { weight: 1, arbitrary: declined },
  { weight: 1, arbitrary: twice },
  { weight: 1, arbitrary: paid },
  { weight: 1, arbitrary: linked },
  { weight: 1, arbitrary: heldFlow },
  { weight: 1, arbitrary: answered },
);
export const sequences = (maxLength: number): fc.Arbitrary<Step[]> =>
  fc.array(chunk, { minLength: 1, maxLength: Math.ceil(maxLength / 1.2), size: 'max' }).map((chunks) => chunks.flat());

// ---------------------------------------------------------------- the core, and the plants

/** The decisions the model drives; a plant replaces one with a wrong rule. */
export interface Core {
  intent: typeof decideIntent;
  charge: typeof decideCharge;
  hold: typeof holdApproval;
  held: typeof decideHeld;
  answer: typeof decideAnswer;
  depositAnswer: typeof decideDepositAnswer;
  create: typeof newIntent;
  linkUse: typeof linkUseOf;
  link: typeof decideLinkUse;
  linkCreate: typeof decideLinkCreate;
  credit: typeof decideTestCredit;
  payout: typeof decidePayout;
  settlement: typeof decideSettlement;
  autoSettlement: typeof decideAutoSettlement;
  refund: typeof decideRefund;
}
export const core: Core = {
  intent: decideIntent,
  charge: decideCharge,
  hold: holdApproval,
  held: decideHeld,
  answer: decideAnswer,
  depositAnswer: decideDepositAnswer,
  create: newIntent,
  linkUse: linkUseOf,
  link: decideLinkUse,
  linkCreate: decideLinkCreate,
  credit: decideTestCredit,
  payout: decidePayout,
  settlement: decideSettlement,
  autoSettlement: decideAutoSettlement,
  refund: decideRefund,
};

export type Plant =
  | 'over-refund'
  | 'refund-once-ignored'
  | 'double-payout'
  | 'missed-release'
  | 'unconditional-commit'
  | 'link-over-limit'
  | 'link-created-without-limit'
  | 'expiry-keeps-link-use'
  | 'deposit-fee-dropped'
  | 'note-on-final'
  | 'accepted-changes-status'
  | 'auto-settlement-keeps-nothing'
  | 'release-held-twice'
  | 'answer-about-any-attempt'
  | 'held-answer-credits'
  | 'approval-deadline-ignored';

/** The core with one wrong rule (or the commit without its condition): the model test must catch each. */
export function planted(plant: Plant): { core: Core; conditional: boolean } {
  switch (plant) {
    case 'over-refund':
      // Forgets what other refunds reserved: refunds may add up to more than the payment.
      return {
        core: {
          ...core,
          refund: (s, c, now) => core.refund({ ...s, ...(s.payment && { payment: { ...s.payment, refundReservedMinor: 0 } }) }, c, now),
        },
        conditional: true,
      };
    case 'refund-once-ignored':
      // A rail that refunds a payment once is asked for a second refund of it.
      return {
        core: { ...core, refund: (s, c, now) => core.refund(s, c.type === 'request' ? { ...c, capability: undefined } : c, now) },
        conditional: true,
      };
    case 'double-payout':
      // A Completed payout "completes" again, paying out a second time.
      return {
        core: {
          ...core,
          payout: (p, c, now) => {
            if (c.type !== 'complete' || p?.status !== 'Completed') return core.payout(p, c, now);
            const again = core.payout({ ...p, status: 'Processing' }, c, now);
            return isRefusal(again) ? again : decided({ ...again.state, version: p.version + 1 }, again.journals);
          },
        },
        conditional: true,
      };
    case 'missed-release':
      // A failed or rejected payout keeps its hold.
      return {
        core: {
          ...core,
          payout: (p, c, now) => {
            const d = core.payout(p, c, now);
            return isRefusal(d) || (c.type !== 'fail' && c.type !== 'reject') ? d : { ...d, journals: [] };
          },
        },
        conditional: true,
      };
    case 'unconditional-commit':
      return { core, conditional: false };
    case 'link-over-limit':
      // A link takes a payment beyond its limit.
      return { core: { ...core, link: (l, use) => core.link({ ...l, maxPayments: null }, use) }, conditional: true };
    case 'link-created-without-limit':
      // A new link loses the limit of payments the merchant gave it.
      return {
        core: { ...core, linkCreate: (c, now) => core.linkCreate({ ...c, input: { ...c.input, maxPayments: null } }, now) },
        conditional: true,
      };
    case 'deposit-fee-dropped':
      // A deposit is created without its fee (credited in full, the platform short of it).
      return {
        core: {
          ...core,
          create: (input, now) => {
            const created = core.create(input, now);
            return input.intentType === 'deposit' ? { ...created, feeMinor: 0 } : created;
          },
        },
        conditional: true,
      };
    case 'note-on-final':
      // A final payment takes a note (changed after it ended) instead of refusing it.
      return {
        core: {
          ...core,
          intent: (p, c, now) => {
            if (c.type !== 'note' || p.status === 'Pending') return core.intent(p, c, now);
            const noted = core.intent({ ...p, status: 'Pending' }, c, now);
            return isRefusal(noted) ? noted : decided({ ...noted.state, status: p.status });
          },
        },
        conditional: true,
      };
    case 'accepted-changes-status':
      // The rail's acceptance completes the payout (without paying it out).
      return {
        core: {
          ...core,
          payout: (p, c, now) => {
            const d = core.payout(p, c, now);
            return isRefusal(d) || c.type !== 'accepted' ? d : decided({ ...d.state, status: 'Completed' });
          },
        },
        conditional: true,
      };
    case 'auto-settlement-keeps-nothing': {
      // An automatic settlement takes the whole balance, not what is above the schedule's minimum.
      const keepNothing = (m: AutoSettlementMerchant) => ({
        ...m,
        settlementSchedule: { ...m.settlementSchedule, minimumBalanceMinor: 0 },
      });
      const autoSettlement: Core['autoSettlement'] = (run, m, available, rail, now) =>
        core.autoSettlement(run, m && keepNothing(m), available, rail, now);
      return { core: { ...core, autoSettlement }, conditional: true };
    }
    case 'release-held-twice':
      // The operator's release is not checked against a decision already made: a released payment is credited again.
      return {
        core: {
          ...core,
          held: (p, c, now) => {
            const held = heldApprovalOf(p);
            if (c.type !== 'release-held' || !held?.decision) return core.held(p, c, now);
            const undecided = {
              ...p,
              status: 'Pending' as const,
              details: { ...p.details, heldApproval: { ...held, decision: undefined } },
            };
            const again = core.held(undecided, c, now);
            return isRefusal(again) ? again : decided({ ...again.state, version: p.version + 1 }, again.journals, again.events);
          },
        },
        conditional: true,
      };
    case 'answer-about-any-attempt':
      // An answer is not checked against the attempt it names: an approval of an earlier attempt credits the session.
      return {
        core: {
          ...core,
          answer: (p, c, now) => {
            const { cardAuth, wallet } = checkoutDetails(p);
            const current = (c.type === 'card-answered' ? cardAuth : wallet)?.providerReference;
            return core.answer(p, current ? { ...c, reference: current } : c, now);
          },
        },
        conditional: true,
      };
    case 'held-answer-credits':
      // A provider's approval credits money held for the operator (the hold is not looked at).
      return {
        core: {
          ...core,
          answer: (p, c, now) => {
            const held = heldApprovalOf(p);
            const d = core.answer(held ? { ...p, details: { ...p.details, heldApproval: undefined } } : p, c, now);
            return held && !isRefusal(d)
              ? decided({ ...d.state, details: { ...d.state.details, heldApproval: held } }, d.journals, d.events)
              : d;
          },
        },
        conditional: true,
      };
    case 'approval-deadline-ignored':
      // The sweep does not wait for the approval window: a charge the customer may still approve expires early.
      return {
        core: { ...core, answer: (p, c, now) => core.answer(p, c, new Date(now.getTime() + walletApprovalWindowMs)) },
        conditional: true,
      };
    case 'expiry-keeps-link-use':
      // A checkout that expires keeps its payment link's use (the link stays short of a payment it could take).
      return {
        core: { ...core, linkUse: (p, next) => (next.status === 'Expired' ? undefined : core.linkUse(p, next)) },
        conditional: true,
      };
  }
}

// ---------------------------------------------------------------- the in-memory store

type Item = PaymentIntent | Settlement | Refund | PaymentLink;
interface Stored {
  rev: number;
  value: Item;
}

/** What a command read: each item's revision, the condition its writes commit under. */
type Read = Map<string, number>;

/** The table, in memory: items with revisions, the wallet, the journals. Commits are all-or-nothing and conditional. */
class Books {
  items = new Map<string, Stored>();
  wallet: WalletBalances = emptyWallet();
  journals: Journal[] = [];
  private journalCount = 0;
  constructor(private readonly conditional: boolean) {}

  read<T extends Item>(id: string, read: Read): T | undefined {
    const s = this.items.get(id);
    if (!s) return undefined;
    read.set(id, s.rev);
    // Not a copy: a core that changed what it was given (it must not) would change the table without a commit.
    return s.value as T;
  }

  /** ONE transaction: every written item still at the revision read (else 'conflict'), the wallet never below zero. */
  commit(read: Read, writes: { id: string; value: Item }[], journals: JournalDraft[], now: Date): 'ok' | 'conflict' | string {
    if (this.conditional) for (const w of writes) if ((this.items.get(w.id)?.rev ?? 0) !== (read.get(w.id) ?? 0)) return 'conflict';
    const wallet = applyJournals(this.wallet, journals);
    if (isRefusal(wallet)) return wallet.refused;
    this.wallet = wallet.state;
    for (const w of writes) this.items.set(w.id, { rev: (this.items.get(w.id)?.rev ?? 0) + 1, value: w.value });
    for (const j of journals) this.journals.push(materialise(j, now, `j${++this.journalCount}`));
    return 'ok';
  }

  of<T extends Item>(prefix: string): T[] {
    return [...this.items.entries()].filter(([id]) => id.startsWith(prefix)).map(([, s]) => s.value as T);
  }

  fees(): number {
    return this.journals.flatMap((j) => j.lines).reduce((sum, l) => sum + (l.account === 'platform:fees' ? l.amount : 0), 0);
  }
}

function materialise(j: JournalDraft, now: Date, journalId: string): Journal {
  return {
    journalId,
    merchantId,
    mode: 'test',
    currency: 'PKR',
    kind: j.kind,
    reference: j.reference,
    lines: j.movements.map((m) => ({ account: accountName(merchantId, m.account), amount: m.amount })),
    createdAt: now.toISOString(),
  };
}

/** A link limited to `maxPayments`, as the core creates it (its price plays no part: the model's payments give theirs). */
function newLink(create: Core['linkCreate'], linkId: string, maxPayments: number, now: Date) {
  const price = { type: 'customer' as const, minMinor: 10_01, maxMinor: 10_000_00 };
  const input = { currency: 'PKR' as const, description: 'model', price, maxQuantity: null, maxPayments, expiresAt: null };
  const owner = { merchantId, mode: 'test' as const };
  return create({ linkId, owner, input: { ...input, collect: [], returnUrl: null }, minimumMinor: 10_00, liveProvider: false }, now);
}

function paymentFixture(
  create: Core['create'],
  id: string,
  kind: PaymentKind,
  amountMinor: number,
  feeBps: number,
  now: Date,
  paymentLinkId?: string,
): RefundableIntent {
  const at = now.toISOString();
  // Made as deposit and checkout creation make it (newIntent: its fee at creation); the model does not expire sessions.
  const made = create(
    {
      paymentIntentId: id,
      merchantId,
      mode: 'test',
      intentType: kind === 'deposit' ? 'deposit' : 'checkout',
      amountMinor,
      currency: 'PKR',
      feeRate: { basisPoints: feeBps, fixedMinor: 0 },
      orderRef: { orderRef: id },
      customerRef: null,
      description: 'model',
      metadataJson: null,
      callbackUrl: null,
      transactionReference: `T${id}`,
      traceId: 'trace',
      details:
        kind === 'deposit'
          ? { providerId: 1, requesting: true, walletChargeInfo: { status: 'Pending', message: 'requested' } }
          : {
              feeRate: { basisPoints: feeBps, fixedMinor: 0 },
              ...(paymentLinkId ? { paymentLinkId, linkUseHeld: false } : {}),
              // What is paying: a card being confirmed, or a wallet charge awaiting approval (what a held approval releases).
              ...(kind === 'card'
                ? {
                    cardAuth: {
                      stage: 'confirming',
                      providerReference: `C${id}`,
                      authenticationId: 'a',
                      url: '',
                      fields: {},
                      card,
                      startedAt: at,
                    },
                  }
                : {
                    wallet: { provider: 1, stage: 'approval', providerReference: `W${id}`, otpAttempts: 0, approvalRequestedAt: at },
                    walletProvider: 1,
                  }),
            },
    },
    now,
  );
  return { ...made, expiresAt: null, refundReservedMinor: 0 };
}

/** The system under test: the core deciding, the in-memory store committing; `run` answers 'ok' or the refusal. */
class System {
  books: Books;
  now = Date.parse('2026-11-29T00:00:00.000Z');
  private count = 0;
  /** What each payment was made as: its attempt is that card payment or wallet charge (the fixture's). */
  private kinds = new Map<string, PaymentKind>();
  constructor(
    private readonly c: Core,
    conditional: boolean,
  ) {
    this.books = new Books(conditional);
  }

  private nth(prefix: string, i: number): string | undefined {
    const ids = [...this.books.items.keys()].filter((id) => id.startsWith(prefix));
    return ids.length ? ids[((i % ids.length) + ids.length) % ids.length] : undefined;
  }

  /** Reads and decides; returns the commit to run (or the refusal). */
  prepare(cmd: Command): (() => string) | string {
    const read: Read = new Map();
    const now = new Date(this.now);
    const commit = <S>(d: Decision<S>, writes: (s: S) => { id: string; value: Item }[]) =>
      isRefusal(d) ? d.refused : () => this.books.commit(read, writes((d as Decided<S>).state), (d as Decided<S>).journals, now);
    const one =
      <T extends Item>(id: string) =>
      (s: T) => [{ id, value: s }];
    switch (cmd.t) {
      case 'advance':
        return () => {
          this.now += cmd.ms;
          return 'ok';
        };
      case 'link': {
        const id = `l${++this.count}`;
        const created = newLink(this.c.linkCreate, id, cmd.max, now);
        if (isRefusal(created)) return created.refused;
        return () => this.books.commit(read, [{ id, value: created.state }], [], now);
      }
      case 'pay': {
        const id = `p${++this.count}`;
        const linkId = cmd.link !== null && cmd.kind !== 'deposit' ? this.nth('l', cmd.link) : undefined;
        const p = paymentFixture(this.c.create, id, cmd.kind, cmd.amount, cmd.feeBps, now, linkId);
        this.kinds.set(id, cmd.kind);
        return () => this.books.commit(read, [{ id, value: p }], [], now);
      }
      case 'payment': {
        const id = this.nth('p', cmd.i);
        const p = id && this.books.read<PaymentIntent>(id, read);
        if (!id || !p) return 'none';
        // The attempt marks the session as holding a use, or not (no status change): the link's use moves with it.
        if (cmd.action === 'start' || cmd.action === 'abandon')
          return this.withLink(read, p, this.c.intent(p, { type: 'attempt', linkUse: cmd.action === 'start' }, now), now);
        if (cmd.action === 'note' || cmd.action === 'answered') {
          const d =
            cmd.action === 'note'
              ? this.c.intent(p, { type: 'note', details: { lookedAt: now.toISOString() } }, now)
              : this.c.charge(p, { type: 'answered', status: 'Pending', message: 'prompted', unanswered: false }, now);
          return this.withLink(read, p, keepsStatus(p, d), now);
        }
        if (cmd.action === 'hold') {
          // Money arrives for an attempt under way: a link's checkout holds its use by then (else nothing to hold here).
          if (p.status === 'Pending' && linkOf(p) && !holdsLinkUse(checkoutDetails(p))) return 'none';
          const approval = { source: 'callback' as const, providerReference: `P${id}` };
          return this.withLink(
            read,
            p,
            keepsStatus(p, this.c.hold(p, { type: 'hold-approval', approval, merchantActive: false }, now)),
            now,
          );
        }
        if (cmd.action === 'release' || cmd.action === 'decline-held')
          return this.withLink(read, p, this.c.held(p, { type: cmd.action === 'release' ? 'release-held' : 'decline-held' }, now), now);
        if (cmd.action === 'swept') {
          // The provider still answers Pending about the session's charge (none: nobody to ask).
          if (this.kinds.get(id) === 'deposit') return 'none';
          const { wallet } = checkoutDetails(p);
          const c = { type: 'charge-answered' as const, reference: wallet?.providerReference, stage: wallet?.stage };
          return this.withLink(read, p, this.c.answer(p, { ...c, answer: { status: 'Pending' } }, now), now);
        }
        if (cmd.action === 'approved' || cmd.action === 'answer-declined' || cmd.action === 'stale') {
          const answer: ProviderAnswer =
            cmd.action === 'answer-declined' ? { status: 'Declined', reason: 'insufficient_funds' } : { status: 'Approved' };
          const kind = this.kinds.get(id);
          // The attempt asked about took its link's use before any provider was asked (holdLinkUse), as for `hold`.
          if (cmd.action !== 'stale' && p.status === 'Pending' && linkOf(p) && !holdsLinkUse(checkoutDetails(p))) return 'none';
          if (kind === 'deposit')
            return cmd.action === 'stale'
              ? 'none'
              : this.withLink(read, p, this.c.depositAnswer(p, { type: 'charge-answered', answer, details: {} }, now), now);
          // About the attempt the fixture made (C<id>: its card, W<id>: its wallet charge), or an earlier one.
          const reference = `${cmd.action === 'stale' ? 'earlier-' : ''}${kind === 'card' ? 'C' : 'W'}${id}`;
          const c =
            kind === 'card'
              ? { type: 'card-answered' as const, reference, answer }
              : { type: 'charge-answered' as const, reference, stage: 'approval' as const, answer };
          return this.withLink(read, p, this.c.answer(p, c, now), now);
        }
        if (cmd.action === 'decline') {
          const failure = { reason: 'card_declined' as const };
          return this.withLink(read, p, this.c.intent(p, { type: 'attempt-failed', source: { card }, failure }, now), now);
        }
        // A checkout's card paid in one step (its fee at the session's rate) takes the link's use with it (payByCard).
        const c =
          cmd.action === 'complete'
            ? p.intentType === 'checkout'
              ? { type: 'attempt-paid' as const, source: { card }, takesLinkUse: true }
              : { type: 'complete' as const, through: { deposit: 1 as const } }
            : cmd.action === 'fail'
              ? { type: 'fail' as const, reason: 'card_declined' as const }
              : { type: cmd.action as 'cancel' | 'expire' };
        return this.withLink(read, p, this.c.intent(p, c, now), now);
      }
      case 'credit': {
        const credit = { amountMinor: cmd.amount, currency: 'PKR' as const, reference: `operator:c${++this.count}` };
        return commit(this.c.credit(cmd.live ? 'live' : 'test', credit), () => []);
      }
      case 'withdraw': {
        const id = `w${++this.count}`;
        const request = {
          ...{ merchantId, mode: 'test' as const, traceId: 'trace', fee: withdrawalFee, amountMinor: cmd.amount, currency: 'PKR' as const },
          ...{ description: 'model', autoProcessPayout: cmd.auto, metadataJson: null, callbackUrl: null, orderRef: { orderRef: id } },
          ...{ bank: banks[0]!, accountNumber: '00001234567890', accountTitle: 'Model', customer: {} },
        };
        const ids = { paymentIntentId: id, transactionReference: `T${id}` };
        const provider = { name: 'sandbox', reconcileAt: new Date(this.now + 60_000) };
        return commit(this.c.payout(undefined, { type: 'create', request, ids, provider }, now), one(id));
      }
      case 'payout': {
        const id = this.nth('w', cmd.i);
        const p = id && this.books.read<PaymentIntent>(id, read);
        if (!id || !p) return 'none';
        if (cmd.action === 'accepted' || cmd.action === 'note') {
          const c =
            cmd.action === 'note'
              ? { type: 'note' as const }
              : { type: 'accepted' as const, providerReference: `R${id}`, expectedBy: new Date(this.now + 60_000) };
          return commit(keepsStatus(p, this.c.payout(p, c, now)), one(id));
        }
        const c =
          cmd.action === 'approve'
            ? { type: 'approve' as const, provider: 'sandbox', reconcileAt: new Date(this.now + 60_000) }
            : cmd.action === 'reject'
              ? { type: 'reject' as const, reason: 'no' }
              : cmd.action === 'complete'
                ? { type: 'complete' as const, ledgerAccount }
                : { type: 'fail' as const, failure: { kind: 'failed' as const, reason: 'bank said no' } };
        return commit(this.c.payout(p, c, now), one(id));
      }
      case 'settle': {
        const id = `s${++this.count}`;
        const destination = { type: 'bank' as const, bankName: 'Model', iban: 'PK36SCBL0000001123456702', accountTitle: 'Model' };
        const input = { amountMinor: cmd.amount, currency: 'PKR' as const, payoutCurrency: 'PKR' as const, destination };
        const owner = { merchantId, mode: 'test' as const, traceId: 'trace' };
        return commit(this.c.settlement(undefined, { type: 'create', id, owner, input, fee: settlementFee, isAuto: false }, now), one(id));
      }
      case 'autoSettle': {
        const id = `s${++this.count}`;
        const destination = { bankName: 'Model', iban: 'PK36SCBL0000001123456702', accountTitle: 'Model' };
        const schedule = { frequency: 'daily' as const, dayOfPeriod: null, hourUtc: 0, minimumBalanceMinor: cmd.keep, destination };
        const merchant = {
          status: 'active' as const,
          settlementSchedule: schedule,
          defaultCurrency: 'PKR' as const,
          fees: { settlement: settlementFee },
        };
        const run = { merchantId, mode: 'test' as const, runAt: now.toISOString(), id };
        const { create } = this.c.autoSettlement(run, merchant as AutoSettlementMerchant, this.books.wallet.available, true, now);
        return create ? commit(this.c.settlement(undefined, create, now), one(id)) : 'nothing to settle';
      }
      case 'settlement': {
        const id = this.nth('s', cmd.i);
        const s = id && this.books.read<Settlement>(id, read);
        if (!id || !s) return 'none';
        const c =
          cmd.action === 'cancel'
            ? { type: 'cancel' as const, failureReason: 'cancelled' }
            : cmd.action === 'complete'
              ? { type: 'complete' as const, ledgerAccount }
              : cmd.action === 'fail'
                ? { type: 'fail' as const, failure: { kind: 'failed' as const, reason: 'rail said no' } }
                : { type: cmd.action };
        return commit(this.c.settlement(s, c, now), one(id));
      }
      case 'refund': {
        const pid = this.nth('p', cmd.i);
        const payment = pid && this.books.read<RefundableIntent>(pid, read);
        if (!pid || !payment) return 'none';
        const id = `r${++this.count}`;
        const owner = { merchantId, mode: 'test' as const, traceId: 'trace' };
        const capability = { refundsAllowed: cmd.rail, provider: 'Model' };
        const c = { type: 'request' as const, id, owner, amountMinor: cmd.amount ?? undefined, fee: refundFee, reason: null, capability };
        return commit(this.c.refund({ refund: undefined, payment }, c, now), refundWrites(id, payment));
      }
      case 'refundStep': {
        const id = this.nth('r', cmd.i);
        const refund = id && this.books.read<Refund>(id, read);
        if (!id || !refund) return 'none';
        const payment = this.books.read<RefundableIntent>(refund.paymentIntentId, read)!;
        const c =
          cmd.action === 'reject' || cmd.action === 'cancel'
            ? { type: cmd.action, failureReason: cmd.action }
            : cmd.action === 'complete' || cmd.action === 'accepted'
              ? { type: cmd.action, ledgerAccount, providerReference: null }
              : cmd.action === 'fail'
                ? { type: 'fail' as const, failure: { kind: 'failed' as const, reason: 'declined' } }
                : { type: cmd.action };
        return commit(this.c.refund({ refund }, c, now), refundWrites(id, payment));
      }
    }
  }

  /** A checkout's change with what it does to its payment link (the link's counters, refused when no use is left). */
  private withLink(read: Read, p: PaymentIntent, d: Decision<PaymentIntent>, now: Date): (() => string) | string {
    if (isRefusal(d)) return d.refused;
    const writes: { id: string; value: Item }[] = [{ id: p.paymentIntentId, value: d.state }];
    const use = this.c.linkUse(p, d.state);
    const linkId = linkOf(p);
    if (use && linkId) {
      const link = this.books.read<PaymentLink>(linkId, read)!;
      const counted = this.c.link(link, use);
      if (isRefusal(counted)) return counted.refused;
      writes.push({ id: linkId, value: counted.state });
    }
    return () => this.books.commit(read, writes, d.journals, now);
  }

  /** Read, decide, commit; a commit refused as stale is decided again from a fresh read (as changeVersioned does). */
  run(cmd: Command, prepared = this.prepare(cmd)): string {
    let next = prepared;
    for (let attempt = 0; attempt < 3; attempt++) {
      if (typeof next === 'string') return next;
      const outcome = next();
      if (outcome !== 'conflict') return outcome;
      next = this.prepare(cmd);
    }
    throw new Error('conflict after retries');
  }
}

/**
 * A change that keeps the status (note, charge-answered, accepted), checked as the store's write check does
 * (shared/store/intents.ts sameStatusWrites): the same status, amount, fee and wallet shard, version + 1, no journal
 * and no event; else the sequence fails here.
 */
function keepsStatus(before: PaymentIntent, d: Decision<PaymentIntent>): Decision<PaymentIntent> {
  if (isRefusal(d)) return d;
  const moved = (['status', 'amountMinor', 'feeMinor', 'walletShard'] as const).filter((f) => d.state[f] !== before[f]);
  if (moved.length || d.state.version !== before.version + 1 || d.journals.length || d.events.length)
    throw new Error(`a same-status change moved ${[...moved, ...d.journals.map((j) => j.kind)].join(', ') || 'its version or events'}`);
  return d;
}

/** The refund, and its payment's counters moved by the decision's effect (the store's ADDs). */
const refundWrites = (id: string, payment: RefundableIntent) => (s: RefundOutcome) => [
  { id, value: s.refund },
  {
    id: payment.paymentIntentId,
    value: {
      ...payment,
      refundReservedMinor: (payment.refundReservedMinor ?? 0) + s.effect.reservedMinor,
      refundedMinor: payment.refundedMinor + s.effect.refundedMinor,
    },
  },
];

// ---------------------------------------------------------------- the reference model

interface RefLink {
  max: number;
  held: number;
  paid: number;
  paidMinor: number;
}
interface RefPayment {
  link: RefLink | null;
  /** A deposit whose charge request awaits its answer. */
  requesting: boolean;
  linkHeld: boolean;
  /** When it was made (a wallet charge's approval asked then). */
  createdAt: number;
  /** Declined attempts of a checkout. */
  declines: number;
  /** Held for the operator (a suspended merchant's): only the operator's release or decline decides it. */
  held: boolean;
  kind: PaymentKind;
  amount: number;
  fee: number;
  status: IntentStatus;
  reserved: number;
  refunded: number;
}
interface RefRefund {
  payment: RefPayment;
  amount: number;
  status: string;
  attempts: number;
  outstanding: boolean;
  expiresAt: number;
}
/** The reference: the money rules restated plainly, apart from the core. */
interface Ref {
  now: number;
  available: number;
  held: Record<'Withdrawal' | 'Settlement' | 'Refund', number>;
  fees: number;
  links: RefLink[];
  payments: RefPayment[];
  payouts: { amount: number; status: IntentStatus }[];
  settlements: { amount: number; fee: number; status: string }[];
  refunds: RefRefund[];
}

const newRef = (now: number): Ref => ({
  now,
  available: 0,
  held: { Withdrawal: 0, Settlement: 0, Refund: 0 },
  fees: 0,
  links: [],
  payments: [],
  payouts: [],
  settlements: [],
  refunds: [],
});

/** The i-th object, counted from the end when i is negative (-1: the newest). */
const pick = <T>(list: T[], i: number) => (list.length ? list[((i % list.length) + list.length) % list.length] : undefined);

/** Applies a command to the reference; 'ok' or why it is refused ('refused' for any rule, 'balance' when short). */
function reference(m: Ref, cmd: Command): 'ok' | 'refused' | 'balance' | 'none' {
  switch (cmd.t) {
    case 'advance':
      m.now += cmd.ms;
      return 'ok';
    case 'link':
      m.links.push({ max: cmd.max, held: 0, paid: 0, paidMinor: 0 });
      return 'ok';
    case 'pay': {
      const fee = Math.min(feeFor(cmd.amount, { basisPoints: cmd.feeBps, fixedMinor: 0 }), cmd.amount);
      const link = cmd.link !== null && cmd.kind !== 'deposit' ? (pick(m.links, cmd.link) ?? null) : null;
      m.payments.push({
        link,
        requesting: cmd.kind === 'deposit',
        linkHeld: false,
        createdAt: m.now,
        declines: 0,
        held: false,
        kind: cmd.kind,
        amount: cmd.amount,
        fee,
        status: 'Pending',
        reserved: 0,
        refunded: 0,
      });
      return 'ok';
    }
    case 'payment': {
      const p = pick(m.payments, cmd.i);
      if (!p) return 'none';
      // An answer about an earlier attempt decides nothing (a deposit has one charge: there is none).
      if (cmd.action === 'stale' || cmd.action === 'swept') {
        if (p.kind === 'deposit') return 'none';
        if (cmd.action === 'stale') return 'refused';
      }
      if (p.status !== 'Pending' || (cmd.action === 'cancel' && p.kind === 'deposit')) return 'refused';
      // Nothing moves: a deposit's charge answered once, unless held; money held (once); a note on any open payment not held.
      if (cmd.action === 'answered') {
        // Held meanwhile (its approval came first): only the operator's decision moves it.
        if (!p.requesting || p.held) return 'refused';
        p.requesting = false;
        return 'ok';
      }
      if (cmd.action === 'hold') {
        if (p.link && !p.linkHeld) return 'none';
        if (p.held) return 'refused';
        p.held = true;
        return 'ok';
      }
      // Only the operator decides a held payment, and decides only a held one; a checkout's release credits what paid
      // (its card or wallet charge, forgotten after a declined attempt).
      const operator = cmd.action === 'release' || cmd.action === 'decline-held';
      if (operator !== p.held || (cmd.action === 'release' && p.kind !== 'deposit' && p.declines > 0)) return 'refused';
      if (cmd.action === 'note') return 'ok';
      // A provider answers about the attempt under way: a checkout's declined one was forgotten (nothing left to answer).
      const answer = cmd.action === 'approved' || cmd.action === 'answer-declined';
      if (answer && p.link && !p.linkHeld) return 'none';
      // The sweep ends a wallet charge unanswered past its approval window (a card waits for its provider's answer).
      if (cmd.action === 'swept' && (p.kind === 'card' || p.declines > 0 || m.now < p.createdAt + walletApprovalWindowMs)) return 'refused';
      if (answer && p.kind !== 'deposit' && p.declines > 0) return 'refused';
      const paid = cmd.action === 'complete' || cmd.action === 'release' || cmd.action === 'approved';
      // A link takes at most `max` payments: an attempt holds a use from its start; paid, it stays; unpaid, it goes back.
      const link = p.link;
      if (cmd.action === 'start') {
        if (!link || p.linkHeld || link.held >= link.max) return 'refused';
        link.held++;
        p.linkHeld = true;
        return 'ok';
      }
      if (cmd.action === 'abandon' || cmd.action === 'decline' || (cmd.action === 'answer-declined' && p.kind !== 'deposit')) {
        if (cmd.action === 'abandon' ? !link || !p.linkHeld : p.kind === 'deposit') return 'refused';
        // Whatever ends an attempt unpaid gives its link's use back; the third declined attempt fails the checkout.
        if (link && p.linkHeld) link.held--;
        p.linkHeld = false;
        if (cmd.action !== 'abandon' && ++p.declines >= maxPaymentAttempts) p.status = 'Failed';
        return 'ok';
      }
      if (link && paid) {
        // The operator's release credits money that has moved: counted even with no use left.
        if (cmd.action === 'complete' && !p.linkHeld && link.held >= link.max) return 'refused';
        if (!p.linkHeld) link.held++;
        p.linkHeld = true;
        link.paid++;
        link.paidMinor += p.amount;
      }
      if (link && !paid && p.linkHeld) {
        link.held--;
        p.linkHeld = false;
      }
      const to = {
        complete: 'Completed',
        release: 'Completed',
        approved: 'Completed',
        fail: 'Failed',
        'answer-declined': 'Failed',
        swept: 'Expired',
        'decline-held': 'Failed',
        cancel: 'Cancelled',
        expire: 'Expired',
      } as const;
      // A checkout that ends unpaid after a declined attempt ends Failed (with that attempt's reason).
      p.status = p.declines > 0 && !paid ? 'Failed' : to[cmd.action];
      if (paid) {
        m.available += p.amount - p.fee;
        m.fees += p.fee;
      }
      return 'ok';
    }
    case 'credit':
      if (cmd.live) return 'refused';
      m.available += cmd.amount;
      return 'ok';
    case 'withdraw': {
      if (cmd.amount < 300_00) return 'refused'; // below the minimum withdrawal: nothing held
      const need = cmd.amount + withdrawalFee.fixedMinor;
      if (m.available < need) return 'balance';
      m.available -= need;
      m.held.Withdrawal += need;
      m.payouts.push({ amount: cmd.amount, status: cmd.auto ? 'Processing' : 'Pending' });
      return 'ok';
    }
    case 'payout': {
      const p = pick(m.payouts, cmd.i);
      if (!p) return 'none';
      const need = p.amount + withdrawalFee.fixedMinor;
      const release = () => {
        m.held.Withdrawal -= need;
        m.available += need;
      };
      if (cmd.action === 'note' && (p.status === 'Pending' || p.status === 'Processing')) return 'ok';
      if (cmd.action === 'accepted' && p.status === 'Processing') return 'ok';
      if (cmd.action === 'approve' && p.status === 'Pending') p.status = 'Processing';
      else if (cmd.action === 'reject' && p.status === 'Pending') {
        p.status = 'Cancelled';
        release();
      } else if (cmd.action === 'complete' && p.status === 'Processing') {
        p.status = 'Completed';
        m.held.Withdrawal -= need;
        m.fees += withdrawalFee.fixedMinor;
      } else if (cmd.action === 'fail' && (p.status === 'Pending' || p.status === 'Processing')) {
        p.status = 'Failed';
        release();
      } else return 'refused';
      return 'ok';
    }
    case 'settle': {
      const fee = feeFor(cmd.amount, settlementFee);
      if (cmd.amount - fee <= 0) return 'refused';
      if (m.available < cmd.amount) return 'balance';
      m.available -= cmd.amount;
      m.held.Settlement += cmd.amount;
      m.settlements.push({ amount: cmd.amount, fee, status: 'Pending' });
      return 'ok';
    }
    case 'autoSettle': {
      // All that is above the minimum kept, when there is some and it covers the fee.
      const amount = m.available - cmd.keep;
      const fee = feeFor(amount, settlementFee);
      if (amount <= 0 || amount - fee <= 0) return 'refused';
      m.available -= amount;
      m.held.Settlement += amount;
      m.settlements.push({ amount, fee, status: 'Pending' });
      return 'ok';
    }
    case 'settlement': {
      const s = pick(m.settlements, cmd.i);
      if (!s) return 'none';
      const release = () => {
        m.held.Settlement -= s.amount;
        m.available += s.amount;
      };
      if (cmd.action === 'approve' && s.status === 'Pending') s.status = 'Approved';
      else if (cmd.action === 'submit' && s.status === 'Approved') s.status = 'Processing';
      else if (cmd.action === 'cancel' && s.status === 'Pending') {
        s.status = 'Cancelled';
        release();
      } else if (cmd.action === 'complete' && s.status === 'Processing') {
        s.status = 'Completed';
        m.held.Settlement -= s.amount;
        m.fees += s.fee;
      } else if (cmd.action === 'fail' && (s.status === 'Approved' || s.status === 'Processing')) {
        s.status = 'Failed';
        release();
      } else return 'refused';
      return 'ok';
    }
    case 'refund': {
      const p = pick(m.payments, cmd.i);
      if (!p) return 'none';
      const remaining = p.amount - p.reserved;
      if (p.status !== 'Completed' || remaining <= 0 || (cmd.rail === 'once' && p.reserved > 0)) return 'refused';
      // The whole remainder may be refunded whatever it is; an amount given must be at least 10.00.
      if (cmd.amount !== null && (cmd.amount < 10_00 || cmd.amount > remaining)) return 'refused';
      const amount = cmd.amount ?? remaining;
      p.reserved += amount;
      m.refunds.push({ payment: p, amount, status: 'Pending', attempts: 0, outstanding: false, expiresAt: m.now + 7 * day });
      return 'ok';
    }
    case 'refundStep': {
      const r = pick(m.refunds, cmd.i);
      if (!r) return 'none';
      const p = r.payment;
      const need = r.amount + refundFeeMinor;
      const pending = r.status === 'Pending';
      const outstanding = r.status === 'Processing' && r.outstanding;
      switch (cmd.action) {
        case 'approve':
          if (!pending || m.now >= r.expiresAt) return 'refused';
          if (m.available < need) return 'balance';
          m.available -= need;
          m.held.Refund += need;
          r.status = 'Approved';
          return 'ok';
        case 'reject':
        case 'cancel':
        case 'expire':
          if (!pending || (cmd.action === 'expire' && m.now < r.expiresAt)) return 'refused';
          r.status = { reject: 'Rejected', cancel: 'Cancelled', expire: 'Expired' }[cmd.action];
          p.reserved -= r.amount;
          return 'ok';
        case 'attempt':
          if (r.status !== 'Approved' && !(r.status === 'Processing' && !r.outstanding && r.attempts < 3)) return 'refused';
          r.status = 'Processing';
          r.attempts++;
          r.outstanding = true;
          return 'ok';
        case 'accepted':
        case 'complete':
          if (!outstanding) return 'refused';
          r.status = 'Completed';
          r.outstanding = false;
          m.held.Refund -= need;
          m.fees += refundFeeMinor;
          p.refunded += r.amount;
          return 'ok';
        case 'fail':
          if (!outstanding) return 'refused';
          r.outstanding = false;
          if (r.attempts < 3) return 'ok';
          r.status = 'Failed';
          m.held.Refund -= need;
          m.available += need;
          p.reserved -= r.amount;
          return 'ok';
      }
    }
  }
}

// ---------------------------------------------------------------- the property

const sameOutcome = (real: string, ref: string) =>
  ref === 'ok' ? real === 'ok' : ref === 'none' ? real === 'none' : ref === 'balance' ? real === 'insufficient_balance' : real !== 'ok';

/** The system agrees with the reference after every step, and the ledger verifier finds nothing at the end. */
function agree(sys: System, m: Ref, label: string) {
  const fail = (what: string, got: unknown, want: unknown) => {
    throw new Error(`${label}: ${what} is ${JSON.stringify(got)}, the reference says ${JSON.stringify(want)}`);
  };
  const w = sys.books.wallet;
  if (w.available !== m.available) fail('available', w.available, m.available);
  for (const t of holdTypes) if (w.held[t] !== m.held[t]) fail(`held ${t}`, w.held[t], m.held[t]);
  if (sys.books.fees() !== m.fees) fail('platform fees', sys.books.fees(), m.fees);
  // Objects of each kind compared in the order they were created.
  const payments = sys.books.of<RefundableIntent>('p');
  m.payments.forEach((p, n) => {
    const real = payments[n];
    if (real?.status !== p.status) fail(`payment ${n} status`, real?.status, p.status);
    if (real!.refundedMinor !== p.refunded || (real!.refundReservedMinor ?? 0) !== p.reserved)
      fail(`payment ${n} refunded/reserved`, [real!.refundedMinor, real!.refundReservedMinor], [p.refunded, p.reserved]);
  });
  const links = sys.books.of<PaymentLink>('l');
  m.links.forEach((l, n) => {
    const real = links[n];
    if (!real) {
      fail(`link ${n}`, undefined, l);
      return;
    }
    if (real.usesHeld !== l.held || real.paidCount !== l.paid || real.paidMinor !== l.paidMinor)
      fail(`link ${n} uses held / paid`, [real.usesHeld, real.paidCount, real.paidMinor], [l.held, l.paid, l.paidMinor]);
    if (real.maxPayments !== null && real.paidCount > real.maxPayments) fail(`link ${n} payments`, real.paidCount, real.maxPayments);
  });
  const payouts = sys.books.of<PaymentIntent>('w').map((x) => x.status);
  const settlements = sys.books.of<Settlement>('s').map((x) => settlementStatusNames[x.status]);
  const refunds = sys.books.of<Refund>('r').map((x) => refundStatusNames[x.status]);
  const statuses: [string, readonly string[], string[]][] = [
    ['payout', payouts, m.payouts.map((x) => x.status)],
    ['settlement', settlements, m.settlements.map((x) => x.status)],
    ['refund', refunds, m.refunds.map((x) => x.status)],
  ];
  for (const [kind, real, want] of statuses)
    for (const [n, status] of want.entries()) if (real[n] !== status) fail(`${kind} ${n} status`, real[n], status);
  for (const [kind, real, want] of [
    ['payments', payments.length, m.payments.length],
    ['payouts', payouts.length, m.payouts.length],
    ['settlements', settlements.length, m.settlements.length],
    ['refunds', refunds.length, m.refunds.length],
  ] as const)
    if (real !== want) fail(`the number of ${kind}`, real, want);
}

function verify(sys: System) {
  const w = sys.books.wallet;
  const held = holdTypes.reduce((sum, t) => sum + w.held[t], 0);
  const wallet = { currency: 'PKR', available: w.available, held, ...Object.fromEntries(holdTypes.map((t) => [`held_${t}`, w.held[t]])) };
  const discrepancies = checkLedger({
    merchantId,
    mode: 'test',
    wallets: [wallet],
    journals: sys.books.journals,
    intents: [...sys.books.of<PaymentIntent>('p'), ...sys.books.of<PaymentIntent>('w')],
    settlements: sys.books.of<Settlement>('s'),
    refunds: sys.books.of<Refund>('r'),
  });
  if (discrepancies.length) throw new Error(`ledger verify: ${discrepancies.map((d) => d.message).join('; ')}`);
}

/**
 * A command names its object as a request names an id: the index is resolved against the objects that exist
 * before the step, so both commands of a race mean the same object whatever the other creates.
 */
function resolve(m: Ref, c: Command): Command {
  const within = (n: number) => ('i' in c && n > 0 ? { ...c, i: ((c.i % n) + n) % n } : c);
  const n = m.links.length;
  if (c.t === 'pay') return { ...c, link: c.link !== null && n > 0 ? ((c.link % n) + n) % n : null };
  if (c.t === 'payment' || c.t === 'refund') return within(m.payments.length);
  if (c.t === 'payout') return within(m.payouts.length);
  if (c.t === 'settlement') return within(m.settlements.length);
  if (c.t === 'refundStep') return within(m.refunds.length);
  return c;
}

/** One sequence: every step against the system and the reference; a race decides both commands on one read. */
export function runSequence(steps: Step[], c: Core = core, conditional = true): void {
  const sys = new System(c, conditional);
  const m = newRef(sys.now);
  steps.forEach((s, n) => {
    const label = `step ${n} ${JSON.stringify(s)}`;
    if (s.t !== 'race') {
      s = resolve(m, s);
      const real = sys.run(s);
      const want = reference(m, s);
      if (!sameOutcome(real, want)) throw new Error(`${label}: answered ${real}, the reference ${want}`);
    } else {
      // Both decided on the same read; a commits, then b's commit meets its stale read.
      s = { ...s, a: resolve(m, s.a), b: resolve(m, s.b) };
      const pa = sys.prepare(s.a);
      const pb = sys.prepare(s.b);
      const realA = sys.run(s.a, pa);
      const realB = sys.run(s.b, pb);
      // b refused on its read is ordered before a (and must be refused there too); else after a.
      const bFirst = typeof pb === 'string';
      const wantB = bFirst ? reference(m, s.b) : undefined;
      const wantA = reference(m, s.a);
      if (!sameOutcome(realA, wantA)) throw new Error(`${label}: a answered ${realA}, the reference ${wantA}`);
      const b = wantB ?? reference(m, s.b);
      if (!sameOutcome(realB, b)) throw new Error(`${label}: b answered ${realB}, the reference ${b}`);
    }
    agree(sys, m, label);
  });
  verify(sys);
}

/** Every refund status a sequence reaches at some step (the test shows the generated sequences reach them all). */
export function refundStatusesReached(steps: Step[]): string[] {
  const sys = new System(core, true);
  const reached = new Set<string>();
  for (const s of steps)
    for (const c of s.t === 'race' ? [s.a, s.b] : [s]) {
      sys.run(c);
      for (const r of sys.books.of<Refund>('r')) reached.add(refundStatusNames[r.status]);
    }
  return [...reached];
}
