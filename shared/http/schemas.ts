import { z } from 'zod';
import { isSupportedCurrency, type Currency } from '#shared/domain/money.ts';
import { problems } from './problem.ts';

/** zod schemas shared by endpoints (SPEC "Common field rules"). Shape errors are 400s. */
export const currencyCode = z.string().regex(/^[A-Z]{3,4}$/, 'must be an upper-case ISO 4217 code (or USDT)');

/** A well-formed currency the gateway does not support is a business rule: 422 (CONTRACT §4). */
export function supportedCurrency(code: string): Currency {
  if (!isSupportedCurrency(code)) throw problems.unprocessable(`Currency ${code} is not supported.`);
  return code;
}
