import { createHmac } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { easypaisaAmount, easypaisaCredentials } from '#shared/providers/live/easypaisa-protocol.ts';
import {
  disbursementDecrypt,
  disbursementEncrypt,
  jazzCashDateTime,
  jazzCashHashValid,
  jazzCashSecureHash,
  jazzCashTxnRefNo,
} from '#shared/providers/live/jazzcash-protocol.ts';

/**
 * JazzCash's pp_SecureHash as documented (docs/providers/jazzcash.md): HMAC-SHA256 keyed with the
 * integrity salt over "salt&" + the non-empty pp* values sorted by field name, joined by '&'. The
 * documentation we could read gives no worked digest (the public guide's example digest does not
 * match its own input), so the vector is the guide's request with the digest computed here from the
 * documented string, written out independently of the implementation.
 */
const guideRequest = {
  pp_Version: '1.1',
  pp_TxnType: 'MWALLET',
  pp_Language: 'EN',
  pp_MerchantID: 'MYCONTENT5',
  pp_Password: 'h2x1yxctww',
  pp_TxnRefNo: 'T20251217123456',
  pp_Amount: '10000',
  pp_TxnCurrency: 'PKR',
  pp_TxnDateTime: '20251217123456',
  pp_BillReference: 'JC-ORDER-123',
  pp_Description: 'MWallet One Time Payment',
  pp_TxnExpiryDateTime: '20251218123456',
  pp_ReturnURL: 'https://wallets.mycodigital.io/api/v1/jazzcash/callback',
  ppmpf_1: '03123456789',
};
const salt = '440982v92s';
const documentedString =
  '440982v92s&10000&JC-ORDER-123&MWallet One Time Payment&EN&MYCONTENT5&h2x1yxctww&' +
  'https://wallets.mycodigital.io/api/v1/jazzcash/callback&PKR&20251217123456&20251218123456&T20251217123456&MWALLET&1.1&03123456789';

describe('JazzCash pp_SecureHash', () => {
  it('hashes the documented string (sorted pp* values, salt first, joined by &)', () => {
    const expected = createHmac('sha256', salt).update(documentedString).digest('hex');
    expect(expected).toBe('37bd0d99b659497e341f835e7996998136615582fb66144febfc85762150da08');
    expect(jazzCashSecureHash(guideRequest, salt)).toBe(expected);
  });

  it('leaves out empty values and pp_SecureHash itself; other fields do not count', () => {
    const base = jazzCashSecureHash(guideRequest, salt);
    expect(jazzCashSecureHash({ ...guideRequest, pp_SubMerchantID: '', ppmpf_2: '', pp_SecureHash: 'x' }, salt)).toBe(base);
    expect(jazzCashSecureHash({ ...guideRequest, other: 'ignored' }, salt)).toBe(base);
    expect(jazzCashSecureHash({ ...guideRequest, pp_Amount: '10001' }, salt)).not.toBe(base);
  });

  it('verifies a hash in either case and refuses a wrong salt or a changed field', () => {
    const signed = { ...guideRequest, pp_SecureHash: jazzCashSecureHash(guideRequest, salt) };
    expect(jazzCashHashValid(signed, salt)).toBe(true);
    expect(jazzCashHashValid({ ...signed, pp_SecureHash: signed.pp_SecureHash.toUpperCase() }, salt)).toBe(true);
    expect(jazzCashHashValid(signed, 'other-salt')).toBe(false);
    expect(jazzCashHashValid({ ...signed, pp_Amount: '1' }, salt)).toBe(false);
    expect(jazzCashHashValid({ ...guideRequest }, salt)).toBe(false);
  });

  it('formats pp_TxnDateTime in Pakistan time and maps references to 20-character pp_TxnRefNo values', () => {
    expect(jazzCashDateTime(new Date('2025-12-17T07:34:56Z'))).toBe('20251217123456');
    const ref = jazzCashTxnRefNo('chk_0123456789abcdef01234567');
    expect(ref).toMatch(/^T[0-9A-F]{19}$/);
    expect(jazzCashTxnRefNo(ref)).toBe(ref);
    expect(jazzCashTxnRefNo('chk_0123456789abcdef01234567')).toBe(ref);
  });

  it('round-trips the disbursement payload encryption', () => {
    const payload = { receiverMSISDN: '03001230000', amount: '300.00', referenceId: 'WD1' };
    expect(
      disbursementDecrypt(disbursementEncrypt(payload, '0123456789abcdef', 'fedcba9876543210'), '0123456789abcdef', 'fedcba9876543210'),
    ).toEqual(payload);
  });
});

describe('Easypaisa request pieces', () => {
  it('builds the Credentials header and the decimal transactionAmount', () => {
    expect(easypaisaCredentials('user', 'pass')).toBe(Buffer.from('user:pass').toString('base64'));
    expect(easypaisaAmount(123)).toBe('1.23');
    expect(easypaisaAmount(500_00)).toBe('500.00');
    expect(easypaisaAmount(5)).toBe('0.05');
  });
});
