import type { Mode } from '#shared/domain/credentials.ts';
import { minorUnits, type Currency } from '#shared/domain/money.ts';
import { normaliseAccount, type SettlementDestination } from '#shared/domain/settlement.ts';
import { checkUsdtAddress } from '#shared/domain/usdt-address.ts';
import { createSettlement, previewSettlement, settlementFor, settlementPage, withFunds } from '#shared/services/settlement-requests.ts';
import { SettlementStatus, settlementStatusNames } from '#shared/domain/settlement.ts';
import { bankFileStanding } from '#shared/domain/bank-file.ts';
import { getBankFileLine } from '#shared/store/bank-file.ts';
import { auditWrite, getSettlementMaker } from '#shared/store/dashboard.ts';
import { sessionMerchant } from './dashboard.ts';
import { commitRequest, withWrites } from '#shared/store/request.ts';
import { approvalPolicy, approvalsOf, checkDashboardDecision, decideInDashboard, describePolicy } from './approvals.ts';
import { approveSettlement, rejectSettlement } from './settlements.ts';
import { balancePage } from './dashboard-balance.ts';
import { auditEntry, type Signed } from './dashboard-auth.ts';
import { userRefusal } from '#shared/domain/errors.ts';

/**
 * The Settlements page (docs/dashboard.md) through the settlements service the API uses: the
 * list, one settlement, and a request in two steps: the preview (fee, net amount, and for USDT the
 * rate quoted now and the payout it gives) and the confirmation, which creates the settlement with
 * its audit entry in the settlement's own transaction.
 */
export const settlementsList = (merchantId: string, mode: Mode, page: number) => settlementPage(merchantId, mode, { page, pageSize: 25 });
const settlementOf = (merchantId: string, mode: Mode, id: string) => {
  if (!/^[0-9a-f-]{36}$/i.test(id)) throw userRefusal('not_found', 'There is no such settlement in this mode.');
  return settlementFor(merchantId, mode, id);
};

/**
 * One settlement with who requested it (dashboard requests), the approval setting and the approvals so far, and where
 * it stands in the bank transfer file rail (live bank settlements: docs/providers/bank-file.md), null when not there.
 */
export async function settlementDetail(merchantId: string, mode: Mode, id: string) {
  const view = await settlementOf(merchantId, mode, id);
  const [maker, policy, approvals, movements, line] = await Promise.all([
    getSettlementMaker(id),
    approvalPolicy(merchantId),
    approvalsOf('settlement', id),
    view.breakdown ? balancePage(merchantId, mode, { settlement: id }) : undefined,
    view.status >= SettlementStatus.Processing ? getBankFileLine(id) : undefined,
  ]);
  return {
    ...view,
    movements,
    bankFile: line && line.state !== 'void' ? bankFileStanding(line) : null,
    maker: maker ? { userId: maker.userId, email: maker.email, keyId: maker.keyId ?? null } : null,
    policy,
    policyText: describePolicy(policy),
    approvals,
  };
}

/**
 * Approve or reject a Pending settlement in the dashboard (approvers and admins): maker-checker
 * (never the user who requested it), under the merchant's setting of who approves; audited.
 * Every refusal before anything changes (checkDashboardDecision); the confirmation page runs it too.
 */
async function checkSettlementDecision(signed: Signed, id: string, decision: 'approve' | 'reject', reason: string) {
  const s = await settlementOf(signed.user.merchantId, signed.session.mode, id);
  const maker = await getSettlementMaker(id);
  const policy = await checkDashboardDecision(
    signed,
    'settlement',
    { id, status: settlementStatusNames[s.status]!, maker },
    decision,
    reason,
  );
  return { settlement: s, maker, policy };
}

/** What the user is about to approve or reject, shown to confirm. */
export async function settlementDecisionPreview(signed: Signed, id: string, decision: 'approve' | 'reject', reason: string) {
  const { settlement, maker } = await checkSettlementDecision(signed, id, decision, reason);
  return { settlement, makerEmail: maker?.email ?? null, reason: reason.trim().slice(0, 255) };
}

export async function decideSettlement(signed: Signed, id: string, decision: 'approve' | 'reject', reason: string, now = new Date()) {
  await checkSettlementDecision(signed, id, decision, reason);
  const act = { approve: () => approveSettlement(id), reject: (why?: string) => rejectSettlement(id, why, () => now, signed.user.email) };
  return decideInDashboard(signed, 'settlement', id, decision, reason, act, now);
}

export interface SettlementForm {
  amount: string;
  method: string;
  bankName: string;
  iban: string;
  accountTitle: string;
  usdtAddress: string;
}

async function parse(signed: Signed, form: SettlementForm) {
  const { merchant } = await sessionMerchant(signed, 'settlements');
  const currency: Currency = merchant.defaultCurrency;
  const amount = form.amount.trim();
  if (!/^\d+(\.\d+)?$/.test(amount) || Number(amount) <= 0)
    throw userRefusal('invalid', 'Enter the amount as a number, e.g. 5000 or 1250.50.', 'amount');
  let amountMinor: number;
  try {
    amountMinor = minorUnits(Number(amount), currency);
  } catch {
    throw userRefusal('invalid', `The amount has too many decimals for ${currency}.`, 'amount');
  }
  let destination: SettlementDestination;
  let payoutCurrency: Currency = currency;
  if (form.method === 'usdt') {
    const check = checkUsdtAddress(form.usdtAddress.trim());
    if (!check.ok) throw userRefusal('invalid', `USDT address: ${check.reason}.`, 'usdtAddress');
    destination = { type: 'usdt', address: check.address, network: check.network };
    payoutCurrency = 'USDT';
  } else if (form.method === 'bank') {
    const bankName = form.bankName.trim();
    const accountTitle = form.accountTitle.trim();
    if (bankName.length < 2 || bankName.length > 100) throw userRefusal('invalid', 'The bank name has 2-100 characters.', 'bankName');
    if (accountTitle.length < 2 || accountTitle.length > 100)
      throw userRefusal('invalid', 'The account title has 2-100 characters.', 'accountTitle');
    const account = normaliseAccount(form.iban);
    if (!account.ok) throw userRefusal('invalid', `IBAN: ${account.reason}.`, 'iban');
    destination = { type: 'bank', bankName, iban: account.value, accountTitle };
  } else {
    throw userRefusal('invalid', 'Choose a bank account or a USDT address.', 'method');
  }
  return { merchant, input: { amountMinor, currency, payoutCurrency, destination } };
}

/** Step 1: what the settlement would be (nothing is written). */
export async function settlementPreview(signed: Signed, form: SettlementForm, now = new Date()) {
  const { merchant, input } = await parse(signed, form);
  const preview = await previewSettlement(
    { merchantId: merchant.merchantId, mode: signed.session.mode, fee: merchant.fees.settlement },
    input,
    now,
  );
  return { ...preview, destination: input.destination };
}

/**
 * Step 2: the settlement (the funds are held until it is approved), with its maker (maker-checker)
 * and the audit entry in the settlement's own transaction.
 */
export async function requestSettlementFromDashboard(signed: Signed, form: SettlementForm, traceId: string, now = new Date()) {
  const { merchant, input } = await parse(signed, form);
  const mode = signed.session.mode;
  const maker = { userId: signed.user.userId, email: signed.user.email };
  const caller = { merchantId: merchant.merchantId, mode, fee: merchant.fees.settlement, traceId, maker };
  // The settlement, its maker (for maker-checker, written by the service) and the audit entry: one transaction.
  return commitRequest(
    withWrites(
      (place) => createSettlement(caller, input, place, now),
      ({ response: view }) => [
        auditWrite(
          auditEntry(
            merchant.merchantId,
            signed.actor,
            'settlement.request',
            { target: `${view.id} ${view.amount} ${view.currency} → ${view.payoutCurrency}`, mode },
            now,
          ),
        ),
      ],
    ),
    undefined,
    withFunds,
  );
}
