import { createHmac } from 'node:crypto';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { describe, expect, it } from 'vitest';
import { easypaisaWallet } from '#shared/providers/live/easypaisa.ts';
import { easypaisaAmount, easypaisaCredentials } from '#shared/providers/live/easypaisa-protocol.ts';
import { chargeRequestTimeoutMs } from '#shared/providers/wallet-contract.ts';
import { acsForm, jazzCashCards } from '#shared/providers/live/jazzcash-card.ts';
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
 * integrity salt over "salt&" + the non-empty pp* values sorted by field name, joined by '&', in
 * upper-case hex. JazzCash's "HMAC-SHA256 (Hash) Calculation" document gives a worked example with
 * its digest (S8); the second vector is a public guide's request with the digest computed here from
 * the documented string, written out independently of the implementation.
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
  it("matches the worked example of JazzCash's hash document, digest and case included", () => {
    const example = {
      pp_Amount: '25000',
      pp_MerchantID: 'MC25041',
      pp_MerchantMPIN: '1234',
      pp_Password: 'sz1v4agvyf',
      pp_TxnCurrency: 'PKR',
      pp_TxnRefNo: 'T20220518150213',
    };
    expect(jazzCashSecureHash(example, '3vv9wu3a18')).toBe('2C595361C2DA0E502D18BFBAA92CF4740330215E5E8AD0CF4489A64E7400B117');
  });

  it('hashes the documented string (sorted pp* values, salt first, joined by &)', () => {
    const expected = createHmac('sha256', salt).update(documentedString).digest('hex');
    expect(expected).toBe('37bd0d99b659497e341f835e7996998136615582fb66144febfc85762150da08');
    expect(jazzCashSecureHash(guideRequest, salt)).toBe(expected.toUpperCase());
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
    expect(jazzCashHashValid({ ...signed, pp_SecureHash: signed.pp_SecureHash.toLowerCase() }, salt)).toBe(true);
    expect(jazzCashHashValid(signed, 'other-salt')).toBe(false);
    expect(jazzCashHashValid({ ...signed, pp_Amount: '1' }, salt)).toBe(false);
    expect(jazzCashHashValid({ ...guideRequest }, salt)).toBe(false);
  });

  it('verifies an answer carrying the text "null" whether JazzCash hashed it or left it out; a forged one still fails', () => {
    // An answer as JazzCash's side prints a missing value: pp_BankID "null" (and an empty pp_SubMerchantId).
    const answer = { pp_ResponseCode: '000', pp_BankID: 'null', pp_SubMerchantId: '', pp_TxnRefNo: 'T20251217123456', pp_Amount: '10000' };
    const hmac = (text: string) => createHmac('sha256', salt).update(text).digest('hex').toUpperCase();
    // Sorted: pp_Amount, pp_BankID, pp_ResponseCode, pp_SubMerchantId (empty: out), pp_TxnRefNo. Written out by hand.
    const hashed = hmac(`${salt}&10000&null&000&T20251217123456`);
    const leftOut = hmac(`${salt}&10000&000&T20251217123456`);
    expect(jazzCashHashValid({ ...answer, pp_SecureHash: hashed }, salt)).toBe(true);
    expect(jazzCashHashValid({ ...answer, pp_SecureHash: leftOut }, salt)).toBe(true);
    expect(jazzCashHashValid({ ...answer, pp_SecureHash: leftOut.toLowerCase() }, salt)).toBe(true);
    // Leaving "null" out is no way around the salt or the other fields.
    expect(jazzCashHashValid({ ...answer, pp_Amount: '99999', pp_SecureHash: leftOut }, salt)).toBe(false);
    expect(jazzCashHashValid({ ...answer, pp_SecureHash: hmac(`other&10000&000&T20251217123456`) }, salt)).toBe(false);
    // Without any "null" value only the one rule applies: a hash over fewer fields is refused.
    expect(jazzCashHashValid({ ...answer, pp_BankID: '', pp_SecureHash: hmac(`${salt}&10000&T20251217123456`) }, salt)).toBe(false);
    // What we send never leaves anything but empty values out.
    expect(jazzCashSecureHash(answer, salt)).toBe(hashed);
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

/**
 * The card APIs are signed by the same rule. The v4.2 API reference's "Initiate Authentication"
 * sample request (docs/providers/jazzcash.md, S1a) leaves pp_SecureHash empty, so its digest is
 * computed here from the documented string, written out by hand.
 */
describe('JazzCash card requests and the 3-D Secure return', () => {
  const cardSample = {
    pp_Version: '2.0',
    pp_IsRegisteredCustomer: 'Yes',
    pp_ShouldTokenizeCardNumber: 'Yes',
    pp_TxnType: 'MPAY',
    pp_TxnRefNo: 'T20221125153218',
    pp_MerchantID: 'Test00127801',
    pp_Password: '0123456789',
    pp_Amount: '20000',
    pp_TxnCurrency: 'PKR',
    pp_TxnDateTime: '20221125153215',
    pp_TxnExpiryDateTime: '20221202153215',
    pp_BillReference: 'billRef',
    pp_Description: 'Description of transaction',
    pp_CustomerCardNumber: '5123456789012346',
    pp_UsageMode: 'API',
    pp_SecureHash: '',
  };
  const cardString =
    's4ndb0xsalt&20000&billRef&5123456789012346&Description of transaction&Yes&Test00127801&0123456789&Yes&PKR' +
    '&20221125153215&20221202153215&T20221125153218&MPAY&API&2.0';

  it('signs the documented Initiate Authentication sample by the documented rule', () => {
    expect(jazzCashSecureHash(cardSample, 's4ndb0xsalt')).toBe(
      createHmac('sha256', 's4ndb0xsalt').update(cardString).digest('hex').toUpperCase(),
    );
  });

  it('accepts only a return whose pp_* fields carry the right hash; PaRes is required, not signed', () => {
    const cards = jazzCashCards({ baseUrl: 'http://127.0.0.1:9', merchantId: 'M', password: 'p', integritySalt: 'salt', mpin: '1234' });
    const challenge = { providerReference: 'T0000000000000000001', authenticationId: '3DS1', url: 'https://acs.example', fields: {} };
    const verifyReturn = (f: Record<string, string>) => cards.verifyReturn(f, challenge);
    const fields = { pp_TxnRefNo: 'T0000000000000000001', pp_3dSecureID: '3DS1', pp_ResponseCode: '446', pp_ResponseMessage: 'failed' };
    const signed = { ...fields, pp_SecureHash: jazzCashSecureHash(fields, 'salt'), PaRes: 'opaque' };
    expect(verifyReturn(signed)).toEqual({
      providerReference: 'T0000000000000000001',
      authenticationId: '3DS1',
      authenticationResult: 'opaque',
    });
    expect(verifyReturn({ ...signed, pp_ResponseCode: '000' })).toBeUndefined();
    expect(verifyReturn({ ...signed, pp_3dSecureID: '3DS2' })).toBeUndefined();
    expect(verifyReturn({ ...signed, pp_SecureHash: jazzCashSecureHash(fields, 'other') })).toBeUndefined();
    const { PaRes: _, ...withoutPaRes } = signed;
    expect(verifyReturn(withoutPaRes)).toBeUndefined();
  });

  it("takes the ACS's unsigned 3-D Secure 1 return only with the MD of this session's challenge", () => {
    const cards = jazzCashCards({ baseUrl: 'http://127.0.0.1:9', merchantId: 'M', password: 'p', integritySalt: 'salt', mpin: '1234' });
    const challenge = {
      providerReference: 'T0000000000000000001',
      authenticationId: '20190515095244486750',
      url: 'https://acs.example',
      fields: { PaReq: 'req', MD: 'md-of-this-session', TermUrl: 'https://gw.example/pay/x/card-return' },
    };
    expect(cards.verifyReturn({ PaRes: 'opaque', MD: 'md-of-this-session' }, challenge)).toEqual({
      providerReference: 'T0000000000000000001',
      authenticationId: '20190515095244486750',
      authenticationResult: 'opaque',
    });
    expect(cards.verifyReturn({ PaRes: 'opaque', MD: 'md-of-another-session' }, challenge)).toBeUndefined();
    expect(cards.verifyReturn({ PaRes: 'opaque' }, challenge)).toBeUndefined();
    expect(cards.verifyReturn({ PaRes: 'opaque', MD: '' }, { ...challenge, fields: {} })).toBeUndefined();
    expect(cards.verifyReturn({ MD: 'md-of-this-session' }, challenge)).toBeUndefined();
  });
  it("reads the ACS form out of the enrollment answer's aR_Simple_Html: action and fields only, entities decoded", () => {
    const html =
      '<html><body onload="document.forms[0].submit()"><FORM NAME=\'e\' METHOD="post" ACTION="https://acs.bank.example/pa?x=1&amp;y=2">' +
      '<input type="hidden" name="PaReq" value="eJx&#43;ab&#x3D;="/><INPUT name=\'MD\' value=\'2019051509\'>' +
      '<input type=hidden name=TermUrl value=https://sandbox.jazzcash.com.pk/term></form><script>alert(1)</script></body></html>';
    expect(acsForm(html)).toEqual({
      url: 'https://acs.bank.example/pa?x=1&y=2',
      fields: { PaReq: 'eJx+ab==', MD: '2019051509', TermUrl: 'https://sandbox.jazzcash.com.pk/term' },
    });
    expect(acsForm('')).toBeUndefined();
    expect(acsForm('<form action="javascript:alert(1)"><input name="a" value="b"></form>')).toBeUndefined();
    expect(acsForm('<form method="post"><input name="PaReq" value="x"></form>')).toBeUndefined();
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

describe('Easypaisa charge request bound', () => {
  it("waits at most chargeRequestTimeoutMs whatever is configured (the Lambda's 10 s must still record it): unanswered, Pending", {
    timeout: 20_000,
  }, async () => {
    // 10 s is every gateway route's Lambda timeout (infra/gateway-function.ts, test/infra/stack.test.ts); recording the
    // charge after the call needs a few seconds of it.
    expect(chargeRequestTimeoutMs).toBeLessThanOrEqual(10_000 - 3_000);
    const server = createServer(() => {}); // takes the request, never answers (Easypaisa waiting for the handset)
    await new Promise<void>((ok) => server.listen(0, '127.0.0.1', ok));
    try {
      const adapter = easypaisaWallet({
        baseUrl: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
        username: 'u',
        password: 'p',
        storeId: '1',
        emailAddress: 'a@example.com',
        accountNum: '1',
        timeoutMs: 60_000,
      });
      const started = Date.now();
      const answer = await adapter.startCharge(
        { reference: 'ref-1', mobileNumber: '03451230000', amountMinor: 500_00, currency: 'PKR' },
        new Date(),
      );
      expect(Date.now() - started).toBeLessThan(chargeRequestTimeoutMs + 1_500);
      expect(answer).toMatchObject({ accepted: true, status: 'Pending', unanswered: true, providerReference: 'ref1' });
    } finally {
      server.closeAllConnections();
      await new Promise((ok) => server.close(ok));
    }
  });
});
