import { createCipheriv, createDecipheriv, createHash, createHmac, timingSafeEqual } from 'node:crypto';

/**
 * JazzCash's published protocol pieces shared by the live adapters and the local emulator
 * (docs/providers/jazzcash.md names the source of each detail and marks every guess).
 */

/**
 * pp_SecureHash: HMAC-SHA256 keyed with the integrity salt over
 *   salt & value1 & value2 ...
 * where the values are those of every field whose name starts with `pp` (pp_*, ppmpf_*, ppmbf_*),
 * except pp_SecureHash, sorted by field name (ordinal), empty values left out; upper-case hex, as
 * JazzCash's "HMAC-SHA256 (Hash) Calculation" document's worked example (its digest is pinned in
 * test/unit/live-provider-protocols.test.ts).
 */
export function jazzCashSecureHash(
  fields: Record<string, string | undefined>,
  integritySalt: string,
  options: { leaveOutNullText?: boolean; alsoHashed?: readonly string[] } = {},
): string {
  const values = Object.keys(fields)
    .filter((k) => (k.startsWith('pp') || options.alsoHashed?.includes(k)) && k !== 'pp_SecureHash')
    .sort()
    .map((k) => fields[k] ?? '')
    .filter((v) => v !== '' && !(options.leaveOutNullText && v === 'null'));
  return createHmac('sha256', integritySalt)
    .update([integritySalt, ...values].join('&'), 'utf8')
    .digest('hex')
    .toUpperCase();
}

/** Equal texts, compared in constant time. */
export function sameText(a: string, b: string): boolean {
  const x = Buffer.from(a, 'utf8');
  const y = Buffer.from(b, 'utf8');
  return x.length === y.length && timingSafeEqual(x, y);
}

/**
 * Compares a received pp_SecureHash (either case) with the one the fields deserve. A field whose value is the text
 * "null" (a JSON null printed by JazzCash's side) is hashed as any value, or, if that does not match, left out as an
 * empty one: R6 leaves "null" out of its answer hashes, other readings hash it (docs/providers/jazzcash.md, Secure
 * hash). Both are HMACs under the integrity salt, so accepting either lets nobody without the salt forge one; our
 * requests never carry "null".
 */
export function jazzCashHashValid(fields: Record<string, string | undefined>, integritySalt: string): boolean {
  const received = (fields.pp_SecureHash ?? '').toUpperCase();
  if (sameText(received, jazzCashSecureHash(fields, integritySalt))) return true;
  const hasNullText = Object.keys(fields).some((k) => k.startsWith('pp') && k !== 'pp_SecureHash' && fields[k] === 'null');
  return hasNullText && sameText(received, jazzCashSecureHash(fields, integritySalt, { leaveOutNullText: true }));
}

/** yyyyMMddHHmmss in Pakistan time (UTC+5, no daylight saving), as pp_TxnDateTime wants. */
export function jazzCashDateTime(at: Date): string {
  return new Date(at.getTime() + 5 * 3_600_000)
    .toISOString()
    .replace(/[^0-9]/g, '')
    .slice(0, 14);
}

/**
 * pp_TxnRefNo (at most 20 letters and digits: docs/providers/jazzcash.md): a reference already in that form is
 * used as is; any other gateway reference is mapped deterministically, so a refund can find the
 * charge from the payment's transactionReference alone.
 */
export function jazzCashTxnRefNo(reference: string): string {
  if (/^T[0-9A-F]{19}$/.test(reference)) return reference;
  return `T${createHash('sha256').update(reference).digest('hex').slice(0, 19).toUpperCase()}`;
}

/** Response codes of the JazzCash payment gateway (Sandbox documentation, "Resources", S2 in docs/providers/jazzcash.md). */
export const jazzCashCodes = {
  success: '000',
  limitExceeded: '001',
  accountNotFound: '002',
  accountInactive: '003',
  lowBalance: '004',
  hostLinkDown: '055',
  timedOut: '058',
  rejectedByHost: '059',
  hostOffline: '062',
  invalidCredentials: '101',
  exceedsMerchantLimit: '105',
  transactionDoesNotExist: '109',
  invalidValue: '110',
  notAllowed: '111',
  cancelledByUser: '112',
  invalidHash: '115',
  expired: '116',
  maintenance: '118',
  /** "Transaction has been marked confirmed by Merchant": mapped to Completed by S2 (an inquiry answer, R3). */
  confirmedByMerchant: '121',
  dropped: '129',
  /** "Transaction is Refunded": the payment's refund is done (one refund per payment, see refundOnce). */
  refunded: '131',
  pending: '157',
  /**
   * "declined due to duplication": S2's only duplication code; the emulator's answer to a repeated pp_TxnRefNo (none
   * recorded; the adapter relies on no duplicate code).
   */
  duplicate: '422',
  multiplePartialRefunds: '451',
  partialRefundNotAllowed: '454',
} as const;

export const jazzCashMessages: Record<string, string> = {
  '000': 'Thank you for Using JazzCash, your transaction was successful.',
  '001': 'Limit exceeded',
  '002': 'Account not found',
  '003': 'Account inactive',
  '004': 'Low balance',
  '055': 'Host link down',
  '058': 'Transaction timed out',
  '059': 'Transaction rejected by host',
  '062': 'Host offline',
  '101': 'Invalid merchant credentials.',
  '105': 'Transaction exceeds merchant per transaction limit.',
  '109': 'Transaction does not exist',
  '110': 'Invalid value for field',
  '111': 'Transaction not allowed on Merchant/Bank.',
  '112': 'Transaction Cancelled by User.',
  '115': 'Invalid hash received.',
  '116': 'Transaction Expired',
  '118': 'Transaction not allowed due to maintenance.',
  '121': 'Transaction has been marked confirmed by Merchant.',
  '129': 'Transaction is dropped.',
  '131': 'Transaction is Refunded',
  '157': 'Transaction is pending.',
  '405': 'Your transaction was declined because of insufficient balance in your card',
  '415': 'Your 3D Secure ID verification was failed, please use correct ID and try again.',
  '419': 'Your Card is not enrolled in 3D secure, please contact your bank and active your 3D secure ID',
  '422': 'Your transaction was declined due to duplication, please try again',
  '446': 'Authentication_failed',
  '451': 'Multiple partial refunds are not allowed.',
  '453': 'Sorry! Your transaction was declined because of insufficient account balance',
  '454': 'Partial refund is not allowed.',
};

/** pp_PaymentResponseCode values S2 maps to "Completed": the payment was taken. */
export const jazzCashPaid = new Set<string>(['000', '121']);

/** Codes that mean the provider could not take the request now (try again later), not a refusal. */
export const jazzCashUnavailable = new Set<string>(['055', '058', '062', '118']);

/** The disbursement API's success code (R7 and two further clients, docs/providers/jazzcash.md). */
export const jazzCashDisbursementSuccess = 'G2P-T-0';

/** A repeated referenceId: "The OriginatorConversationID is duplicated" (D1's G2P-T table, docs/providers/jazzcash.md). */
export const jazzCashDisbursementDuplicate = 'G2P-T-13';
/** A receiver JazzCash does not know: "Receiver is invalid" (D1). */
export const jazzCashDisbursementReceiverInvalid = 'G2P-T-2001';
/**
 * Answers after which a transfer may have happened (D1: internal error, busy, "contact JazzCash before
 * reprocessing") and a repeated reference: the inquiry decides; never refused (and so paid again) on one.
 */
export const jazzCashDisbursementUnknown = new Set<string>([
  jazzCashDisbursementDuplicate,
  'G2P-T--1',
  'G2P-T-1',
  'G2P-T-99',
  'G2P-T-205',
  'G2P-T-500',
]);

/**
 * The disbursement API's payload encryption: AES-128-CBC with the key and IV issued to the
 * merchant (both used as UTF-8 bytes), the JSON payload as hex in `{"data": ...}`, answers the
 * same way (R7, backend/src/utils/enc_dec.ts).
 */

export function disbursementEncrypt(payload: unknown, key: string, iv: string): string {
  const cipher = createCipheriv('aes-128-cbc', Buffer.from(key, 'utf8'), Buffer.from(iv, 'utf8'));
  return Buffer.concat([cipher.update(JSON.stringify(payload), 'utf8'), cipher.final()]).toString('hex');
}

export function disbursementDecrypt<T>(data: string, key: string, iv: string): T {
  const decipher = createDecipheriv('aes-128-cbc', Buffer.from(key, 'utf8'), Buffer.from(iv, 'utf8'));
  return JSON.parse(Buffer.concat([decipher.update(Buffer.from(data, 'hex')), decipher.final()]).toString('utf8')) as T;
}

/** The disbursement API's path prefix (D1, D2; R7 for bank transfers). */
const thirdParty = '/jazzcash/third-party-integration/';

/** Endpoint paths (relative to the configured base URLs). */
export const jazzCashPaths = {
  charge: '/ApplicationAPI/API/2.0/Purchase/DoMWalletTransaction',
  inquiry: '/ApplicationAPI/API/PaymentInquiry/Inquire',
  refund: '/ApplicationAPI/API/Purchase/domwalletrefundtransaction',
  token: '/token',
  // MW disbursement (docs/providers/jazzcash.md, Payouts): the transfer as D1 and R7b call it, the inquiry as D2 and R7b
  disburse: `${thirdParty}srv6/api/wso2/mw/payment`,
  disbursementInquiry: `${thirdParty}srv1/api/wso2/transactionStatus`,
  // Card APIs, version 2.0 (docs/providers/jazzcash.md, Cards with 3-D Secure)
  cardEnrollment: '/ApplicationAPI/API/2.0/Purchase/Check3DsEnrollment',
  cardProcessAcs: '/ApplicationAPI/API/ProcessACS', // R1 (README), the only source naming it: no version segment
  cardAuthorize: '/ApplicationAPI/API/2.0/authorize/AuthorizePayment',
  cardCapture: '/ApplicationAPI/API/2.0/authorize/Capture',
  // Refund and Void without the version segment: R1 (README), the code-index clients (docs/providers/jazzcash.md)
  cardRefund: '/ApplicationAPI/API/authorize/Refund',
  cardVoid: '/ApplicationAPI/API/authorize/Void',
} as const;

/**
 * The two path families of JazzCash's wallet APIs (docs/providers/jazzcash.md, "Path family"), chosen per merchant
 * account by `jazzcash.pathFamily` in the live configuration:
 *   applicationApi       …/ApplicationAPI/API/… on payments.jazzcash.com.pk (S1, S3, R1, R3, R4, R6, CI): the default;
 *   paymentOrchestrator  …/payment-orchestrator/api/v2/rest/payments/… on onlinepayments.jazzcash.com.pk (S9 and the
 *                        2025-26 integrations: the v2.0 CNIC wallet charge `m-wallet`, the `status/inquiry`).
 * No public source shows the orchestrator's refund paths: a merchant on it gives them (`jazzcash.paths.refund`,
 * `paths.cardRefund`, from JazzCash's onboarding documents); without them live refunds are refused (422), never guessed.
 */
export type JazzCashPathFamily = 'applicationApi' | 'paymentOrchestrator';
export type JazzCashFamilyPaths = { charge: string; inquiry: string; refund?: string; cardRefund?: string };
export const jazzCashPathFamilies: Record<JazzCashPathFamily, JazzCashFamilyPaths> = {
  applicationApi: {
    charge: jazzCashPaths.charge,
    inquiry: jazzCashPaths.inquiry,
    refund: jazzCashPaths.refund,
    cardRefund: jazzCashPaths.cardRefund,
  },
  paymentOrchestrator: {
    charge: '/payment-orchestrator/api/v2/rest/payments/m-wallet',
    inquiry: '/payment-orchestrator/api/v2/rest/payments/status/inquiry',
  },
};

/**
 * The card API paths. Where the sources disagree an operator setting chooses (`jazzcash.cards`, docs/providers/jazzcash.md,
 * "Cards with 3-D Secure"): `versionSegment` (default true) puts `2.0/` in the enrollment, authorize and capture paths as
 * the C# and Node code-index clients do; false drops it as R1's README does. `paths` overrides single ones (ProcessACS's
 * only source is R1's README).
 */
export type JazzCashCardPath = 'enrollment' | 'processAcs' | 'authorize' | 'capture' | 'void';
export interface JazzCashCardSettings {
  versionSegment?: boolean;
  /** An open guess (docs/providers/jazzcash.md, Open guesses): the enrollment carries pp_ReturnURL (default true). */
  enrollmentReturnUrl?: boolean;
  /** An open guess: the 3-D Secure id's name on AuthorizePayment (default pp_3dSecureID, as R1's ProcessACS). */
  secureIdField?: 'pp_3dSecureID' | 'pp_3DSecureID' | 'pp_C3DSecureID';
  /** R1 hashes `paRes` with the ProcessACS fields; S1/S8's rule hashes `pp*` fields only (the default, false). */
  hashPaRes?: boolean;
  paths?: Partial<Record<JazzCashCardPath, string>>;
}
export function jazzCashCardPaths(settings: JazzCashCardSettings = {}): Record<JazzCashCardPath, string> {
  const unversioned = (path: string) => (settings.versionSegment === false ? path.replace('/API/2.0/', '/API/') : path);
  return {
    enrollment: unversioned(jazzCashPaths.cardEnrollment),
    processAcs: jazzCashPaths.cardProcessAcs,
    authorize: unversioned(jazzCashPaths.cardAuthorize),
    capture: unversioned(jazzCashPaths.cardCapture),
    void: jazzCashPaths.cardVoid,
    ...settings.paths,
  };
}

/**
 * pp_Version of the payment inquiry per family: R3's recorded ApplicationAPI request carries "1.1" (its test pins the
 * hash; R1's status fields agree), S9's Payment Orchestrator requests carry none.
 */
export const jazzCashInquiryVersion: Record<JazzCashPathFamily, string | undefined> = {
  applicationApi: '1.1',
  paymentOrchestrator: undefined,
};

/**
 * An open guess (docs/providers/jazzcash.md, Open guesses): what the payment inquiry answers for states no recorded answer
 * shows, case-insensitive; `jazzcash.inquiryStates` replaces any list.
 */
export interface JazzCashInquiryStates {
  /** pp_PaymentResponseCode of a refunded payment (S2's 131). */
  refundedCodes: string[];
  /** pp_Status of a refunded payment. */
  refundedStatuses: string[];
  /** pp_Status of a card payment authorised and not captured. */
  authorizedStatuses: string[];
  /** pp_Status of a card payment captured (R3 and S9 record Completed). */
  capturedStatuses: string[];
}
export const jazzCashInquiryStates = (given: Partial<JazzCashInquiryStates> = {}): JazzCashInquiryStates => ({
  refundedCodes: ['131'],
  refundedStatuses: ['Refunded'],
  authorizedStatuses: ['Authorized', 'Authorised'],
  capturedStatuses: ['Captured', 'Completed'],
  ...given,
});
/** Whether `value` is one of `list`, without case. */
export const oneOf = (value: string | undefined, list: readonly string[]) =>
  value !== undefined && value !== '' && list.some((v) => v.toLowerCase() === value.toLowerCase());

/** Card response codes of S2 the card adapter maps (docs/providers/jazzcash.md, Cards with 3-D Secure). */
export const jazzCashCardCodes = {
  /** 415 "3D Secure ID verification was failed", 446 "Authentication_failed". */
  authenticationFailed: new Set<string>(['415', '446']),
  /** 004 low balance (wallets), 405 and 453 insufficient balance (cards). */
  insufficientFunds: new Set<string>(['004', '405', '453']),
  /** 419 not enrolled, 433/434 not enrolled, 448 card does not support 3-D Secure. */
  notEnrolled: new Set<string>(['419', '433', '434', '448']),
} as const;

/** pp_TxnType of card transactions (MPAY, Sandbox documentation) and of wallet ones. */
export const jazzCashTxnTypes = { card: 'MPAY', wallet: 'MWALLET' } as const;
