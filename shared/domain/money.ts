import { BusinessRuleError, DomainError } from './errors.ts';
/**
 * Money is an integer count of the currency's minor unit (docs/merchant-guide.md, Endpoints: Money). JSON carries decimals;
 * they are converted here, by string arithmetic, never by floating-point multiplication.
 */
export const currencyExponents = {
  PKR: 2,
  USD: 2,
  EUR: 2,
  GBP: 2,
  AED: 2,
  SAR: 2,
  USDT: 6,
} as const;

export type Currency = keyof typeof currencyExponents;

export function isSupportedCurrency(code: string): code is Currency {
  return Object.hasOwn(currencyExponents, code);
}

export class MoneyFormatError extends Error {}

const plainDecimal = /^(\d+)(?:\.(\d+))?$/;

/** The largest amount the gateway takes, in minor units: every amount is a safe integer (toMinor refuses more). */
export const largestAmountMinor = Number.MAX_SAFE_INTEGER;

/**
 * Decimal amount (as JSON delivered it) → minor units. Throws MoneyFormatError when the amount is
 * negative, not finite, in exponent form, has more decimals than the currency allows, or does not
 * fit a safe integer.
 */
export function toMinor(amount: number, currency: Currency): number {
  if (!Number.isFinite(amount)) throw new MoneyFormatError('must be a finite number');
  const match = plainDecimal.exec(String(amount));
  if (!match) throw new MoneyFormatError('must be a non-negative decimal number');
  const exponent = currencyExponents[currency];
  const fraction = match[2] ?? '';
  if (fraction.length > exponent) {
    throw new MoneyFormatError(`${currency} allows at most ${exponent} decimal places`);
  }
  const minor = Number(`${match[1]}${fraction.padEnd(exponent, '0')}`);
  if (!Number.isSafeInteger(minor) || minor > largestAmountMinor) throw new MoneyFormatError('is too large');
  return minor;
}

/** Minor units → the decimal number a merchant sees in JSON (parsed from its exact digits). */
export function fromMinor(minor: number, currency: Currency): number {
  assertMinor(minor);
  const exponent: number = currencyExponents[currency];
  const digits = String(Math.abs(minor)).padStart(exponent + 1, '0');
  const text = exponent === 0 ? digits : `${digits.slice(0, -exponent)}.${digits.slice(-exponent)}`;
  return Number(minor < 0 ? `-${text}` : text);
}

export function assertMinor(minor: number): void {
  if (!Number.isSafeInteger(minor)) throw new RangeError(`not a safe integer amount: ${minor}`);
}

/** Fee in minor units: percentage in basis points (rounded half up) plus a fixed part. */
export function feeFor(amountMinor: number, fee: { basisPoints: number; fixedMinor: number }): number {
  assertMinor(amountMinor);
  const proportional = (BigInt(amountMinor) * BigInt(fee.basisPoints) + 5_000n) / 10_000n;
  const total = Number(proportional) + fee.fixedMinor;
  assertMinor(total);
  return total;
}

/** A decimal amount in the currency's minor units; too many decimals is a 400 on `field` (docs/merchant-guide.md, Endpoints: Money). */
export function minorUnits(value: number, currency: Currency, field = 'amount'): number {
  // A well-formed amount that is zero or negative breaks an amount limit: 422 (docs/merchant-guide.md, Errors).
  if (value <= 0) throw new BusinessRuleError(`${field} must be greater than 0.`, 'amount_below_minimum');
  try {
    return toMinor(value, currency);
  } catch (error) {
    if (error instanceof MoneyFormatError)
      throw new DomainError('invalid', `${field} ${error.message}.`, { errors: { [field]: [error.message] } });
    throw error;
  }
}

/** How the API speaks money, for the reference and the SDK's types: decimal major units, never minor units. */
export const amountDescription =
  "A decimal amount in the currency's major unit: 1500 is 1,500.00 and 12.5 is 12.50 (PKR and USD: at most 2 decimals, " +
  'USDT: 6). Not minor units; the gateway stores integer minor units internally.';

/** An amount as customers read it on the hosted pages: `PKR 1,500.00` (grouped, the currency's decimals). */
export function formatMoney(minor: number, currency: keyof typeof currencyExponents): string {
  const exponent = currencyExponents[currency];
  const digits = String(Math.abs(minor)).padStart(exponent + 1, '0');
  const whole = digits.slice(0, digits.length - exponent).replace(/\B(?=(\d{3})+(?!\d))/g, ',');
  return `${currency} ${minor < 0 ? '-' : ''}${whole}${exponent ? `.${digits.slice(-exponent)}` : ''}`;
}
