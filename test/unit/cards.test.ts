import { describe, expect, it } from 'vitest';
import { cardBrand, luhnValid, parseExpiry, validateCard } from '#shared/domain/cards.ts';
import { customerRedirectUrl, normaliseWalletNumber } from '#shared/domain/checkout.ts';
import type { PaymentIntent } from '#shared/domain/intent.ts';

const now = new Date('2030-06-15T12:00:00Z');

describe('card rules', () => {
  it('checks the Luhn digit', () => {
    expect(luhnValid('4242424242424242')).toBe(true);
    expect(luhnValid('4000000000000002')).toBe(true);
    expect(luhnValid('4242424242424241')).toBe(false);
    expect(luhnValid('')).toBe(false);
  });

  it('detects the brand by IIN range', () => {
    expect(cardBrand('4242424242424242')).toBe('visa');
    expect(cardBrand('5555555555554444')).toBe('mastercard');
    expect(cardBrand('2223003122003222')).toBe('mastercard');
    expect(cardBrand('378282246310005')).toBe('amex');
    expect(cardBrand('6011111111111117')).toBe('discover');
    expect(cardBrand('3566002020360505')).toBe('jcb');
    expect(cardBrand('9999999999999995')).toBe('card');
  });

  it('parses expiry forms and refuses past months', () => {
    expect(parseExpiry('12/34')).toEqual({ month: 12, year: 2034 });
    expect(parseExpiry('1 / 2031')).toEqual({ month: 1, year: 2031 });
    expect(parseExpiry('0631')).toEqual({ month: 6, year: 2031 });
    expect(parseExpiry('13/30')).toBeUndefined();
    const base = { name: 'A', number: '4242424242424242', cvc: '123' };
    expect(validateCard({ ...base, expiry: '06/30' }, now).ok).toBe(true); // valid through the end of its month
    expect(validateCard({ ...base, expiry: '05/30' }, now)).toEqual({
      ok: false,
      errors: { expiry: 'This card has expired: check the date, or use another card.' },
    });
  });

  it('keeps only brand, last four and expiry; CVC length follows the brand', () => {
    expect(validateCard({ name: 'Ayesha', number: '4242 4242-4242 4242', expiry: '12/34', cvc: '999' }, now)).toEqual({
      ok: true,
      digits: '4242424242424242',
      summary: { brand: 'visa', last4: '4242', expMonth: 12, expYear: 2034 },
    });
    expect(validateCard({ name: 'A', number: '378282246310005', expiry: '12/34', cvc: '123' }, now).ok).toBe(false);
    expect(validateCard({ name: 'A', number: '378282246310005', expiry: '12/34', cvc: '1234' }, now).ok).toBe(true);
  });
});

describe('checkout rules', () => {
  it('accepts wallet numbers in the documented format only', () => {
    expect(normaliseWalletNumber('0300 123 0000')).toBe('03001230000');
    expect(normaliseWalletNumber('+923001230000')).toBe('+923001230000');
    expect(normaliseWalletNumber('3001230000')).toBe('3001230000');
    expect(normaliseWalletNumber('04001230000')).toBeUndefined();
    expect(normaliseWalletNumber('0300123000')).toBeUndefined();
  });

  it('adds paymentIntentId, orderRef and status to the callbackUrl, keeping its own query', () => {
    const intent = {
      paymentIntentId: 'pi',
      orderRef: { orderRef: 'INV1' },
      status: 'Completed',
      callbackUrl: 'https://shop.example/return?x=1&status=old',
    } as PaymentIntent;
    expect(customerRedirectUrl(intent)).toBe('https://shop.example/return?x=1&status=Completed&paymentIntentId=pi&orderRef=INV1');
    expect(customerRedirectUrl({ ...intent, callbackUrl: null })).toBeNull();
  });
});
