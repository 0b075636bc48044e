import { randomUUID } from 'node:crypto';
import type { PayoutInstruction } from '../bank-rail.ts';
import type { Rail, StatusAnswer, SubmitAnswer } from '../rail.ts';
import type { RefundInstruction } from '../refund-provider.ts';
import type { ChargeStatus, ProviderNotification, WalletProviderAdapter } from '../wallet-contract.ts';
import { postToProvider } from './http.ts';
import {
  disbursementDecrypt,
  disbursementEncrypt,
  jazzCashCodes as C,
  jazzCashDateTime,
  jazzCashDisbursementSuccess,
  jazzCashHashValid,
  jazzCashMessages,
  jazzCashPaths as P,
  jazzCashSecureHash,
  jazzCashTxnRefNo,
  jazzCashTxnTypes,
  jazzCashUnavailable,
} from './jazzcash-protocol.ts';

/** A deployment's JazzCash credentials for one mode (AWS Secrets Manager, docs/operator-guide.md). */
export interface JazzCashConfig {
  /** https://payments.jazzcash.com.pk (production) or https://sandbox.jazzcash.com.pk. */
  baseUrl: string;
  merchantId: string;
  password: string;
  integritySalt: string;
  /** The merchant MPIN the refund API requires. */
  mpin: string;
  disbursement?: { baseUrl: string; clientId: string; clientSecret: string; aesKey: string; aesIv: string };
}

export type Fields = Record<string, string>;

/** POSTs signed pp_* fields; the answer's pp_SecureHash must verify (else it is treated as no answer). */
export async function signedCall(config: JazzCashConfig, path: string, fields: Fields, signal?: AbortSignal): Promise<Fields> {
  const body = { ...fields, pp_SecureHash: jazzCashSecureHash(fields, config.integritySalt) };
  const answer = await postToProvider<Fields>(`${config.baseUrl}${path}`, JSON.stringify(body), { ...(signal ? { signal } : {}) });
  if (answer.pp_SecureHash !== undefined && !jazzCashHashValid(answer, config.integritySalt))
    throw new Error('JazzCash answer failed pp_SecureHash verification');
  return answer;
}

export const credentials = (config: JazzCashConfig) => ({ pp_MerchantID: config.merchantId, pp_Password: config.password });
export const message = (a: Fields) =>
  a.pp_ResponseMessage || jazzCashMessages[a.pp_ResponseCode ?? ''] || `JazzCash answered ${a.pp_ResponseCode}`;

/** Maps a charge's final pp_ResponseCode to our wallet answer. */
const chargeOutcome = (code: string, text: string): ChargeStatus => {
  if (code === C.success) return { status: 'Approved' };
  if (code === C.pending) return { status: 'Pending' };
  if (code === C.cancelledByUser) return { status: 'Declined', reason: 'customer_declined' };
  return { status: 'Declined', reason: `JazzCash ${code}: ${text}` };
};

export function jazzCashWallet(config: JazzCashConfig): WalletProviderAdapter {
  return {
    providerId: 1,
    name: 'JazzCash',
    // No otpMatches: the provider sends no one-time code (the customer approves with the MPIN on the
    // handset), so the hosted page skips its code step and waits for the approval at once.
    async startCharge({ reference, mobileNumber, amountMinor, currency }, now) {
      const txnRefNo = jazzCashTxnRefNo(reference);
      const fields: Fields = {
        pp_Language: 'EN',
        ...credentials(config),
        pp_TxnRefNo: txnRefNo,
        pp_MobileNumber: mobileNumber,
        pp_CNIC: '',
        pp_Amount: String(amountMinor),
        pp_TxnCurrency: currency,
        pp_TxnDateTime: jazzCashDateTime(now),
        pp_BillReference: txnRefNo,
        pp_Description: 'Payment',
        pp_TxnExpiryDateTime: jazzCashDateTime(new Date(now.getTime() + 24 * 3_600_000)),
      };
      let answer: Fields;
      try {
        answer = await signedCall(config, P.charge, fields);
      } catch {
        return { accepted: false, code: 'provider_unavailable', message: 'JazzCash is unavailable; try again later.' };
      }
      const code = answer.pp_ResponseCode ?? '';
      if (code === C.success || code === C.pending) {
        return {
          accepted: true,
          providerReference: txnRefNo,
          status: 'Pending',
          message: "Approval request sent to the customer's handset.",
        };
      }
      if (code === C.lowBalance)
        return { accepted: false, code: 'insufficient_balance', message: "The customer's wallet balance is too low for this charge." };
      if (jazzCashUnavailable.has(code))
        return { accepted: false, code: 'provider_unavailable', message: 'JazzCash is unavailable; try again later.' };
      return { accepted: false, code: 'rejected', message: `JazzCash refused the charge: ${message(answer)} (${code}).` };
    },
    async statusInquiry(providerReference) {
      const answer = await signedCall(config, P.inquiry, { pp_TxnRefNo: providerReference, ...credentials(config) });
      // Only a signed answer decides (signedCall has verified the hash when there is one).
      if (answer.pp_SecureHash === undefined) throw new Error('JazzCash inquiry answer carries no pp_SecureHash');
      const code = answer.pp_ResponseCode ?? '';
      if (code === C.transactionDoesNotExist) return { status: 'Declined', reason: 'unknown_reference' };
      if (code !== C.success) throw new Error(`JazzCash inquiry answered ${code}`);
      const rrn = answer.pp_RetreivalReferenceNo ? { providerTransactionId: answer.pp_RetreivalReferenceNo } : {};
      return { ...chargeOutcome(answer.pp_PaymentResponseCode ?? '', answer.pp_PaymentResponseMessage ?? ''), ...rrn };
    },
    // The pp_* fields posted to the return URL, signed with the integrity salt. Its pp_ResponseCode is
    // never read: anyone can obtain a signed field set (an answer to some request), so the
    // notification only names the charge; the inquiry decides.
    async parseCallback(headers, rawBody): Promise<ProviderNotification | undefined> {
      const type = headers['content-type'] ?? '';
      let fields: Fields;
      try {
        fields = type.includes('json') ? (JSON.parse(rawBody) as Fields) : Object.fromEntries(new URLSearchParams(rawBody));
      } catch {
        return undefined;
      }
      if (!fields || typeof fields !== 'object' || typeof fields.pp_TxnRefNo !== 'string' || !fields.pp_TxnRefNo) return undefined;
      if (!jazzCashHashValid(fields, config.integritySalt)) return undefined;
      const mismatched = [
        ...(fields.pp_MerchantID === config.merchantId ? [] : ['pp_MerchantID']),
        ...(fields.pp_TxnType === jazzCashTxnTypes.wallet ? [] : ['pp_TxnType']),
        ...(/^\d{1,15}$/.test(fields.pp_Amount ?? '') ? [] : ['pp_Amount']),
        ...(fields.pp_RetreivalReferenceNo ? [] : ['pp_RetreivalReferenceNo']),
      ];
      return {
        providerReference: fields.pp_TxnRefNo,
        ...(/^\d{1,15}$/.test(fields.pp_Amount ?? '') ? { amountMinor: Number(fields.pp_Amount) } : {}),
        ...(fields.pp_RetreivalReferenceNo ? { providerTransactionId: fields.pp_RetreivalReferenceNo } : {}),
        mismatched,
      };
    },
  };
}

/**
 * Refunds of JazzCash wallet payments (MWallet refund API), idempotent per refund id through
 * pp_RefundTxnRefNo (GUESS, docs/providers/jazzcash.md), with the inquiry by that reference.
 */
export function jazzCashRefundRail(config: JazzCashConfig): Rail<RefundInstruction> {
  const refundRef = (i: RefundInstruction) => jazzCashTxnRefNo(`refund:${i.reference}`);
  return {
    name: 'JazzCash',
    ledgerAccount: 'refund_rail',
    timings: { firstCheckAfterMs: 30_000, pollIntervalMs: 30_000, inquireAfterMs: 60_000, retryAfterMs: 60_000 },
    async submit(i, signal): Promise<SubmitAnswer> {
      if (i.currency !== 'PKR') return { outcome: 'rejected', reason: 'JazzCash refunds PKR payments only.' };
      const txnRefNo = jazzCashTxnRefNo(i.transactionReference);
      // Card payments (pp_TxnType MPAY) are refunded through the card API, wallet payments through the MWallet one.
      const payment = await signedCall(config, P.inquiry, { pp_TxnRefNo: txnRefNo, ...credentials(config) }, signal).catch(() => undefined);
      if (!payment) return { outcome: 'rejected', reason: 'JazzCash could not be reached to look the payment up.', internal: true };
      const card = payment.pp_TxnType === jazzCashTxnTypes.card;
      const answer = await signedCall(
        config,
        card ? P.cardRefund : P.refund,
        {
          ...(card ? { pp_Version: '2.0', pp_TxnType: jazzCashTxnTypes.card } : {}),
          pp_TxnRefNo: txnRefNo,
          pp_RefundTxnRefNo: refundRef(i),
          pp_Amount: String(i.amountMinor),
          pp_TxnCurrency: 'PKR',
          ...credentials(config),
          pp_MerchantMPIN: config.mpin,
        },
        signal,
      );
      const code = answer.pp_ResponseCode ?? '';
      if (code === C.success) return { outcome: 'accepted', providerReference: refundRef(i) };
      if (code === C.duplicate) return { outcome: 'unknown' }; // already taken: the inquiry says how it ended
      if (jazzCashUnavailable.has(code)) return { outcome: 'unknown' };
      return { outcome: 'rejected', reason: `JazzCash declined the refund: ${message(answer)} (${code}).` };
    },
    async status(i, signal): Promise<StatusAnswer> {
      const answer = await signedCall(
        config,
        P.inquiry,
        { pp_TxnRefNo: jazzCashTxnRefNo(i.transactionReference), pp_RefundTxnRefNo: refundRef(i), ...credentials(config) },
        signal,
      );
      const code = answer.pp_ResponseCode ?? '';
      if (code === C.transactionDoesNotExist) return { status: 'NotFound' };
      if (code !== C.success) throw new Error(`JazzCash refund inquiry answered ${code}`);
      const payment = answer.pp_PaymentResponseCode ?? '';
      if (payment === C.success) return { status: 'Completed', providerReference: refundRef(i) };
      if (payment === C.pending) return { status: 'Processing' };
      return { status: 'Failed', reason: `JazzCash declined the refund: ${jazzCashMessages[payment] ?? payment} (${payment}).` };
    },
  };
}

/** Payouts to JazzCash wallets through the MW disbursement API (OAuth2 client credentials, encrypted payloads). */
export function jazzCashDisbursementRail(config: JazzCashConfig): Rail<PayoutInstruction> {
  const d = config.disbursement;
  let token: { value: string; until: number } | undefined;
  const bearer = async (signal?: AbortSignal) => {
    if (token && token.until > Date.now()) return token.value;
    const form = new URLSearchParams({
      grant_type: 'client_credentials',
      client_id: d!.clientId,
      client_secret: d!.clientSecret,
    }).toString();
    const answer = await postToProvider<{ access_token?: string; expires_in?: number }>(`${d!.baseUrl}${P.token}`, form, {
      contentType: 'application/x-www-form-urlencoded',
      ...(signal ? { signal } : {}),
    });
    if (!answer.access_token) throw new Error('JazzCash token endpoint gave no access_token');
    token = { value: answer.access_token, until: Date.now() + Math.max(0, (answer.expires_in ?? 0) - 60) * 1000 };
    return token.value;
  };
  const call = async (path: string, payload: Record<string, string>, signal?: AbortSignal) => {
    const answer = await postToProvider<{ data?: string }>(
      `${d!.baseUrl}${path}`,
      JSON.stringify({ data: disbursementEncrypt(payload, d!.aesKey, d!.aesIv) }),
      {
        headers: { authorization: `Bearer ${await bearer(signal)}` },
        ...(signal ? { signal } : {}),
      },
    );
    return disbursementDecrypt<Record<string, string>>(answer.data ?? '', d!.aesKey, d!.aesIv);
  };
  const referenceId = (i: PayoutInstruction) => i.reference;
  return {
    name: 'JazzCash',
    ledgerAccount: 'bank_rail',
    timings: { firstCheckAfterMs: 5_000, pollIntervalMs: 10_000, inquireAfterMs: 30_000, retryAfterMs: 30_000 },
    async submit(i, signal): Promise<SubmitAnswer> {
      if (!d) return { outcome: 'rejected', reason: 'JazzCash disbursement credentials are not configured.', internal: true };
      if (i.currency !== 'PKR') return { outcome: 'rejected', reason: 'JazzCash pays out PKR only.' };
      const amount = `${Math.trunc(i.amountMinor / 100)}.${String(i.amountMinor % 100).padStart(2, '0')}`;
      const answer = await call(P.disburse, { receiverMSISDN: i.accountNumber, amount, referenceId: referenceId(i) }, signal);
      if (answer.responseCode === jazzCashDisbursementSuccess)
        return { outcome: 'accepted', providerReference: answer.transactionID || null };
      if (answer.responseCode === 'G2P-T-409') return { outcome: 'unknown' }; // the reference was already taken: ask the inquiry
      return {
        outcome: 'rejected',
        reason: `JazzCash refused the payout: ${answer.responseDescription ?? 'no reason given'} (${answer.responseCode}).`,
      };
    },
    async status(i, signal): Promise<StatusAnswer> {
      if (!d) return { status: 'Processing' };
      const answer = await call(P.disbursementInquiry, { referenceId: referenceId(i), requestId: randomUUID() }, signal);
      if (answer.responseCode === 'G2P-T-404') return { status: 'NotFound' };
      if (answer.responseCode !== jazzCashDisbursementSuccess)
        throw new Error(`JazzCash disbursement inquiry answered ${answer.responseCode}`);
      if (answer.transactionStatus === 'COMPLETED') return { status: 'Completed', providerReference: answer.transactionID || null };
      if (answer.transactionStatus === 'FAILED')
        return { status: 'Failed', reason: `JazzCash refused the payout: ${answer.transactionStatusDescription ?? 'no reason given'}.` };
      return { status: 'Processing' };
    },
  };
}
