import type { Mode } from './credentials.ts';
import { holdTypes, type Journal } from './ledger.ts';
import type { PaymentIntent } from './intent.ts';
import { refundStatusNames, type Refund } from './refund.ts';
import { settlementStatusNames, type Settlement } from './settlement.ts';

/**
 * The ledger's invariants (docs/ledger-verification.md), as a pure check over everything one
 * merchant holds in one mode. Returns one discrepancy per broken rule; none when the books hold.
 *
 *   wallet-fold     each wallet's balances equal the fold of its journals (available, each held bucket, held total)
 *   zero-sum        every journal's lines sum to zero, in integer minor units
 *   negative        no balance below zero
 *   shard           a sharded wallet, shard by shard: no shard's balance below zero, and each shard's held buckets
 *                   equal the fold of the journals that record that shard (a hold's money sits where its journal says)
 *   fees            the platform fee account (journal lines `platform:fees`) equals the fees of the completed objects
 *   journals        every intent, settlement and refund has exactly the journals its status implies
 *   refunds         refunded and reserved amounts match the refunds and never exceed the payment
 *   orphan          no journal names a business object that does not exist
 */
export interface Discrepancy {
  rule: 'wallet-fold' | 'zero-sum' | 'negative' | 'shard' | 'fees' | 'journals' | 'refunds' | 'orphan';
  merchantId: string;
  mode: Mode;
  /** The wallet currency or the business object's id the rule is about. */
  subject: string;
  message: string;
}

export interface LedgerSnapshot {
  merchantId: string;
  mode: Mode;
  wallets: ({ currency: string } & Record<string, unknown>)[];
  /** Each wallet shard's item on its own (shard 0 only, or absent, for a one-shard merchant). */
  walletShards?: ({ currency: string; shard: number } & Record<string, unknown>)[];
  journals: Journal[];
  intents: (PaymentIntent & { refundReservedMinor?: number })[];
  settlements: Settlement[];
  refunds: Refund[];
}

/** The balance attributes of a wallet item, by name: available, held, held_<HoldType>. */
const balanceAttributes = ['available', 'held', ...holdTypes.map((t) => `held_${t}`)];

/** What each status of each business object implies: how many journals of each kind (others: 0). */
type Expectation = Record<string, number>;

function intentExpectation(intent: PaymentIntent): Expectation {
  const done = intent.status === 'Completed';
  switch (intent.intentType) {
    case 'checkout':
      return { 'checkout.completed': done ? 1 : 0 };
    case 'deposit':
      return { 'deposit.completed': done ? 1 : 0 };
    case 'withdrawal': {
      const released = intent.status === 'Failed' || intent.status === 'Cancelled' || intent.status === 'Expired';
      return { 'withdrawal.hold': 1, 'withdrawal.completed': done ? 1 : 0, 'withdrawal.released': released ? 1 : 0 };
    }
  }
}

function settlementExpectation(s: Settlement): Expectation {
  const name = settlementStatusNames[s.status];
  return {
    'settlement.hold': 1,
    'settlement.completed': name === 'Completed' ? 1 : 0,
    'settlement.cancelled': name === 'Cancelled' ? 1 : 0,
    'settlement.failed': name === 'Failed' ? 1 : 0,
  };
}

function refundExpectation(r: Refund): Expectation {
  const name = refundStatusNames[r.status];
  const held = ['Approved', 'Processing', 'Completed', 'Failed'].includes(name);
  return { 'refund.hold': held ? 1 : 0, 'refund.completed': name === 'Completed' ? 1 : 0, 'refund.failed': name === 'Failed' ? 1 : 0 };
}

/** The fee a completed object moved to the platform, by currency. */
function expectedFees(s: LedgerSnapshot): Map<string, number> {
  const fees = new Map<string, number>();
  const add = (currency: string, amount: number) => fees.set(currency, (fees.get(currency) ?? 0) + amount);
  for (const i of s.intents) if (i.status === 'Completed') add(i.currency, i.feeMinor);
  for (const x of s.settlements) if (settlementStatusNames[x.status] === 'Completed') add(x.currency, x.feeMinor);
  for (const r of s.refunds) if (refundStatusNames[r.status] === 'Completed') add(r.currency, r.feeMinor);
  return fees;
}

const heldAttributes = ['held', ...holdTypes.map((t) => `held_${t}`)];

/**
 * shard: the sum of a sharded wallet's shards can hide a shard below zero or a hold's money on
 * another shard than its journals record (after which its release or completion is refused). A
 * move between shards posts no journal, so a shard's `available` has no fold of its own; its held
 * buckets do: every journal moving held money records the shard it moved (walletShard, absent = 0).
 */
function checkShards(s: LedgerSnapshot, report: (rule: Discrepancy['rule'], subject: string, message: string) => void) {
  const shards = s.walletShards ?? [];
  const sharded = shards.some((w) => w.shard > 0) || s.journals.some((j) => (j.walletShard ?? 0) > 0);
  if (!sharded) return; // one shard: wallet-fold and negative already check the one item
  const own = (bucket: string) => `merchant:${s.merchantId}:${bucket}`;
  const folds = new Map<string, Record<string, number>>(); // `<currency>#<shard>` → held attributes
  const foldOf = (currency: string, shard: number) => {
    const key = `${currency}#${shard}`;
    if (!folds.has(key)) folds.set(key, Object.fromEntries(heldAttributes.map((a) => [a, 0])));
    return folds.get(key)!;
  };
  for (const j of s.journals) {
    for (const l of j.lines) {
      for (const t of holdTypes) {
        if (l.account !== own(`held:${t}`)) continue;
        const fold = foldOf(j.currency, j.walletShard ?? 0);
        fold[`held_${t}`]! += l.amount;
        fold.held! += l.amount;
      }
    }
  }
  const items = new Map(shards.map((w) => [`${w.currency}#${w.shard}`, w]));
  for (const w of shards) {
    for (const attribute of balanceAttributes) {
      const stored = Number(w[attribute] ?? 0);
      if (stored < 0) report('shard', w.currency, `wallet ${w.currency} shard ${w.shard} ${attribute} is negative (${stored})`);
    }
  }
  for (const key of new Set([...items.keys(), ...folds.keys()])) {
    const [currency, shard] = key.split('#') as [string, string];
    const fold = foldOf(currency, Number(shard));
    for (const attribute of heldAttributes) {
      const stored = Number(items.get(key)?.[attribute] ?? 0);
      if (stored !== fold[attribute])
        report(
          'shard',
          currency,
          `wallet ${currency} shard ${shard} ${attribute} is ${stored}, ` +
            `the journals that record shard ${shard} add up to ${fold[attribute]}`,
        );
    }
  }
}

/** Balances by wallet attribute (available, held, held_<HoldType>), minor units. */
export type Balances = Record<string, number>;
export const zeroBalances = (): Balances => Object.fromEntries(balanceAttributes.map((a) => [a, 0]));

/**
 * A window of a merchant's books in one mode: balances at its start (`opening`, by currency; none:
 * the empty wallet before the first journal), every journal posted in it, and the balances at its
 * end (`closing`: wallet items, a stored checkpoint or a statement's closing balance).
 */
export interface LedgerWindow {
  merchantId: string;
  mode: Mode;
  opening?: ReadonlyMap<string, Balances>;
  journals: readonly Journal[];
  closing: readonly ({ currency: string } & Record<string, unknown>)[];
  /** How a message names the two ends (default: the wallet and its journals). */
  labels?: { closing: string; fold: string };
}

/**
 * zero-sum, wallet-fold and negative over a window: every journal sums to zero, opening plus the
 * fold of the window's journals equals the closing balances, nothing is below zero. checkLedger
 * runs it from the empty wallet to the wallet items; statements and balance checkpoints run it over
 * a period (shared/services/balance-checkpoints.ts). Returns the fee lines' sum per currency too.
 * foldWindow is its first half (zero-sum and the fold), for a window read page by page.
 */
export function foldWindow(w: Omit<LedgerWindow, 'closing' | 'labels'>): {
  folds: Map<string, Balances>;
  feeLines: Map<string, number>;
  discrepancies: Discrepancy[];
} {
  const out: Discrepancy[] = [];
  const own = (bucket: string) => `merchant:${w.merchantId}:${bucket}`;
  // zero-sum, and the fold of the journals per currency (wallet attributes) and of the fee account.
  const folds = new Map<string, Balances>();
  for (const [currency, opening] of w.opening ?? []) folds.set(currency, { ...zeroBalances(), ...opening });
  const feeLines = new Map<string, number>();
  for (const j of w.journals) {
    const sum = j.lines.reduce((a, l) => a + l.amount, 0);
    if (sum !== 0 || j.lines.some((l) => !Number.isSafeInteger(l.amount)))
      out.push({
        rule: 'zero-sum',
        merchantId: w.merchantId,
        mode: w.mode,
        subject: j.journalId,
        message: `journal ${j.journalId} (${j.kind}, ${j.reference}) sums to ${sum}`,
      });
    const fold = folds.get(j.currency) ?? zeroBalances();
    folds.set(j.currency, fold);
    for (const l of j.lines) {
      if (l.account === own('available')) fold.available! += l.amount;
      for (const t of holdTypes) {
        if (l.account === own(`held:${t}`)) {
          fold[`held_${t}`]! += l.amount;
          fold.held! += l.amount;
        }
      }
      if (l.account === 'platform:fees') feeLines.set(j.currency, (feeLines.get(j.currency) ?? 0) + l.amount);
    }
  }
  return { folds, feeLines, discrepancies: out };
}

export function checkWindow(w: LedgerWindow): { discrepancies: Discrepancy[]; feeLines: Map<string, number> } {
  const { folds, feeLines, discrepancies: out } = foldWindow(w);
  const report = (rule: Discrepancy['rule'], subject: string, message: string) =>
    out.push({ rule, merchantId: w.merchantId, mode: w.mode, subject, message });
  const labels = w.labels ?? { closing: 'wallet', fold: 'its journals add up to' };

  // wallet-fold and negative, over every currency that has a closing balance or a journal.
  const closing = new Map(w.closing.map((c) => [c.currency, c]));
  for (const currency of new Set([...closing.keys(), ...folds.keys()])) {
    const end = closing.get(currency);
    const fold = folds.get(currency) ?? zeroBalances();
    for (const attribute of balanceAttributes) {
      const stored = Number(end?.[attribute] ?? 0);
      if (stored !== fold[attribute])
        report('wallet-fold', currency, `${labels.closing} ${currency} ${attribute} is ${stored}, ${labels.fold} ${fold[attribute]}`);
      if (stored < 0) report('negative', currency, `${labels.closing} ${currency} ${attribute} is negative (${stored})`);
    }
  }
  return { discrepancies: out, feeLines };
}

export function checkLedger(s: LedgerSnapshot): Discrepancy[] {
  const out: Discrepancy[] = [];
  const report = (rule: Discrepancy['rule'], subject: string, message: string) =>
    out.push({ rule, merchantId: s.merchantId, mode: s.mode, subject, message });

  const window = checkWindow({ merchantId: s.merchantId, mode: s.mode, journals: s.journals, closing: s.wallets });
  out.push(...window.discrepancies);
  const feeLines = window.feeLines;

  checkShards(s, report);

  // fees
  const expected = expectedFees(s);
  for (const currency of new Set([...expected.keys(), ...feeLines.keys()])) {
    const want = expected.get(currency) ?? 0;
    const got = feeLines.get(currency) ?? 0;
    if (want !== got)
      report('fees', currency, `platform fees in ${currency} are ${got} in the journals, the completed objects charged ${want}`);
  }

  // journals: what each object's status implies; orphan: journals naming no object.
  const byReference = new Map<string, Journal[]>();
  for (const j of s.journals) byReference.set(j.reference, [...(byReference.get(j.reference) ?? []), j]);
  const seen = new Set<string>();
  const expect = (id: string, label: string, expectation: Expectation) => {
    seen.add(id);
    const journals = byReference.get(id) ?? [];
    const kinds = new Set([...Object.keys(expectation), ...journals.map((j) => j.kind)]);
    for (const kind of kinds) {
      const got = journals.filter((j) => j.kind === kind).length;
      const want = expectation[kind] ?? 0;
      if (got !== want) report('journals', id, `${label} ${id} has ${got} ${kind} journal(s), its status implies ${want}`);
    }
  };
  for (const i of s.intents) expect(i.paymentIntentId, `${i.status} ${i.intentType}`, intentExpectation(i));
  for (const x of s.settlements) expect(x.id, `${settlementStatusNames[x.status]} settlement`, settlementExpectation(x));
  for (const r of s.refunds) expect(r.id, `${refundStatusNames[r.status]} refund`, refundExpectation(r));
  for (const j of s.journals) {
    if (!seen.has(j.reference) && /^(checkout|deposit|withdrawal|settlement|refund)\./.test(j.kind)) {
      report('orphan', j.reference, `journal ${j.journalId} (${j.kind}) names ${j.reference}, which does not exist`);
    }
  }

  // refunds: refunded = Σ completed, reserved = Σ live, both ≤ the payment.
  const refundsOf = new Map<string, Refund[]>();
  for (const r of s.refunds) refundsOf.set(r.paymentIntentId, [...(refundsOf.get(r.paymentIntentId) ?? []), r]);
  for (const i of s.intents) {
    const rs = refundsOf.get(i.paymentIntentId) ?? [];
    const refunded = rs.filter((r) => refundStatusNames[r.status] === 'Completed').reduce((a, r) => a + r.amountMinor, 0);
    const reserved = rs
      .filter((r) => !['Failed', 'Cancelled', 'Rejected', 'Expired'].includes(refundStatusNames[r.status]))
      .reduce((a, r) => a + r.amountMinor, 0);
    if ((i.refundedMinor ?? 0) !== refunded)
      report(
        'refunds',
        i.paymentIntentId,
        `transaction ${i.paymentIntentId} shows ${i.refundedMinor ?? 0} refunded, its completed refunds add up to ${refunded}`,
      );
    if ((i.refundReservedMinor ?? 0) !== reserved)
      report(
        'refunds',
        i.paymentIntentId,
        `transaction ${i.paymentIntentId} reserves ${i.refundReservedMinor ?? 0} for ` +
          `refunds, its open and completed refunds add up to ${reserved}`,
      );
    if (refunded > i.amountMinor || reserved > i.amountMinor)
      report(
        'refunds',
        i.paymentIntentId,
        `transaction ${i.paymentIntentId} of ${i.amountMinor} has ${Math.max(refunded, reserved)} refunded or reserved`,
      );
  }
  return out;
}
