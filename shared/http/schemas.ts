import * as z from 'zod/mini';
import en from 'zod/v4/locales/en.js';
import { amountDescription, isSupportedCurrency, type Currency } from '#shared/domain/money.ts';
import { descriptionRule, orderRefMaxLength, orderRefRule, textRefusal } from '#shared/domain/references.ts';
import { problems } from './problem.ts';

/**
 * zod schemas shared by endpoints (docs/merchant-guide.md, Endpoints). Shape errors are 400s. zod/mini
 * keeps every Lambda bundle small (the classic API alone is ~450 kB minified); English messages
 * are switched on here, once. Import `* as z from 'zod/mini'` in handlers; never re-export the
 * namespace object (that defeats tree-shaking and pulls in every locale).
 *
 * Each schema below is built inside a call marked `@__PURE__`: esbuild does not carry zod's own
 * no-side-effects marks across files, so a schema built at the top level stayed in every Lambda that
 * imports this module, with the zod parts it uses (e-mail, URL, union, literal: about 9 kB), whether
 * its handler uses it or not (docs/scaling.md, Lambda bundles).
 */
z.config(en());

export const currencyCode = /* @__PURE__ */ (() =>
  z.string().check(z.regex(/^[A-Z]{3,4}$/, 'must be an upper-case ISO 4217 code (or USDT)')))();

/** A well-formed currency the gateway does not support is a business rule: 422 (docs/merchant-guide.md, Errors). */
export function supportedCurrency(code: string): Currency {
  if (!isSupportedCurrency(code)) throw problems.unprocessable(`Currency ${code} is not supported.`);
  return code;
}

/** Optional members: absent, null and "" (dropped by the signature recipe too) all mean "not given". */
export const optional = /* @__NO_SIDE_EFFECTS__ */ <T extends z.ZodMiniType>(schema: T) =>
  z.optional(z.union([z.null(), z.literal(''), schema]));

/**
 * the shared request objects (docs/merchant-guide.md, Endpoints) for checkout, deposit and withdraw requests. Request
 * bodies and their nested objects are strict (z.strictObject): an unknown member is a 400
 * `unknown_parameter` naming it (docs/merchant-guide.md, Errors), and the OpenAPI document says additionalProperties: false.
 */
export const description = /* @__PURE__ */ (() =>
  z
    .string()
    .check(z.regex(descriptionRule.pattern, { error: (issue) => textRefusal(descriptionRule, issue.input) }))
    .register(z.globalRegistry, { description: `What is paid for: ${descriptionRule.text}, e.g. "Blue shirt size M".` }))();

export const orderRef = /* @__PURE__ */ (() =>
  z.strictObject({
    orderRef: z
      .string()
      .check(
        z.regex(orderRefRule.pattern, { error: (issue) => textRefusal(orderRefRule, issue.input) }),
        z.maxLength(orderRefMaxLength, `at most ${orderRefMaxLength} characters`),
      )
      .register(z.globalRegistry, {
        description: `Your reference, unique per merchant and mode: ${orderRefRule.text}, e.g. "ORDER1001" (not "ORDER-1001").`,
      }),
    discount: z.optional(z.nullable(z.string().check(z.maxLength(50)))),
    tax: z.optional(z.nullable(z.string().check(z.maxLength(50)))),
  }))();

const optionalText = /* @__NO_SIDE_EFFECTS__ */ (max: number) => z.optional(z.nullable(z.string().check(z.maxLength(max))));

/** customerRef on checkout and deposit: every member optional; email and cnic checked when present. */
export const customerRef = /* @__PURE__ */ (() =>
  z.strictObject({
    name: optionalText(200),
    email: z.optional(z.nullable(z.email('must be a valid e-mail address'))),
    cnic: z.optional(z.nullable(z.string().check(z.regex(/^\d{13}$/, 'must be exactly 13 digits')))),
    phone: optionalText(30),
    shippingAddress: optionalText(500),
    estimatedDays: optionalText(50),
  }))();

export const callbackUrl = /* @__PURE__ */ (() =>
  z.string().check(z.maxLength(2048, 'at most 2048 characters'), z.url('must be an absolute URL')))();
/**
 * Where the customer's browser goes after the hosted checkout (never fetched by the gateway, so no
 * address check): https, or http only to localhost / 127.0.0.1 for local development.
 */
export const returnUrl = /* @__PURE__ */ (() =>
  z.string().check(
    z.maxLength(2048, 'at most 2048 characters'),
    z.url('must be an absolute URL'),
    z.refine((raw) => {
      const url = URL.canParse(raw) ? new URL(raw) : null;
      if (!url || url.username || url.password) return false;
      return url.protocol === 'https:' || (url.protocol === 'http:' && ['localhost', '127.0.0.1', '[::1]'].includes(url.hostname));
    }, 'must be an https URL (http only for localhost), without credentials'),
  ))();

export const metadataJson = /* @__PURE__ */ (() =>
  z.string().check(
    z.maxLength(16_384, 'at most 16 KiB'),
    z.refine((s) => {
      try {
        JSON.parse(s);
        return true;
      } catch {
        return false;
      }
    }, 'must be a string holding a JSON document'),
  ))();

/** A decimal amount; minorUnits() checks its sign (422) and its decimals against the currency (400). */
export const amount = /* @__PURE__ */ (() => z.number('must be a number').register(z.globalRegistry, { description: amountDescription }))();

export const signature = /* @__PURE__ */ z.string();

/** 1 or 2: `paymentMethod` / `walletProvider` (docs/merchant-guide.md, Deposits). */
export const walletProviderId = /* @__PURE__ */ (() => z.union([z.literal(1), z.literal(2)], 'must be 1 or 2'))();

export { minorUnits } from '#shared/domain/money.ts';
