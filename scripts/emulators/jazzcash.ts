import { randomBytes } from 'node:crypto';
import {
  disbursementDecrypt,
  disbursementEncrypt,
  jazzCashCodes as C,
  jazzCashDisbursementDuplicate,
  jazzCashDisbursementReceiverInvalid,
  jazzCashDisbursementSuccess,
  jazzCashHashValid,
  jazzCashMessages,
  jazzCashPathFamilies,
  jazzCashPaths as P,
  jazzCashSecureHash,
} from '#shared/providers/live/jazzcash-protocol.ts';
import { notify, parseBody, startEmulator, type Answer, type Emulator } from './common.ts';
import { recorded, requiredBy } from './recorded.ts';
import { cardEmulator, type CardTxn } from './jazzcash-cards.ts';

/**
 * A local JazzCash that follows the published protocol (docs/providers/jazzcash.md): the MWallet
 * REST API v2.0 charge, the payment inquiry, the MWallet refund and the MW disbursement API, with
 * pp_SecureHash and credential checks (a wrong hash is answered 115, wrong credentials 101, both
 * unsigned and naming no transaction), a repeated pp_TxnRefNo refused (422, S2's duplication code),
 * one refund per payment (a second is answered 131 or 451, as S2's codes), asynchronous callbacks
 * (form POST of the pp_* fields, signed, to the return URL) and injectable faults
 * (scripts/emulators/common.ts).
 *
 * The customer's behaviour is chosen by the last four digits of the wallet number:
 *   0000 (any other)  approves on the handset        1111  cancels (112)
 *   2222              low balance (004, at once)      3333  maintenance (118, at once)
 *   4444              never answers (stays 157)       5555  account not found (002, at once)
 *   8888              approves; the inquiry answers with pp_BankID "null", hashed leaving it out
 * Disbursements need receiverCNIC (13 digits; else G2P-T-98); by the receiver's last four: 1111 refused (G2P-T-2001,
 * receiver invalid); 5000 paid, but answered G2P-T-500 ("contact JazzCash before reprocessing": the outcome is open);
 * any other paid; a CNIC ending 2010 refused (G2P-T-2010, the MSISDN does not match the CNIC).
 * Refunds (no refund reference: the payment is the key): an amount ending .91 is declined (limit,
 * 001); any other is paid up to the payment, once; the inquiry then answers 131 / Refunded.
 * Cards with 3-D Secure: scripts/emulators/jazzcash-cards.ts.
 */
export interface JazzCashEmulatorConfig {
  merchantId: string;
  password: string;
  integritySalt: string;
  mpin: string;
  /** Where the signed callbacks go (the gateway's /providers/wallet/jazzcash/callback). */
  returnUrl?: string;
  /** How long after the charge request the customer answers on the handset. */
  decideAfterMs?: number;
  disbursement: { clientId: string; clientSecret: string; aesKey: string; aesIv: string };
}

interface Charge {
  /** MWALLET, or MPAY for a card payment (scripts/emulators/jazzcash-cards.ts). */
  type: 'MWALLET' | 'MPAY';
  amount: number;
  /** pp_TxnDateTime of the request. */
  at: string;
  mobile: string;
  /** pp_CNIC as received (wallet charges: six digits; the real provider has it too). */
  cnic?: string;
  code: string;
  rrn: string;
  refundedMinor: number;
}

export interface JazzCashEmulator extends Emulator {
  charges: Map<string, Charge>;
  /** Disbursements paid, by referenceId: how many times money left for it. */
  paidOut: Map<string, number>;
  /** Card payments by pp_TxnRefNo (authorisations and captures counted). */
  cards: Map<string, CardTxn>;
}

const orchestrator = jazzCashPathFamilies.paymentOrchestrator;

export async function startJazzCashEmulator(config: JazzCashEmulatorConfig): Promise<JazzCashEmulator> {
  const charges = new Map<string, Charge>();
  const disbursements = new Map<string, { code: string; description: string; transactionId: string }>();
  const paidOut = new Map<string, number>();
  const tokens = new Set<string>();
  const salt = config.integritySalt;

  const signed = (fields: Record<string, string>): Answer => ({
    status: 200,
    json: { ...fields, pp_SecureHash: jazzCashSecureHash(fields, salt) },
  });
  const refused = (request: Record<string, string>, code: string) =>
    signed({ pp_TxnRefNo: request.pp_TxnRefNo ?? '', pp_ResponseCode: code, pp_ResponseMessage: jazzCashMessages[code] ?? 'Error' });
  /**
   * As the real API: a request without a valid pp_SecureHash (115) or the merchant's credentials
   * (101) is refused, and the refusal is neither signed nor echoes the request's fields, so that
   * nobody without the integrity salt can obtain a signed field set naming some transaction.
   */
  const unauthenticated = (r: Record<string, string>, extra = true): Answer | undefined => {
    const code = !jazzCashHashValid(r, salt)
      ? C.invalidHash
      : r.pp_MerchantID !== config.merchantId || r.pp_Password !== config.password || !extra
        ? C.invalidCredentials
        : undefined;
    return code ? { status: 200, json: { pp_ResponseCode: code, pp_ResponseMessage: jazzCashMessages[code] } } : undefined;
  };

  const cards = cardEmulator({
    salt,
    unauthenticated,
    signed,
    refused,
    book: (txnRefNo, entry) => {
      if (charges.has(txnRefNo)) return false;
      if (entry)
        charges.set(txnRefNo, { type: 'MPAY', ...entry, at: '', mobile: '', rrn: randomBytes(6).toString('hex'), refundedMinor: 0 });
      return true;
    },
    setCode: (txnRefNo, code) => {
      const c = charges.get(txnRefNo);
      if (c) c.code = code;
    },
  });

  const decide = (txnRefNo: string) => {
    const charge = charges.get(txnRefNo)!;
    const last4 = charge.mobile.slice(-4);
    if (last4 === '4444') return;
    charge.code = last4 === '1111' ? C.cancelledByUser : C.success;
    // The field set of a recorded return (R3's CompletePurchase mock, R6's response fields): empty ones are not hashed.
    const fields: Record<string, string> = {
      pp_Version: '2.0',
      pp_TxnType: 'MWALLET',
      pp_Language: 'EN',
      pp_MerchantID: config.merchantId,
      pp_SubMerchantId: '',
      pp_BankID: '',
      pp_Amount: String(charge.amount),
      pp_TxnCurrency: 'PKR',
      pp_TxnDateTime: charge.at,
      pp_BillReference: txnRefNo,
      pp_TxnRefNo: txnRefNo,
      pp_AuthCode: charge.code === C.success ? randomBytes(6).toString('hex').replace(/[a-f]/g, '7') : '',
      pp_ResponseCode: charge.code,
      pp_ResponseMessage: jazzCashMessages[charge.code]!,
      pp_RetreivalReferenceNo: charge.rrn,
      pp_SettlementExpiry: '',
      ppmpf_1: '',
      ppmbf_1: '',
    };
    fields.pp_SecureHash = jazzCashSecureHash(fields, salt);
    void notify(config.returnUrl, new URLSearchParams(fields).toString(), 'application/x-www-form-urlencoded');
  };

  const charge = (r: Record<string, string>): Answer => {
    const refusal = unauthenticated(r);
    if (refusal) return refusal;
    const amount = Number(r.pp_Amount);
    if (
      !/^[A-Za-z0-9]{1,20}$/.test(r.pp_TxnRefNo ?? '') ||
      !Number.isSafeInteger(amount) ||
      amount <= 0 ||
      !/^03\d{9}$/.test(r.pp_MobileNumber ?? '') ||
      // v2.0 is the "CNIC feature" API: the last six digits of the CNIC (S3, R6); 110 for a missing one is the emulator's
      // choice (none recorded).
      !/^\d{6}$/.test(r.pp_CNIC ?? '') ||
      r.pp_TxnCurrency !== 'PKR'
    ) {
      return refused(r, C.invalidValue);
    }
    if (charges.has(r.pp_TxnRefNo!)) return refused(r, C.duplicate);
    const mobile = r.pp_MobileNumber!;
    const immediate: Record<string, string> = { '2222': C.lowBalance, '3333': C.maintenance, '5555': C.accountNotFound };
    const code = immediate[mobile.slice(-4)];
    if (code) return refused(r, code);
    const rrn = randomBytes(6).toString('hex').toUpperCase();
    const at = r.pp_TxnDateTime ?? '';
    charges.set(r.pp_TxnRefNo!, { type: 'MWALLET', amount, at, mobile, cnic: r.pp_CNIC!, code: C.pending, rrn, refundedMinor: 0 });
    setTimeout(() => decide(r.pp_TxnRefNo!), config.decideAfterMs ?? 100);
    return signed({
      pp_Amount: r.pp_Amount!,
      pp_ResponseCode: C.pending,
      pp_ResponseMessage: jazzCashMessages[C.pending]!,
      pp_RetreivalReferenceNo: rrn,
      pp_TxnRefNo: r.pp_TxnRefNo!,
      pp_TxnType: 'MWALLET',
    });
  };

  const inquiry = (r: Record<string, string>, family: 'applicationApi' | 'paymentOrchestrator'): Answer => {
    const refusal = unauthenticated(r);
    if (refusal) return refusal;
    // The members of the family's recorded request (recorded.ts: R3's with pp_Version, S9's without): a missing one is 110.
    const requires = requiredBy(
      family === 'applicationApi' ? recorded.jazzCashInquiryRequest : recorded.jazzCashOrchestratorInquiryRequest,
    );
    if (requires.some((name) => !r[name])) return refused(r, C.invalidValue);
    const c = charges.get(r.pp_TxnRefNo ?? '');
    if (!c) return refused(r, C.transactionDoesNotExist);
    const refunded = c.refundedMinor > 0;
    const code = refunded ? C.refunded : c.code;
    const status = refunded
      ? 'Refunded'
      : c.type === 'MPAY'
        ? (cards.status(r.pp_TxnRefNo!) ?? 'Failed')
        : c.code === C.success
          ? 'Completed'
          : c.code === C.pending
            ? 'Pending'
            : 'Failed';
    // The fields of R3's recorded answer (and a client's typed one): the retrieval reference spelled
    // pp_RetrievalReferenceNo, and no pp_TxnType (the caller knows what it charged). A wallet ending 8888 gets an answer
    // carrying pp_BankID "null", hashed with the "null" left out (R6's reading of JazzCash's answers).
    const fields = {
      pp_ResponseCode: C.success,
      pp_ResponseMessage: 'Thank you for Using JazzCash, your operation successfully completed.',
      pp_PaymentResponseCode: code,
      pp_PaymentResponseMessage: jazzCashMessages[code] ?? '',
      pp_RetrievalReferenceNo: c.rrn,
      pp_Status: status,
      pp_TxnRefNo: r.pp_TxnRefNo!,
    };
    if (c.mobile.endsWith('8888')) {
      // pp_BankID "null", left out of the hash as an empty value would be (written without the adapter's option, so
      // the test does not share it).
      const withNull = { pp_BankID: 'null', ...fields };
      return { status: 200, json: { ...withNull, pp_SecureHash: jazzCashSecureHash({ ...withNull, pp_BankID: '' }, salt) } };
    }
    return signed(fields);
  };

  /** The MWallet refund (with the merchant's MPIN) and the card refund: one per payment, no refund reference. */
  const refund = (r: Record<string, string>, card: boolean): Answer => {
    const refusal = unauthenticated(r, card || r.pp_MerchantMPIN === config.mpin);
    if (refusal) return refusal;
    const c = charges.get(r.pp_TxnRefNo ?? '');
    if (!c || c.code !== C.success || (c.type === 'MPAY') !== card) return refused(r, C.transactionDoesNotExist);
    const amount = Number(r.pp_Amount);
    if (c.refundedMinor > 0) return refused(r, c.refundedMinor < c.amount ? C.multiplePartialRefunds : C.refunded);
    const code =
      amount % 100 === 91
        ? C.limitExceeded
        : !Number.isSafeInteger(amount) || amount <= 0 || amount > c.amount
          ? C.invalidValue
          : C.success;
    if (code === C.success) c.refundedMinor += amount;
    return signed({ pp_ResponseCode: code, pp_ResponseMessage: jazzCashMessages[code]!, pp_TxnRefNo: r.pp_TxnRefNo! });
  };

  const { disbursement: d } = config;
  const token = (body: string, authorization: string | undefined): Answer => {
    const form = Object.fromEntries(new URLSearchParams(body));
    const basic = `Basic ${Buffer.from(`${d.clientId}:${d.clientSecret}`, 'utf8').toString('base64')}`;
    if (form.grant_type !== 'client_credentials' || authorization !== basic) return { status: 401, json: { error: 'invalid_client' } };
    const t = randomBytes(16).toString('hex');
    tokens.add(t);
    return { status: 200, json: { access_token: t, token_type: 'Bearer', expires_in: 3600 } };
  };
  const encrypted = (payload: unknown): Answer => ({ status: 200, json: { data: disbursementEncrypt(payload, d.aesKey, d.aesIv) } });
  const disburse = (authorization: string | undefined, body: Record<string, string>, inquire: boolean): Answer => {
    if (!tokens.has((authorization ?? '').replace(/^Bearer /, ''))) return { status: 401, json: { error: 'invalid_token' } };
    let req: Record<string, string>;
    try {
      req = disbursementDecrypt<Record<string, string>>(body.data ?? '', d.aesKey, d.aesIv);
    } catch {
      return { status: 400, json: { error: 'payload cannot be decrypted' } };
    }
    if (inquire) {
      const original = req.originalReferenceId ?? '';
      const known = disbursements.get(original);
      if (!known)
        return encrypted({ responseCode: 'G2P-T-404', responseDescription: 'Transaction not found', referenceID: req.referenceID });
      // R7's recorded inquiry answer: capitalised transactionStatus and isReversed.
      return encrypted({
        responseCode: jazzCashDisbursementSuccess,
        responseDescription: known.description,
        referenceID: req.referenceID,
        transactionStatus: known.code === jazzCashDisbursementSuccess ? 'Completed' : 'Failed',
        transactionID: known.transactionId,
        isReversed: '0',
      });
    }
    const ref = req.referenceId ?? '';
    const known = disbursements.get(ref);
    if (known)
      return encrypted({
        responseCode: jazzCashDisbursementDuplicate,
        responseDescription: 'The OriginatorConversationID is duplicated.',
        referenceId: ref,
        transactionID: known.transactionId,
      });
    // The members of R7's recorded transfer (recorded.ts), receiverCNIC 13 digits (R7, D1): else D1's G2P-T-98.
    if (
      requiredBy(recorded.jazzCashDisbursementRequest).some((name) => !req[name]) ||
      !/^03\d{9}$/.test(req.receiverMSISDN ?? '') ||
      !/^\d+\.\d{2}$/.test(req.amount ?? '') ||
      !/^\d{13}$/.test(req.receiverCNIC ?? '')
    )
      return encrypted({ responseCode: 'G2P-T-98', responseDescription: 'Some Parameter is missing or invalid.', referenceId: ref });
    // A CNIC ending 2010 is not the wallet holder's: D1's G2P-T-2010 "The MSISDN don't match with the CNIC".
    const mismatch = req.receiverCNIC!.endsWith('2010');
    const refusedReceiver = req.receiverMSISDN!.endsWith('1111') || mismatch;
    const outcome = mismatch
      ? { code: 'G2P-T-2010', description: 'The MSISDN don’t match with the CNIC.', transactionId: '' }
      : refusedReceiver
        ? { code: jazzCashDisbursementReceiverInvalid, description: 'Receiver is invalid.', transactionId: '' }
        : {
            code: jazzCashDisbursementSuccess,
            description: 'Transaction processed successfully',
            transactionId: randomBytes(6).toString('hex').toUpperCase(),
          };
    disbursements.set(ref, outcome);
    if (!refusedReceiver) paidOut.set(ref, (paidOut.get(ref) ?? 0) + 1);
    const openOutcome = req.receiverMSISDN!.endsWith('5000'); // paid, yet answered as an issue to check before reprocessing
    return encrypted({
      responseCode: openOutcome ? 'G2P-T-500' : outcome.code,
      responseDescription: outcome.description,
      referenceId: ref,
      transactionID: outcome.transactionId,
    });
  };

  const emulator = await startEmulator(
    'jazzcash',
    (x) => {
      switch (x.path) {
        // Both path families (jazzcash-protocol.ts jazzCashPathFamilies) take the same signed fields.
        case P.charge:
        case orchestrator.charge:
          return charge(parseBody(x));
        case P.inquiry:
          return inquiry(parseBody(x), 'applicationApi');
        case orchestrator.inquiry:
          return inquiry(parseBody(x), 'paymentOrchestrator');
        case P.refund:
        case P.cardRefund:
          return refund(parseBody(x), x.path === P.cardRefund);
        case P.token:
          return token(x.body, x.headers.authorization);
        case P.disburse:
        case P.disbursementInquiry:
          return disburse(x.headers.authorization, parseBody(x), x.path === P.disbursementInquiry);
        default:
          return cards.handle(x, parseBody(x)) ?? { status: 404, text: 'not found' };
      }
    },
    { keep: cards.withoutCardData },
  );
  return Object.assign(emulator, { charges, paidOut, cards: cards.cards });
}
