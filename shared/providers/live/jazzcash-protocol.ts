import { createCipheriv, createDecipheriv, createHash, createHmac, timingSafeEqual } from 'node:crypto';

/**
 * JazzCash's published protocol pieces shared by the live adapters and the local emulator
 * (docs/providers/jazzcash.md names the source of each detail and marks every guess).
 */

/**
 * pp_SecureHash: HMAC-SHA256 keyed with the integrity salt over
 *   salt & value1 & value2 ...
 * where the values are those of every field whose name starts with `pp` (pp_* and ppmpf_*),
 * except pp_SecureHash, sorted by field name (ordinal), empty values left out; lower-case hex.
 */
export function jazzCashSecureHash(fields: Record<string, string | undefined>, integritySalt: string): string {
  const values = Object.keys(fields)
    .filter((k) => k.startsWith('pp') && k !== 'pp_SecureHash')
    .sort()
    .map((k) => fields[k] ?? '')
    .filter((v) => v !== '');
  return createHmac('sha256', integritySalt)
    .update([integritySalt, ...values].join('&'), 'utf8')
    .digest('hex');
}

/** Compares a received pp_SecureHash (either case) with the one the fields deserve. */
export function jazzCashHashValid(fields: Record<string, string | undefined>, integritySalt: string): boolean {
  const given = Buffer.from((fields.pp_SecureHash ?? '').toLowerCase(), 'utf8');
  const expected = Buffer.from(jazzCashSecureHash(fields, integritySalt), 'utf8');
  return given.length === expected.length && timingSafeEqual(given, expected);
}

/** yyyyMMddHHmmss in Pakistan time (UTC+5, no daylight saving), as pp_TxnDateTime wants. */
export function jazzCashDateTime(at: Date): string {
  return new Date(at.getTime() + 5 * 3_600_000)
    .toISOString()
    .replace(/[^0-9]/g, '')
    .slice(0, 14);
}

/**
 * pp_TxnRefNo (at most 20 characters, letters and digits): a reference already in that form is
 * used as is; any other gateway reference is mapped deterministically, so a refund can find the
 * charge from the payment's transactionReference alone.
 */
export function jazzCashTxnRefNo(reference: string): string {
  if (/^T[0-9A-F]{19}$/.test(reference)) return reference;
  return `T${createHash('sha256').update(reference).digest('hex').slice(0, 19).toUpperCase()}`;
}

/** Response codes of the JazzCash payment gateway (Sandbox documentation, "Resources"). */
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
  duplicate: '124', // GUESS: the code JazzCash gives to a repeated pp_TxnRefNo is not in the published table we found.
  pending: '157',
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
  '124': 'Duplicate transaction reference.',
  '157': 'Transaction is pending.',
  '125': '3D Secure authentication failed.',
  '126': 'Transaction already captured.',
};

/** Codes that mean the provider could not take the request now (try again later), not a refusal. */
export const jazzCashUnavailable = new Set<string>(['055', '058', '062', '118']);

/** The disbursement API's success code (GUESS from memory of the MW Disbursement API 2.0 document). */
export const jazzCashDisbursementSuccess = 'G2P-T-0';

/**
 * The disbursement API's payload encryption (GUESS at the cipher: the MW Disbursement API 2.0
 * document describes an encryption layer with a key and IV issued to the merchant; AES-128-CBC,
 * hex, is what we implement and what the emulator expects).
 */

export function disbursementEncrypt(payload: unknown, key: string, iv: string): string {
  const cipher = createCipheriv('aes-128-cbc', Buffer.from(key, 'utf8'), Buffer.from(iv, 'utf8'));
  return Buffer.concat([cipher.update(JSON.stringify(payload), 'utf8'), cipher.final()]).toString('hex');
}

export function disbursementDecrypt<T>(data: string, key: string, iv: string): T {
  const decipher = createDecipheriv('aes-128-cbc', Buffer.from(key, 'utf8'), Buffer.from(iv, 'utf8'));
  return JSON.parse(Buffer.concat([decipher.update(Buffer.from(data, 'hex')), decipher.final()]).toString('utf8')) as T;
}

/** Endpoint paths (relative to the configured base URLs). */
export const jazzCashPaths = {
  charge: '/ApplicationAPI/API/2.0/Purchase/DoMWalletTransaction',
  inquiry: '/ApplicationAPI/API/PaymentInquiry/Inquire',
  refund: '/ApplicationAPI/API/Purchase/domwalletrefundtransaction',
  token: '/token',
  disburse: '/rest/api/wso2/v1/disbursement/mw-to-mw',
  disbursementInquiry: '/rest/api/wso2/v1/disbursement/inquiry',
  // Card APIs, version 2.0 (docs/providers/jazzcash.md, Cards with 3-D Secure)
  cardEnrollment: '/ApplicationAPI/API/2.0/Purchase/Check3DsEnrollment',
  cardProcessAcs: '/ApplicationAPI/API/2.0/ProcessACS',
  cardAuthorize: '/ApplicationAPI/API/2.0/authorize/AuthorizePayment',
  cardCapture: '/ApplicationAPI/API/2.0/authorize/Capture',
  cardRefund: '/ApplicationAPI/API/2.0/authorize/Refund',
} as const;

/**
 * Card response codes the published table does not list (GUESSES, docs/providers/jazzcash.md):
 * the code of a failed 3-D Secure authentication, and that of a capture already done.
 */
export const jazzCashCardCodes = {
  authenticationFailed: '125',
  alreadyCaptured: '126',
} as const;

/** pp_TxnType of card transactions (MPAY, Sandbox documentation) and of wallet ones. */
export const jazzCashTxnTypes = { card: 'MPAY', wallet: 'MWALLET' } as const;
