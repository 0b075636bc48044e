import { randomUUID } from 'node:crypto';
import type { PayoutInstruction } from '../bank-rail.ts';
import type { Rail, StatusAnswer, SubmitAnswer } from '../rail.ts';
import type { RefundInstruction, RefundRail } from '../refund-provider.ts';
import {
  chargeRequestTimeoutMs,
  unansweredCharge,
  type ChargeStatus,
  type ProviderNotification,
  type WalletProviderAdapter,
} from '../wallet-contract.ts';
import { postToProvider } from './http.ts';
import {
  disbursementDecrypt,
  disbursementEncrypt,
  jazzCashCodes as C,
  jazzCashDateTime,
  jazzCashDisbursementUnknown,
  jazzCashDisbursementSuccess,
  jazzCashHashValid,
  jazzCashMessages,
  jazzCashPaid,
  jazzCashInquiryVersion,
  jazzCashPathFamilies,
  jazzCashPaths as P,
  jazzCashSecureHash,
  jazzCashInquiryStates,
  oneOf,
  type JazzCashCardSettings,
  type JazzCashInquiryStates,
  type JazzCashFamilyPaths,
  type JazzCashPathFamily,
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
  /**
   * The wallet APIs' path family of this merchant account (jazzcash-protocol.ts jazzCashPathFamilies): 'applicationApi'
   * (the default) or 'paymentOrchestrator' (with `baseUrl` https://onlinepayments.jazzcash.com.pk).
   */
  pathFamily?: JazzCashPathFamily;
  /** Paths JazzCash gives at onboarding, over the family's: the orchestrator's refund paths have no public source. */
  paths?: Partial<JazzCashFamilyPaths>;
  /** Card API choices where the sources disagree (jazzcash-protocol.ts JazzCashCardSettings). */
  cards?: JazzCashCardSettings;
  /** The inquiry's answers for states no recorded answer shows (jazzcash-protocol.ts JazzCashInquiryStates). */
  inquiryStates?: Partial<JazzCashInquiryStates>;
  disbursement?: {
    baseUrl: string;
    clientId: string;
    clientSecret: string;
    aesKey: string;
    aesIv: string;
    /** An open guess (docs/providers/jazzcash.md, Open guesses): the inquiry's codes for a transfer JazzCash never received. */
    notFoundCodes?: string[];
  };
}

export type Fields = Record<string, string>;

/** The payment inquiry's fields for a transaction (with the family's pp_Version: R3 for ApplicationAPI, none in S9). */
export const inquiryFields = (config: JazzCashConfig, txnRefNo: string): Fields => {
  const version = jazzCashInquiryVersion[config.pathFamily ?? 'applicationApi'];
  return { pp_TxnRefNo: txnRefNo, ...credentials(config), ...(version ? { pp_Version: version } : {}) };
};

/** The wallet API paths of an account: its family's, with the configured ones over them. */
export const walletPaths = (config: JazzCashConfig): JazzCashFamilyPaths => ({
  ...jazzCashPathFamilies[config.pathFamily ?? 'applicationApi'],
  ...config.paths,
});

/**
 * POSTs signed pp_* fields (and any `alsoHashed` field, ProcessACS's paRes when configured); the answer's pp_SecureHash
 * must verify (else it is treated as no answer).
 */
export async function signedCall(
  config: JazzCashConfig,
  path: string,
  fields: Fields,
  signal?: AbortSignal,
  alsoHashed?: readonly string[],
  timeoutMs?: number,
): Promise<Fields> {
  const body = { ...fields, pp_SecureHash: jazzCashSecureHash(fields, config.integritySalt, alsoHashed ? { alsoHashed } : {}) };
  const answer = await postToProvider<Fields>(`${config.baseUrl}${path}`, JSON.stringify(body), {
    ...(signal ? { signal } : {}),
    ...(timeoutMs ? { timeoutMs } : {}),
  });
  if (answer.pp_SecureHash !== undefined && !jazzCashHashValid(answer, config.integritySalt))
    throw new Error('JazzCash answer failed pp_SecureHash verification');
  return answer;
}

/**
 * The retrieval reference of an answer: the return/callback spells it pp_RetreivalReferenceNo, the
 * inquiry answer pp_RetrievalReferenceNo (R3's recorded inquiry answer); either is read.
 */
const retrievalReference = (a: Fields): string | undefined => a.pp_RetrievalReferenceNo || a.pp_RetreivalReferenceNo || undefined;

export const credentials = (config: JazzCashConfig) => ({ pp_MerchantID: config.merchantId, pp_Password: config.password });
export const message = (a: Fields) =>
  a.pp_ResponseMessage || jazzCashMessages[a.pp_ResponseCode ?? ''] || `JazzCash answered ${a.pp_ResponseCode}`;

/** Maps a charge's final pp_PaymentResponseCode to our wallet answer (S2: 000 and 121 are Completed). */
const chargeOutcome = (code: string, text: string): ChargeStatus => {
  if (jazzCashPaid.has(code)) return { status: 'Approved' };
  if (code === C.pending) return { status: 'Pending' };
  if (code === C.cancelledByUser) return { status: 'Declined', reason: 'customer_declined' };
  return { status: 'Declined', reason: `JazzCash ${code}: ${text}` };
};

export function jazzCashWallet(config: JazzCashConfig): WalletProviderAdapter {
  const paths = walletPaths(config);
  return {
    providerId: 1,
    name: 'JazzCash',
    // No otpMatches: the provider sends no one-time code (the customer approves with the MPIN on the
    // handset), so the hosted page skips its code step and waits for the approval at once.
    asksForCnic: true,
    chargeReference: jazzCashTxnRefNo,
    async startCharge({ reference, mobileNumber, amountMinor, currency, cnicLast6 }, now) {
      const txnRefNo = jazzCashTxnRefNo(reference);
      const fields: Fields = {
        pp_Language: 'EN',
        ...credentials(config),
        pp_TxnRefNo: txnRefNo,
        pp_MobileNumber: mobileNumber,
        pp_CNIC: cnicLast6 ?? '', // the last six digits (S3's "CNIC feature"; callers refuse a charge without them)
        pp_Amount: String(amountMinor),
        pp_TxnCurrency: currency,
        pp_TxnDateTime: jazzCashDateTime(now),
        pp_BillReference: txnRefNo,
        pp_Description: 'Payment',
        pp_TxnExpiryDateTime: jazzCashDateTime(new Date(now.getTime() + 24 * 3_600_000)),
      };
      let answer: Fields;
      try {
        answer = await signedCall(config, paths.charge, fields, undefined, undefined, chargeRequestTimeoutMs);
      } catch {
        // No answer, or one that fails verification: JazzCash may have prompted the customer. Recorded as started, the
        // inquiry decides (a refusal here would let a retry charge again, and leave an approval nobody credits).
        return unansweredCharge('JazzCash', txnRefNo);
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
      const answer = await signedCall(config, paths.inquiry, inquiryFields(config, providerReference));
      // Only a signed answer decides (signedCall has verified the hash when there is one).
      if (answer.pp_SecureHash === undefined) throw new Error('JazzCash inquiry answer carries no pp_SecureHash');
      const code = answer.pp_ResponseCode ?? '';
      // 109, a recorded code: declines a charge JazzCash accepted; a charge whose request went unanswered waits (settledStatus).
      if (code === C.transactionDoesNotExist) return { status: 'NotFound', recorded: true };
      if (code !== C.success) throw new Error(`JazzCash inquiry answered ${code}`);
      const retrieval = retrievalReference(answer);
      const rrn = retrieval ? { providerTransactionId: retrieval } : {};
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
 * Refunds of JazzCash payments: the MWallet refund API for wallet payments, the card refund API for
 * card ones. Neither takes a refund reference (pp_TxnRefNo, pp_Amount, pp_TxnCurrency, credentials,
 * pp_MerchantMPIN: docs/providers/jazzcash.md), and JazzCash refunds a payment once (S2: 451, 454),
 * so the rail declares one refund per payment (refundsAllowed: once) and the payment itself is the
 * idempotency key: a repeated request answers 131 ("Transaction is Refunded") and the payment
 * inquiry says whether the refund was made.
 */
export function jazzCashRefundRail(config: JazzCashConfig): RefundRail & Required<Pick<RefundRail, 'refundsAllowed'>> {
  const paths = walletPaths(config);
  const states = jazzCashInquiryStates(config.inquiryStates);
  const inquire = (i: RefundInstruction, signal?: AbortSignal) =>
    signedCall(config, paths.inquiry, inquiryFields(config, jazzCashTxnRefNo(i.transactionReference)), signal);
  return {
    name: 'JazzCash',
    ledgerAccount: 'refund_rail',
    // JazzCash refunds a payment once (S2: 451, 454): a second refund of the same payment is refused when requested.
    refundsAllowed: () => ({ refundsAllowed: 'once', provider: 'JazzCash' }),
    // A path family without a public refund path (the Payment Orchestrator) refunds only through configured paths.
    refuses: (target) => {
      const card = target.walletProviderId === null;
      if (card ? paths.cardRefund : paths.refund) return undefined;
      return (
        `Live refunds of JazzCash ${card ? 'card' : 'wallet'} payments are not set up for this account's Payment Orchestrator ` +
        'paths. Refund the customer from the JazzCash merchant portal.'
      );
    },
    timings: { firstCheckAfterMs: 30_000, pollIntervalMs: 30_000, inquireAfterMs: 60_000, retryAfterMs: 60_000 },
    async submit(i, signal): Promise<SubmitAnswer> {
      if (i.currency !== 'PKR') return { outcome: 'rejected', reason: 'JazzCash refunds PKR payments only.' };
      const txnRefNo = jazzCashTxnRefNo(i.transactionReference);
      const payment = await inquire(i, signal).catch(() => undefined);
      if (!payment) return { outcome: 'rejected', reason: 'JazzCash could not be reached to look the payment up.', internal: true };
      if (refundedAnswer(payment, states)) return { outcome: 'unknown' }; // made already (an earlier attempt): the status says
      // Card payments are refunded through the card API, wallet payments through the MWallet one. The gateway knows
      // which took the payment; the inquiry's pp_TxnType (MPAY) is read only for refunds requested before that was
      // recorded: recorded inquiry answers carry no pp_TxnType (docs/providers/jazzcash.md, Refunds).
      const card = i.walletProviderId === undefined ? payment.pp_TxnType === jazzCashTxnTypes.card : i.walletProviderId === null;
      const path = card ? paths.cardRefund : paths.refund;
      if (!path) return { outcome: 'rejected', reason: 'JazzCash refunds are not set up for this account.', internal: true };
      const answer = await signedCall(
        config,
        path,
        {
          pp_TxnRefNo: txnRefNo,
          pp_Amount: String(i.amountMinor),
          pp_TxnCurrency: 'PKR',
          ...credentials(config),
          ...(card ? {} : { pp_MerchantMPIN: config.mpin }),
        },
        signal,
      );
      const code = answer.pp_ResponseCode ?? '';
      if (code === C.success) return { outcome: 'accepted', providerReference: txnRefNo };
      if (code === C.refunded) return { outcome: 'unknown' }; // already refunded: the inquiry says how it ended
      if (jazzCashUnavailable.has(code)) return { outcome: 'unknown' };
      return { outcome: 'rejected', reason: `JazzCash declined the refund: ${message(answer)} (${code}).` };
    },
    async status(i, signal): Promise<StatusAnswer> {
      const answer = await inquire(i, signal);
      const code = answer.pp_ResponseCode ?? '';
      if (code === C.transactionDoesNotExist) return { status: 'NotFound' };
      if (code !== C.success) throw new Error(`JazzCash refund inquiry answered ${code}`);
      // One refund per payment: a refunded payment is this refund; a payment not refunded never received it.
      return refundedAnswer(answer, states)
        ? { status: 'Completed', providerReference: jazzCashTxnRefNo(i.transactionReference) }
        : { status: 'NotFound' };
    },
  };
}

/** The inquiry says the payment was refunded: S2's 131 "Transaction is Refunded", or pp_Status Refunded (jazzcash.inquiryStates). */
const refundedAnswer = (a: Fields, states: JazzCashInquiryStates) =>
  oneOf(a.pp_PaymentResponseCode, states.refundedCodes) || oneOf(a.pp_Status, states.refundedStatuses);

/** Payouts to JazzCash wallets through the MW disbursement API (OAuth2 client credentials, encrypted payloads). */
export function jazzCashDisbursementRail(config: JazzCashConfig): Rail<PayoutInstruction> {
  const d = config.disbursement;
  let token: { value: string; until: number } | undefined;
  const bearer = async (signal?: AbortSignal) => {
    if (token && token.until > Date.now()) return token.value;
    // OAuth2 client credentials in a Basic header (R7; RFC 6749 2.3.1), the grant in the form.
    const basic = Buffer.from(`${d!.clientId}:${d!.clientSecret}`, 'utf8').toString('base64');
    const form = new URLSearchParams({ grant_type: 'client_credentials' }).toString();
    const answer = await postToProvider<{ access_token?: string; expires_in?: number }>(`${d!.baseUrl}${P.token}`, form, {
      contentType: 'application/x-www-form-urlencoded',
      headers: { authorization: `Basic ${basic}` },
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
    // Every MW transfer of the cited integrations sends receiverCNIC (R7, D1), and D1's table has G2P-T-2010 "The MSISDN
    // don't match with the CNIC": a wallet payout takes the receiver's CNIC.
    requires: () => ['receiverCnic'],
    timings: { firstCheckAfterMs: 5_000, pollIntervalMs: 10_000, inquireAfterMs: 30_000, retryAfterMs: 30_000 },
    async submit(i, signal): Promise<SubmitAnswer> {
      if (!d) return { outcome: 'rejected', reason: 'JazzCash disbursement credentials are not configured.', internal: true };
      if (i.currency !== 'PKR') return { outcome: 'rejected', reason: 'JazzCash pays out PKR only.' };
      const amount = `${Math.trunc(i.amountMinor / 100)}.${String(i.amountMinor % 100).padStart(2, '0')}`;
      if (!/^\d{13}$/.test(i.receiverCnic ?? ''))
        return { outcome: 'rejected', reason: "JazzCash needs the receiver's CNIC (13 digits) to pay a wallet." };
      const transfer = { receiverCNIC: i.receiverCnic!, receiverMSISDN: i.accountNumber, amount, referenceId: referenceId(i) };
      const answer = await call(P.disburse, transfer, signal);
      if (answer.responseCode === jazzCashDisbursementSuccess)
        return { outcome: 'accepted', providerReference: answer.transactionID || null };
      // A repeated reference, or an answer that leaves the outcome open: the inquiry decides (never a refusal, which would pay again).
      if (jazzCashDisbursementUnknown.has(answer.responseCode ?? '')) return { outcome: 'unknown' };
      return {
        outcome: 'rejected',
        reason: `JazzCash refused the payout: ${answer.responseDescription ?? 'no reason given'} (${answer.responseCode}).`,
      };
    },
    async status(i, signal): Promise<StatusAnswer> {
      if (!d) return { status: 'Processing' };
      // The inquiry names the transfer by originalReferenceId and carries its own referenceID (R7).
      const answer = await call(P.disbursementInquiry, { originalReferenceId: referenceId(i), referenceID: randomUUID() }, signal);
      if ((d.notFoundCodes ?? ['G2P-T-404']).includes(answer.responseCode ?? '')) return { status: 'NotFound' };
      if (answer.responseCode !== jazzCashDisbursementSuccess)
        throw new Error(`JazzCash disbursement inquiry answered ${answer.responseCode}`);
      // transactionStatus in R7's recorded answer is capitalised ("Completed", "Cancelled"); compared without case.
      const state = (answer.transactionStatus ?? '').toLowerCase();
      if (state === 'completed' && answer.isReversed !== '1')
        return { status: 'Completed', providerReference: answer.transactionID || null };
      if (['failed', 'cancelled', 'reversed'].includes(state) || answer.isReversed === '1')
        return { status: 'Failed', reason: `JazzCash refused the payout: ${answer.responseDescription ?? state}.` };
      return { status: 'Processing' };
    },
  };
}
