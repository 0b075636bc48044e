import type { CardSummary } from './intent.ts';

/**
 * Card details as a customer types them on the hosted checkout page. Pure rules (Luhn, brand,
 * expiry, CVC). The number and CVC only ever live in the request being processed: what is kept is
 * the CardSummary (brand, last four, expiry month and year). Error messages never echo the input.
 */
export interface CardInput {
  name: string;
  number: string;
  expiry: string;
  cvc: string;
}

export type CardErrors = Partial<Record<keyof CardInput, string>>;

export function luhnValid(digits: string): boolean {
  let sum = 0;
  for (let i = 0; i < digits.length; i++) {
    let d = digits.charCodeAt(digits.length - 1 - i) - 48;
    if (i % 2 === 1) {
      d *= 2;
      if (d > 9) d -= 9;
    }
    sum += d;
  }
  return digits.length > 0 && sum % 10 === 0;
}

/** Brand by IIN range (the public ranges of the major schemes); `card` when none matches. */
export function cardBrand(digits: string): string {
  const p2 = Number(digits.slice(0, 2));
  const p3 = Number(digits.slice(0, 3));
  const p4 = Number(digits.slice(0, 4));
  const p6 = Number(digits.slice(0, 6));
  if (digits.startsWith('4')) return 'visa';
  if ((p2 >= 51 && p2 <= 55) || (p4 >= 2221 && p4 <= 2720)) return 'mastercard';
  if (p2 === 34 || p2 === 37) return 'amex';
  if (p4 === 6011 || p2 === 65 || (p3 >= 644 && p3 <= 649) || (p6 >= 622126 && p6 <= 622925)) return 'discover';
  if (p4 >= 3528 && p4 <= 3589) return 'jcb';
  if (p2 === 36 || p2 === 38 || p2 === 39 || (p3 >= 300 && p3 <= 305) || p3 === 309) return 'diners';
  if (p2 === 62) return 'unionpay';
  return 'card';
}

/** `MM/YY`, `MM / YY`, `MM/YYYY`, `MMYY` → month and four-digit year, or undefined. */
export function parseExpiry(text: string): { month: number; year: number } | undefined {
  const m = /^\s*(\d{1,2})\s*(?:[/\-. ]\s*)?(\d{2}|\d{4})\s*$/.exec(text);
  if (!m) return undefined;
  const month = Number(m[1]);
  const year = m[2]!.length === 2 ? 2000 + Number(m[2]) : Number(m[2]);
  if (month < 1 || month > 12) return undefined;
  return { month, year };
}

/** A card is valid through the last day of its expiry month (UTC). */
export function expired(expiry: { month: number; year: number }, now: Date): boolean {
  return Date.UTC(expiry.year, expiry.month, 1) <= now.getTime();
}

export type ValidCard = { ok: true; digits: string; summary: CardSummary } | { ok: false; errors: CardErrors };

export function validateCard(input: CardInput, now: Date): ValidCard {
  const errors: CardErrors = {};
  const name = input.name.trim();
  if (name.length < 1 || name.length > 100) errors.name = 'Enter the name on the card.';
  const digits = input.number.replace(/[\s-]/g, '');
  const brand = cardBrand(digits);
  if (!digits) errors.number = 'Enter the card number.';
  else if (!/^\d+$/.test(digits)) errors.number = 'A card number has digits only (spaces are fine): check what you typed.';
  else if (!/^\d{12,19}$/.test(digits)) errors.number = `A card number has 12 to 19 digits; you typed ${digits.length}.`;
  else if (!luhnValid(digits)) errors.number = 'That card number is not valid: check for a mistyped digit.';
  const expiry = parseExpiry(input.expiry);
  if (!expiry) errors.expiry = 'Enter the expiry date as MM/YY.';
  else if (expired(expiry, now)) errors.expiry = 'This card has expired: check the date, or use another card.';
  else if (expiry.year > now.getUTCFullYear() + 20) errors.expiry = 'Enter a valid expiry date.';
  const cvcLength = brand === 'amex' ? [4] : [3, 4];
  const cvc = input.cvc.trim();
  if (!/^\d+$/.test(cvc) || !cvcLength.includes(cvc.length))
    errors.cvc = brand === 'amex' ? 'Enter the 4-digit security code.' : 'Enter the 3 or 4-digit security code.';
  if (Object.keys(errors).length > 0 || !expiry) return { ok: false, errors };
  return { ok: true, digits, summary: { brand, last4: digits.slice(-4), expMonth: expiry.month, expYear: expiry.year } };
}
