import * as z from 'zod/mini';
import * as routes from '#functions/routes/payment.ts';
import { bankCodes, resolveBankCode } from '#shared/domain/bank-codes.ts';
import { commit, httpHandler } from '#shared/http/pipeline.ts';
import * as f from '#shared/http/schemas.ts';
import { optional } from '#shared/http/schemas.ts';
import { recoverWithdrawal, requestWithdrawal, withFunds } from '#shared/services/withdrawal-requests.ts';
import { BusinessRuleError } from '#shared/domain/errors.ts';
import '#shared/providers/live/boot-payouts.ts';

/** POST /Gateway/v{version}/Payment/withdraw — a payout from the merchant wallet (docs/merchant-guide.md, Withdrawals). */
const text = (min: number, max: number) =>
  z.string().check(z.minLength(min, `must be ${min}-${max} characters`), z.maxLength(max, `must be ${min}-${max} characters`));

const customerRef = z.strictObject({
  bankAccountNumber: z
    .string()
    .check(z.regex(/^[A-Za-z0-9]{10,24}$/, 'must be 10-24 letters and digits (account number or IBAN, no spaces)')),
  bankCode: text(2, 20),
  accountTitle: text(2, 100),
  bankName: optional(text(2, 100)),
  name: optional(text(1, 200)),
  email: optional(z.email('must be a valid e-mail address')),
  cnic: optional(z.string().check(z.regex(/^\d{13}$/, 'must be exactly 13 digits'))),
  phone: optional(text(1, 30)),
});

const body = z.strictObject({
  amount: f.amount,
  currency: z.string().check(z.regex(/^[A-Za-z]{3}$/, 'must be exactly 3 letters (ISO 4217)')),
  description: f.description,
  intentType: optional(z.literal('withdrawal', 'must be "withdrawal" on this endpoint')),
  autoProcessPayout: z.optional(z.nullable(z.boolean('must be true or false'))),
  metadataJson: optional(f.metadataJson),
  callbackUrl: optional(f.callbackUrl),
  customerRef,
  orderRef: f.orderRef,
  signature: f.signature,
});

const given = (v: string | null | undefined) => (v ? v : undefined);

export const handler = httpHandler(routes.withdraw, { body }, async (request) => {
  const { auth, body: b } = request;
  const currency = f.supportedCurrency(b.currency.toUpperCase());
  const amountMinor = f.minorUnits(b.amount, currency);
  const bank = resolveBankCode(b.customerRef.bankCode);
  if (!bank)
    throw new BusinessRuleError(
      `Unknown bankCode "${b.customerRef.bankCode}". Supported codes: ${bankCodes.join(', ')}.`,
      'unsupported_bank_code',
    );
  const { bankAccountNumber, bankCode: _code, accountTitle, ...others } = b.customerRef;
  return commit(
    request,
    200,
    (place) =>
      requestWithdrawal(
        {
          merchantId: auth.merchantId,
          mode: auth.mode,
          traceId: request.traceId,
          fee: auth.merchantFees.withdrawal,
          amountMinor,
          currency,
          description: b.description,
          autoProcessPayout: b.autoProcessPayout ?? false,
          metadataJson: given(b.metadataJson) ?? null,
          callbackUrl: given(b.callbackUrl) ?? null,
          orderRef: { orderRef: b.orderRef.orderRef, discount: b.orderRef.discount ?? null, tax: b.orderRef.tax ?? null },
          bank,
          accountNumber: bankAccountNumber,
          accountTitle,
          customer: Object.fromEntries(Object.entries(others).filter((e): e is [string, string] => Boolean(e[1]))),
          allowInsecureWebhooks: auth.merchantAllowInsecureWebhooks,
          ...(auth.maker ? { maker: auth.maker } : {}),
        },
        place,
      ),
    // The first request with this key stopped between its two commits: answer with what it created.
    { recover: () => recoverWithdrawal(auth.merchantId, auth.mode, b.orderRef.orderRef), funds: withFunds },
  );
});
