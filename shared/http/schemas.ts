import * as z from 'zod/mini';
import en from 'zod/v4/locales/en.js';
import { isSupportedCurrency, type Currency } from '#shared/domain/money.ts';
import { problems } from './problem.ts';

/**
 * zod schemas shared by endpoints (SPEC "Common field rules"). Shape errors are 400s. zod/mini
 * keeps every Lambda bundle small (the classic API alone is ~450 kB minified); English messages
 * are switched on here, once. Import `* as z from 'zod/mini'` in handlers; never re-export the
 * namespace object (that defeats tree-shaking and pulls in every locale).
 */
z.config(en());

export const currencyCode = z.string().check(z.regex(/^[A-Z]{3,4}$/, 'must be an upper-case ISO 4217 code (or USDT)'));

/** A well-formed currency the gateway does not support is a business rule: 422 (CONTRACT §4). */
export function supportedCurrency(code: string): Currency {
  if (!isSupportedCurrency(code)) throw problems.unprocessable(`Currency ${code} is not supported.`);
  return code;
}
