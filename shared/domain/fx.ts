import { currencyExponents, type Currency } from './money.ts';

/**
 * Foreign exchange for settlements, in integers only. A rate is a decimal STRING (never a float):
 * how many units of the payout currency one unit of the source currency buys, e.g. PKR→USDT
 * "0.00359712". It is held as a scaled integer (`units / 10^scale`) and applied with bigint:
 *
 *   payoutMinor = floor(netMinor × units × 10^exp(payout) / (10^scale × 10^exp(source)))
 *
 * Rounding rule: DOWN to the payout currency's minor unit (never pay out more than the net amount
 * converts to; the merchant loses less than one minor unit of the payout currency).
 */
export interface FxQuote {
  from: Currency;
  to: Currency;
  /** Decimal string, at most 12 decimals, > 0. */
  rate: string;
  /** When the source produced the rate (ISO 8601). */
  at: string;
}

export interface RateSource {
  /** The current rate from → to, or undefined when the source has none for that pair. */
  quote(from: Currency, to: Currency, now: Date): Promise<FxQuote | undefined>;
}

const rateShape = /^(\d{1,12})(?:\.(\d{1,12}))?$/;

export function parseRate(rate: string): { units: bigint; scale: number } {
  const m = rateShape.exec(rate);
  if (!m) throw new RangeError(`not a decimal rate: ${rate}`);
  const fraction = m[2] ?? '';
  const units = BigInt(`${m[1]}${fraction}`);
  if (units === 0n) throw new RangeError('a rate must be positive');
  return { units, scale: fraction.length };
}

export function isRate(rate: string): boolean {
  try {
    parseRate(rate);
    return true;
  } catch {
    return false;
  }
}

/** Converts a minor-unit amount with a decimal rate, rounding down (see above). */
export function convertMinor(amountMinor: number, from: Currency, to: Currency, rate: string): number {
  if (!Number.isSafeInteger(amountMinor) || amountMinor < 0) throw new RangeError(`not a minor amount: ${amountMinor}`);
  const { units, scale } = parseRate(rate);
  const numerator = BigInt(amountMinor) * units * 10n ** BigInt(currencyExponents[to]);
  const denominator = 10n ** BigInt(scale + currencyExponents[from]);
  const out = numerator / denominator; // bigint division truncates: both are non-negative, so this is floor
  if (out > BigInt(Number.MAX_SAFE_INTEGER)) throw new RangeError('converted amount is too large');
  return Number(out);
}

/** a / b as a decimal string with `places` decimals, rounded half up (bigint; a, b scaled alike). */
function divide(a: bigint, b: bigint, places: number): string {
  const scaled = (a * 10n ** BigInt(places) * 2n + b) / (2n * b);
  const digits = scaled.toString().padStart(places + 1, '0');
  const text = `${digits.slice(0, -places)}.${digits.slice(-places)}`.replace(/\.?0+$/, '');
  return text;
}

/**
 * The sandbox rate table (test mode). Each currency's value in US dollars, as decimal strings;
 * the rate from → to is value(from) / value(to), rounded half up to 8 decimals. Fixed, so tests
 * and merchants can predict every payout (docs/merchant-guide.md "Settlements", FX).
 */
export const sandboxUsdValues: Record<Currency, string> = {
  USD: '1',
  USDT: '1.0008',
  PKR: '0.0036',
  EUR: '1.08',
  GBP: '1.27',
  AED: '0.2723',
  SAR: '0.2667',
};

export function sandboxRate(from: Currency, to: Currency): string {
  const a = parseRate(sandboxUsdValues[from]);
  const b = parseRate(sandboxUsdValues[to]);
  const scale = Math.max(a.scale, b.scale);
  return divide(a.units * 10n ** BigInt(scale - a.scale), b.units * 10n ** BigInt(scale - b.scale), 8);
}

/** Test mode's rate source: the fixed table above, stamped with the time it is asked. */
export const sandboxRateSource: RateSource = {
  quote: async (from, to, now) => ({ from, to, rate: sandboxRate(from, to), at: now.toISOString() }),
};
