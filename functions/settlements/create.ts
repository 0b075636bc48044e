import * as z from 'zod/mini';
import * as routes from '#functions/routes/settlements.ts';
import { normaliseAccount, type SettlementDestination } from '#shared/domain/settlement.ts';
import { checkUsdtAddress } from '#shared/domain/usdt-address.ts';
import { commit, httpHandler } from '#shared/http/pipeline.ts';
import { problems, type FieldErrors } from '#shared/http/problem.ts';
import * as f from '#shared/http/schemas.ts';
import { createSettlement, withFunds } from '#shared/services/settlement-requests.ts';
import '#shared/providers/live/boot-settlements.ts';

/** POST /Gateway/v{version}/Settlements — move wallet funds to a bank account or a USDT address (200, status 0). */
const text = (min: number, max: number) =>
  z.string().check(z.minLength(min, `must be ${min}-${max} characters`), z.maxLength(max, `must be ${min}-${max} characters`));
/** Optional members: absent, null and "" (dropped by the signature recipe too) all mean "not given". */
const optional = <T extends z.ZodMiniType>(schema: T) => z.optional(z.union([z.null(), z.literal(''), schema]));

const body = z.strictObject({
  amount: f.amount,
  currency: optional(f.currencyCode),
  payoutCurrency: optional(f.currencyCode),
  bankName: optional(text(2, 100)),
  iban: optional(text(10, 42)),
  accountTitle: optional(text(2, 100)),
  usdtAddress: optional(text(20, 64)),
  signature: f.signature,
});

type Body = z.infer<typeof body>;

/** Exactly one destination: bankName + iban + accountTitle, or usdtAddress (paid in USDT). */
function destinationOf(b: Body): { destination: SettlementDestination; payoutCurrency?: string } {
  const errors: FieldErrors = {};
  const bankFields = (['bankName', 'iban', 'accountTitle'] as const).filter((k) => b[k]);
  let destination: SettlementDestination | undefined;
  if (b.usdtAddress) {
    for (const k of bankFields) errors[k] = ['must not be sent with usdtAddress: a settlement has one destination'];
    const check = checkUsdtAddress(b.usdtAddress);
    if (!check.ok) errors.usdtAddress = [check.reason];
    else destination = { type: 'usdt', address: check.address, network: check.network };
    if (b.payoutCurrency && b.payoutCurrency !== 'USDT') errors.payoutCurrency = ['must be USDT (or omitted) for a usdtAddress'];
  } else if (bankFields.length === 0) {
    errors['(root)'] = ['a destination is required: bankName, iban and accountTitle for a bank transfer, or usdtAddress for USDT'];
  } else {
    for (const k of ['bankName', 'iban', 'accountTitle'] as const) if (!b[k]) errors[k] = ['required for a bank transfer'];
    if (b.iban) {
      const account = normaliseAccount(b.iban);
      if (!account.ok) errors.iban = [account.reason];
      else if (b.bankName && b.accountTitle)
        destination = { type: 'bank', bankName: b.bankName, iban: account.value, accountTitle: b.accountTitle };
    }
    if (b.payoutCurrency === 'USDT') errors.payoutCurrency = ['USDT is paid to a usdtAddress, not to a bank account'];
  }
  if (Object.keys(errors).length || !destination) throw problems.badRequest('The request has invalid or missing fields.', errors);
  return { destination, ...(b.usdtAddress ? { payoutCurrency: 'USDT' } : {}) };
}

export const handler = httpHandler(routes.createSettlement, { body }, async (request) => {
  const { auth, body: b } = request;
  const { destination, payoutCurrency: forced } = destinationOf(b);
  const currency = f.supportedCurrency(b.currency || auth.merchantCurrency);
  const payoutCurrency = f.supportedCurrency(forced ?? (b.payoutCurrency || currency));
  const amountMinor = f.minorUnits(b.amount, currency);
  const caller = {
    merchantId: auth.merchantId,
    mode: auth.mode,
    fee: auth.merchantFees.settlement,
    traceId: request.traceId,
    ...(auth.maker ? { maker: auth.maker } : {}),
  };
  return commit(request, 200, (place) => createSettlement(caller, { amountMinor, currency, payoutCurrency, destination }, place), {
    funds: withFunds,
  });
});
