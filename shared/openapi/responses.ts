import { z } from 'zod';
import { balanceSourceTypes, balanceTransactionTypes } from '#shared/domain/balance-transaction.ts';
import { intentStatuses, intentTypes } from '#shared/domain/intent.ts';
import { amountDescription } from '#shared/domain/money.ts';
import { deliveryStates, webhookEventTypes } from '#shared/domain/events.ts';
import { reasonCodes, type ReasonCode } from '#shared/domain/reasons.ts';
import { refundStatusNames } from '#shared/domain/refund.ts';
import { settlementStatusNames } from '#shared/domain/settlement.ts';

/**
 * The bodies the gateway answers with, as zod schemas, for the OpenAPI document. Request schemas
 * are NOT here: the generator takes them from the handlers (`handler.schemas`), so the document
 * describes exactly what is validated. These are checked against reality by the contract hook in
 * test/support/gateway.ts: every response an integration suite receives must match, and every
 * object is strict, so a field added to a view without documenting it here fails the suites.
 *
 * Route rows name their success schema (`doc.success.schema` in functions/routes.ts); each name
 * here becomes `#/components/schemas/<Name>`, with its example from `responseExamples`.
 */
const dateTime = z.string().meta({ format: 'date-time' });
const nullableDateTime = dateTime.nullable();
const uuid = z.string().meta({ format: 'uuid' });
const money = z.number().meta({ description: amountDescription });
const currency = z.string().meta({ description: 'ISO 4217 code, or USDT.', example: 'PKR' });
const intentStatus = z.enum(intentStatuses);
const intentType = z.enum(intentTypes);

const Balance = z.strictObject({
  userId: uuid.meta({ description: 'The merchant id.' }),
  walletId: z.string(),
  currentBalance: money.meta({ description: 'availableBalance + pendingBalance.' }),
  pendingBalance: money.meta({ description: 'Held by pending withdrawals, settlements and refunds.' }),
  availableBalance: money.meta({ description: 'What can be paid out or settled now.' }),
  currency,
  pendingTransactionCount: z.int(),
  pendingByTransactionType: z.record(z.string(), z.number()),
  retrievedAt: dateTime,
});

const SettlementSchedule = z.strictObject({
  merchantId: uuid,
  isLive: z.boolean(),
  enabled: z.boolean(),
  frequency: z.string().meta({ description: 'manual, daily, weekly or monthly.' }),
  dayOfPeriod: z.int().nullable().meta({ description: 'weekly: 1 (Monday) … 7; monthly: 1 … 28; otherwise null.' }),
  hourUtc: z.int(),
  currency,
  minimumBalance: money,
  destination: z
    .strictObject({ type: z.literal('bank_transfer'), bankName: z.string(), accountTitle: z.string(), ibanLast4: z.string() })
    .nullable(),
  nextRunAt: nullableDateTime,
});

const breakdownFields = {
  carriedIn: money.meta({
    description: `Left available after the previous settlement (its carriedForward); 0 for the first. ${amountDescription}`,
  }),
  gross: money.meta({ description: `Payments and deposits covered: their amounts. ${amountDescription}` }),
  fees: money.meta({ description: `Their fees. ${amountDescription}` }),
  refunds: money.meta({ description: `Held for refunds, less refunds that failed. ${amountDescription}` }),
  payouts: money.meta({ description: `Held for payouts (amount + fee), less payouts that failed. ${amountDescription}` }),
  other: money.meta({
    description: `Adjustments, released settlements, anything else that moved the available balance. ${amountDescription}`,
  }),
  net: money.meta({
    description: `gross − fees − refunds − payouts + other: what the covered movements added to availableBalance. ${amountDescription}`,
  }),
  amount: money.meta({ description: `The settlement amount. ${amountDescription}` }),
  carriedForward: money.meta({
    description: `carriedIn + net − amount: what stayed available (the next settlement’s carriedIn). ${amountDescription}`,
  }),
  count: z.int().min(0).meta({ description: 'How many balance transactions it covers (BalanceTransactions?settlement=<id> lists them).' }),
};

const SettlementBreakdown = z.strictObject(breakdownFields).meta({
  description:
    'What the settlement paid out (merchant guide, Settlement breakdowns): carriedIn + net = amount + carriedForward. ' +
    'null while breakdownStatus is computing or unavailable.',
});

const Settlement = z.strictObject({
  id: uuid,
  merchantId: uuid,
  amount: money,
  currency,
  payoutCurrency: currency,
  payoutAmount: money.nullable().meta({ description: '(amount - fee) × fxRate; known once approved.' }),
  fee: money,
  netAmount: money,
  fxRate: z.number().nullable(),
  fxRateTimestamp: nullableDateTime,
  bankName: z.string().nullable(),
  iban: z.string().nullable(),
  accountTitle: z.string().nullable(),
  usdtAddress: z.string().nullable(),
  usdtNetwork: z.enum(['TRC20', 'ERC20']).nullable(),
  status: z.int().min(0).max(5).meta({ description: '0 Pending, 1 Approved, 2 Processing, 3 Completed, 4 Failed, 5 Cancelled.' }),
  isLive: z.boolean(),
  requestedAt: dateTime,
  approvedAt: nullableDateTime,
  processedAt: nullableDateTime,
  failureReason: z.string().nullable(),
  isAuto: z.boolean(),
  breakdown: SettlementBreakdown.nullable().optional().meta({
    description: 'GET /Settlements/{id} only: the balance transactions it covers, totalled; null unless breakdownStatus is available.',
  }),
  breakdownStatus: z
    .enum(['available', 'computing', 'unavailable'])
    .optional()
    .meta({
      description:
        'GET /Settlements/{id} only. available: breakdown holds the totals. computing: it covers more movements than a request ' +
        'sums (20,000 by default) and is being summed in the background; ask again in a minute. unavailable: created before ' +
        'breakdowns existed, it has none.',
    }),
});

const page = {
  page: z.int().min(1),
  pageSize: z.int().min(1).max(100),
  totalCount: z.int().min(0),
  totalPages: z.int().min(0),
  hasMore: z.boolean(),
};

const SettlementPage = z.strictObject({ items: z.array(Settlement), ...page });

const Refund = z.strictObject({
  id: uuid,
  paymentIntentId: uuid,
  transactionReference: z.string(),
  amount: money,
  currency,
  fee: money,
  reason: z.string().nullable(),
  status: z
    .int()
    .min(0)
    .max(7)
    .meta({ description: '0 Pending, 1 Approved, 2 Processing, 3 Completed, 4 Failed, 5 Cancelled, 6 Rejected, 7 Expired.' }),
  isLive: z.boolean(),
  requestedAt: dateTime,
  approvedAt: nullableDateTime,
  processedAt: nullableDateTime,
  expiresAt: dateTime,
  attemptCount: z.int().min(0),
  failureReason: z.string().nullable(),
});

const RefundPage = z.strictObject({
  items: z.array(Refund),
  ...page,
  paymentIntentId: uuid,
  currency,
  amount: money,
  refundedAmount: money,
  refundableAmount: money,
});

const CheckoutCreated = z.strictObject({
  paymentIntentId: uuid,
  checkoutUrl: z.string().meta({ format: 'uri', description: 'The hosted checkout page: send the customer here.' }),
  expiresAt: dateTime,
});

const WalletChargeInfo = z.strictObject({
  provider: z.string(),
  status: z.string(),
  transactionReference: z.string(),
  message: z.string(),
  isSuccess: z.boolean(),
  errorCode: z.string().nullable(),
  errorDetails: z.string().nullable(),
  traceId: z.string(),
});

const PayoutInfo = z.strictObject({
  status: intentStatus,
  provider: z.string(),
  transactionReference: z.string(),
  message: z.string(),
  isSuccess: z.boolean(),
  errorCode: z.enum(['WP_REQUEST_REJECTED', 'WP_OUTCOME_PENDING', 'WP_INTERNAL_ERROR']).nullable(),
  errorDetails: z.string().nullable(),
  traceId: z.string(),
  estimatedCompletionTime: nullableDateTime,
  customerBankName: z.string(),
  customerAccountNumber: z.string().meta({ description: 'Masked: only the last four characters show.' }),
});

const DepositCreated = z.strictObject({
  paymentIntentId: uuid,
  amount: money,
  currency,
  merchantReference: z.string(),
  walletChargeInfo: WalletChargeInfo,
});

const Withdrawal = z.strictObject({
  paymentIntentId: uuid,
  amount: money,
  currency,
  merchantReference: z.string(),
  isLive: z.boolean(),
  fee: money,
  totalRequired: money.meta({ description: 'amount + fee, held from availableBalance at once.' }),
  availableBalance: money,
  payoutInfo: PayoutInfo,
  traceId: z.string(),
});

const Card = z.strictObject({ brand: z.string(), last4: z.string(), expMonth: z.int(), expYear: z.int() });

const CheckoutAttempt = z
  .strictObject({
    number: z.int().meta({ description: '1-based, in the order the attempts finished.' }),
    method: z.enum(['card', 'wallet']),
    outcome: z.enum(['succeeded', 'failed']),
    reason: z
      .enum(Object.keys(reasonCodes) as [ReasonCode, ...ReasonCode[]])
      .nullable()
      .meta({ description: 'Why it failed (a reason code); null when it succeeded.' }),
    reasonDetail: z.string().nullable(),
    card: Card.nullable(),
    walletProvider: z.string().nullable(),
    walletNumberLast4: z.string().nullable(),
    at: dateTime,
  })
  .meta({ description: 'A payment attempt of a hosted checkout session.' });

const Transaction = z
  .strictObject({
    paymentIntentId: uuid,
    intentType,
    status: intentStatus,
    amount: money,
    currency,
    fee: money,
    refundedAmount: money,
    merchantReference: z.string(),
    transactionReference: z.string(),
    orderRef: z.strictObject({ orderRef: z.string(), discount: z.string().nullable(), tax: z.string().nullable() }),
    customerRef: z.record(z.string(), z.string()).nullable(),
    description: z.string(),
    metadataJson: z.string().nullable(),
    isLive: z.boolean(),
    reason: z.string().nullable(),
    createdAt: dateTime,
    updatedAt: dateTime,
    expiresAt: nullableDateTime.optional().meta({ description: 'Checkouts only.' }),
    paymentMethod: z.union([z.string(), z.int()]).nullable().optional().meta({ description: 'Checkouts only.' }),
    card: Card.nullable().optional().meta({ description: 'Checkouts paid by card: brand and last four only, never the number.' }),
    walletProvider: z.string().nullable().optional().meta({ description: 'Checkouts only.' }),
    walletNumberLast4: z.string().nullable().optional().meta({ description: 'Checkouts only.' }),
    attempts: z
      .array(CheckoutAttempt)
      .optional()
      .meta({
        description:
          'Checkouts only: every finished payment attempt, oldest first. A declined or failed attempt leaves the session payable ' +
          'until 3 have failed (merchant guide, Hosted checkout: Declined and failed attempts).',
      }),
    walletChargeInfo: WalletChargeInfo.nullable().optional().meta({ description: 'Deposits only.' }),
    payoutInfo: PayoutInfo.nullable().optional().meta({ description: 'Withdrawals only.' }),
    traceId: z.string(),
  })
  .meta({ description: 'The transaction object (docs/merchant-guide.md, Transaction lookup): a checkout, deposit or withdrawal.' });

const TransactionList = z.strictObject({ items: z.array(Transaction), hasMore: z.boolean() });

const PaymentLink = z
  .strictObject({
    id: z.string().meta({ description: 'pl_ and 24 hex characters.', example: 'pl_5f1c2a9e7b3d4c6a8e0f1a2b' }),
    url: z.string().meta({ format: 'uri', description: 'The short URL to share: {checkout_url}/l/{id}.' }),
    qrCode: z.strictObject({
      png: z.string().meta({ format: 'uri' }),
      svg: z.string().meta({ format: 'uri' }),
    }),
    status: z.enum(['active', 'inactive', 'expired', 'used_up']).meta({ description: 'Whether the link takes payments now, and why not.' }),
    active: z.boolean().meta({ description: 'false once deactivated (until reactivated).' }),
    isLive: z.boolean(),
    currency,
    description: z.string(),
    amount: money.nullable().meta({ description: 'The fixed amount per item; null when the customer enters the amount.' }),
    minAmount: money.nullable(),
    maxAmount: money.nullable(),
    maxQuantity: z.int().nullable().meta({ description: 'The most items a customer may choose; null: quantity 1.' }),
    maxPayments: z.int().nullable().meta({ description: 'The most payments the link takes; null: no limit.' }),
    expiresAt: nullableDateTime,
    collect: z.array(z.enum(['name', 'email', 'phone', 'address'])),
    returnUrl: z.string().nullable(),
    paymentCount: z.int().min(0).meta({ description: 'Completed payments.' }),
    pendingCount: z
      .int()
      .min(0)
      .meta({
        description:
          'Payments under way (a card or wallet payment started on a checkout of the link, not yet ended): they hold a use. ' +
          'A checkout opened without paying holds none.',
      }),
    totalAmount: money.meta({ description: 'The sum of the completed payments (before fees and refunds).' }),
    remainingUses: z.int().min(0).nullable().meta({ description: 'maxPayments less paid and pending payments; null: no limit.' }),
    createdAt: dateTime,
    updatedAt: dateTime,
  })
  .meta({ description: 'A payment link (docs/payment-links.md).' });

const PaymentLinkList = z.strictObject({ items: z.array(PaymentLink), hasMore: z.boolean() });

const BalanceTransaction = z
  .strictObject({
    id: z.string().meta({ description: 'btx_…: the journal id and its time; a cursor for startingAfter.' }),
    type: z.enum(balanceTransactionTypes),
    source: z.strictObject({
      type: z.enum(balanceSourceTypes),
      id: z.string().meta({ description: 'The transaction, settlement or refund id; an adjustment: operator:<reference>.' }),
    }),
    amount: money.meta({
      description: `What came in from or went out to the outside world; 0 for a hold or a release. ${amountDescription}`,
    }),
    fee: money.meta({ description: 'The fee this movement charged.' }),
    net: money.meta({ description: 'amount − fee: the change of currentBalance (available + pending).' }),
    availableChange: money.meta({ description: 'The change of availableBalance.' }),
    pendingChange: money.meta({ description: 'The change of pendingBalance (money held for a payout, settlement or refund).' }),
    currency,
    createdAt: dateTime,
    availableBalanceAfter: money
      .nullable()
      .meta({ description: 'availableBalance after this movement, in journal order; null on pages more than 1,000 movements deep.' }),
  })
  .meta({ description: 'A balance transaction (docs/merchant-guide.md, Balance transactions): one journal that moved the wallet.' });

const BalanceTransactionList = z.strictObject({ items: z.array(BalanceTransaction), hasMore: z.boolean() });

/** The webhook envelope (docs/merchant-guide.md, Webhooks): lower-case envelope, PascalCase data. */
const envelope = <T extends string, D extends z.ZodType>(type: T, data: D) =>
  z.strictObject({
    id: z.string().meta({ description: 'evt_…, the same on every delivery attempt.' }),
    type: z.literal(type),
    created: z.int().meta({ description: 'Unix seconds.' }),
    livemode: z.boolean(),
    api_version: z.literal('v1'),
    data,
  });

export const TransactionStatusChanged = envelope(
  'TransactionStatusChanged',
  z.strictObject({
    TransactionId: uuid,
    PreviousStatus: intentStatus,
    CurrentStatus: intentStatus,
    Amount: z.number(),
    Currency: z.string(),
    Reason: z
      .enum(Object.keys(reasonCodes) as [ReasonCode, ...ReasonCode[]])
      .nullable()
      .meta({ description: 'A stable reason code (see the merchant guide, Reason codes); null when none.' }),
    ReasonDetail: z.string().nullable().meta({ description: 'Free text for people; never branch on it.' }),
    TransactionReference: z.string(),
    CustomerRef: z.record(z.string(), z.string()).nullable(),
    OrderRef: z.string().meta({ description: 'A JSON string holding OrderRef, Discount, Tax: parse it.' }),
    MerchantId: uuid,
    Timestamp: dateTime,
    TraceId: z.string(),
    IntentType: z.string(),
    MetadataJson: z.string().nullable(),
  }),
);

export const RefundStatusChanged = envelope(
  'RefundStatusChanged',
  z.strictObject({
    RefundId: uuid,
    PaymentIntentId: uuid,
    TransactionReference: z.string(),
    PreviousStatus: z.int().meta({ description: 'The refund status integer before the change.' }),
    CurrentStatus: z.int().meta({ description: 'The refund status integer now.' }),
    CurrentStatusName: z.enum(refundStatusNames),
    Amount: z.number(),
    Currency: z.string(),
    Reason: z.string().nullable(),
    AttemptCount: z.int().min(0),
    MerchantId: uuid,
    Timestamp: dateTime,
    TraceId: z.string(),
  }),
);

export const SettlementStatusChanged = envelope(
  'SettlementStatusChanged',
  z.strictObject({
    SettlementId: uuid,
    PreviousStatus: z.int().meta({ description: 'The settlement status integer before the change.' }),
    CurrentStatus: z.int().meta({ description: 'The settlement status integer now.' }),
    CurrentStatusName: z.enum(settlementStatusNames),
    Amount: z.number(),
    Currency: z.string(),
    PayoutCurrency: z.string(),
    PayoutAmount: z.number().nullable(),
    FxRate: z.number().nullable(),
    FailureReason: z.string().nullable(),
    IsAuto: z.boolean(),
    MerchantId: uuid,
    Timestamp: dateTime,
    TraceId: z.string(),
    Breakdown: z
      .strictObject({
        CarriedIn: z.number(),
        Gross: z.number(),
        Fees: z.number(),
        Refunds: z.number(),
        Payouts: z.number(),
        Other: z.number(),
        Net: z.number(),
        Amount: z.number(),
        CarriedForward: z.number(),
        Count: z.int().min(0),
      })
      .nullable()
      .meta({
        description:
          'What the settlement paid out, as on GET /Settlements/{id} (breakdown), in PascalCase: ' +
          'CarriedIn + Net = Amount + CarriedForward. null for a settlement created before breakdowns existed, and when the ' +
          'change happened while a large breakdown was still being summed (GET /Settlements/{id} has it once stored).',
      }),
  }),
);

const Delivery = z.strictObject({
  state: z.string().meta({ description: 'pending, delivered, retrying, failed, …' }),
  attempts: z.int().min(0),
  lastAttemptAt: nullableDateTime,
  lastStatusCode: z.int().nullable(),
  lastError: z.string().nullable().meta({ description: 'A category (timeout, connection_refused, …), never a raw error.' }),
  nextAttemptAt: nullableDateTime,
  deliveredAt: nullableDateTime,
});

const StoredEvent = z.strictObject({
  eventId: z.string(),
  type: z.string(),
  created: z.int(),
  previousStatus: z.union([z.string(), z.int()]).nullable().optional(),
  currentStatus: z.union([z.string(), z.int()]).nullable().optional(),
  delivery: Delivery,
  event: z.looseObject({ id: z.string(), type: z.string() }).meta({ description: 'The event exactly as delivered (see `webhooks`).' }),
});

const TransactionEvents = z.strictObject({ paymentIntentId: uuid, items: z.array(StoredEvent) });

const Attempt = z.strictObject({
  attempt: z.int().min(1),
  roundAttempt: z.int().min(1),
  trigger: z.enum(['automatic', 'resend', 'redrive']),
  deliveryId: z.string(),
  attemptedAt: dateTime,
  url: z.string().nullable(),
  destination: z.enum(['callbackUrl', 'endpoint']).nullable(),
  statusCode: z.int().nullable(),
  durationMs: z.number().min(0),
  error: z.string().nullable(),
  outcome: z.enum(['delivered', 'failed', 'no_destination', 'endpoint_disabled']),
  nextAttemptAt: nullableDateTime,
});

const EventAttempts = z.strictObject({
  eventId: z.string(),
  paymentIntentId: uuid.nullable(),
  delivery: Delivery,
  items: z.array(Attempt),
});

const FeedItem = z.strictObject({
  eventId: z.string(),
  type: z.enum(webhookEventTypes),
  created: z.int().meta({ description: 'Unix seconds, as in the envelope.' }),
  deliveryState: z.enum(deliveryStates),
  event: z.looseObject({ id: z.string(), type: z.string() }).meta({ description: 'The envelope exactly as sent (see `webhooks`).' }),
});
const EventList = z.strictObject({ items: z.array(FeedItem), hasMore: z.boolean() });

const ResendQueued = z.strictObject({ eventId: z.string(), resendId: z.string(), status: z.literal('queued'), requestedAt: dateTime });

const ProviderCallbackResult = z.strictObject({
  paymentIntentId: uuid,
  status: intentStatus.optional(),
  changed: z.boolean(),
  /** An approval of a suspended merchant's charge, held for an operator decision (not credited; status stays Pending). */
  held: z.literal(true).optional(),
});

const OpenApiDocument = z.looseObject({ openapi: z.string(), info: z.looseObject({}), paths: z.looseObject({}) });

export const responseSchemas = {
  Balance,
  SettlementSchedule,
  Settlement,
  SettlementPage,
  Refund,
  RefundPage,
  CheckoutCreated,
  DepositCreated,
  Withdrawal,
  Transaction,
  TransactionList,
  PaymentLink,
  PaymentLinkList,
  BalanceTransactionList,
  TransactionEvents,
  EventAttempts,
  EventList,
  ResendQueued,
  ProviderCallbackResult,
  OpenApiDocument,
} satisfies Record<string, z.ZodType>;
export type ResponseSchemaName = keyof typeof responseSchemas;

const id = '3f2b8c1e-9a4d-4f6b-8c2a-1d5e7f9a0b3c';
const merchantId = '9c4e1a7b-2d3f-4e5a-8b6c-0d1e2f3a4b5c';
const at = '2025-06-01T10:15:00.000Z';
const later = '2025-06-01T10:45:00.000Z';
const trace = '1b2c3d4e-5f60-4718-9a0b-1c2d3e4f5a6b';

const settlement = {
  id,
  merchantId,
  amount: 5000,
  currency: 'PKR',
  payoutCurrency: 'PKR',
  payoutAmount: null,
  fee: 50,
  netAmount: 4950,
  fxRate: null,
  fxRateTimestamp: null,
  bankName: 'Meezan Bank',
  iban: 'PK36SCBL0000001123456702',
  accountTitle: 'Acme Traders',
  usdtAddress: null,
  usdtNetwork: null,
  status: 0,
  isLive: false,
  requestedAt: at,
  approvedAt: null,
  processedAt: null,
  failureReason: null,
  isAuto: false,
};
const linkUrl = 'https://pay.example.com/l/pl_5f1c2a9e7b3d4c6a8e0f1a2b';
const paymentLink = {
  id: 'pl_5f1c2a9e7b3d4c6a8e0f1a2b',
  url: linkUrl,
  qrCode: { png: `${linkUrl}/qr?format=png`, svg: `${linkUrl}/qr?format=svg` },
  status: 'active',
  active: true,
  isLive: false,
  currency: 'PKR',
  description: 'Blue shirt',
  amount: 1500,
  minAmount: null,
  maxAmount: null,
  maxQuantity: 5,
  maxPayments: 100,
  expiresAt: null,
  collect: ['name', 'phone'],
  returnUrl: null,
  paymentCount: 3,
  pendingCount: 1,
  totalAmount: 6000,
  remainingUses: 96,
  createdAt: at,
  updatedAt: at,
};
const refund = {
  id,
  paymentIntentId: merchantId,
  transactionReference: 'TRX20250601ABC123',
  amount: 500,
  currency: 'PKR',
  fee: 0,
  reason: 'Customer returned one item',
  status: 0,
  isLive: false,
  requestedAt: at,
  approvedAt: null,
  processedAt: null,
  expiresAt: '2025-06-08T10:15:00.000Z',
  attemptCount: 0,
  failureReason: null,
};
const walletChargeInfo = {
  provider: 'JazzCash',
  status: 'Pending',
  transactionReference: 'JC20250601000123',
  message: 'Approve the payment on your phone.',
  isSuccess: true,
  errorCode: null,
  errorDetails: null,
  traceId: trace,
};
const payoutInfo = {
  status: 'Processing',
  provider: 'Bank transfer',
  transactionReference: 'PO20250601000077',
  message: 'The payout was accepted by the bank and is being processed.',
  isSuccess: true,
  errorCode: null,
  errorDetails: null,
  traceId: trace,
  estimatedCompletionTime: later,
  customerBankName: 'Standard Chartered',
  customerAccountNumber: '********************6702',
};
const transaction = {
  paymentIntentId: id,
  intentType: 'checkout',
  status: 'Completed',
  amount: 1500,
  currency: 'PKR',
  fee: 45,
  refundedAmount: 0,
  merchantReference: 'ORDER1001',
  transactionReference: 'TRX20250601ABC123',
  orderRef: { orderRef: 'ORDER1001', discount: null, tax: null },
  customerRef: { name: 'Ayesha Khan', email: 'ayesha@example.com' },
  description: 'Order 1001',
  metadataJson: null,
  isLive: false,
  reason: null,
  createdAt: at,
  updatedAt: later,
  expiresAt: later,
  paymentMethod: 'card',
  card: { brand: 'visa', last4: '4242', expMonth: 12, expYear: 2030 },
  walletProvider: null,
  walletNumberLast4: null,
  attempts: [
    {
      number: 1,
      method: 'card',
      outcome: 'failed',
      reason: 'card_declined',
      reasonDetail: null,
      card: { brand: 'visa', last4: '0002', expMonth: 12, expYear: 2030 },
      walletProvider: null,
      walletNumberLast4: null,
      at,
    },
    {
      number: 2,
      method: 'card',
      outcome: 'succeeded',
      reason: null,
      reasonDetail: null,
      card: { brand: 'visa', last4: '4242', expMonth: 12, expYear: 2030 },
      walletProvider: null,
      walletNumberLast4: null,
      at: later,
    },
  ],
  traceId: trace,
};
const delivery = {
  state: 'delivered',
  attempts: 1,
  lastAttemptAt: later,
  lastStatusCode: 200,
  lastError: null,
  nextAttemptAt: null,
  deliveredAt: later,
};
export const transactionStatusChangedExample = {
  id: 'evt_5b1f0c2a9d3e4f6a8b7c1d2e3f4a5b6c',
  type: 'TransactionStatusChanged',
  created: 1748772900,
  livemode: false,
  api_version: 'v1',
  data: {
    TransactionId: id,
    PreviousStatus: 'Pending',
    CurrentStatus: 'Completed',
    Amount: 1500,
    Currency: 'PKR',
    Reason: null,
    ReasonDetail: null,
    TransactionReference: 'TRX20250601ABC123',
    CustomerRef: { name: 'Ayesha Khan' },
    OrderRef: '{"OrderRef":"ORDER1001","Discount":null,"Tax":null}',
    MerchantId: merchantId,
    Timestamp: later,
    TraceId: trace,
    IntentType: 'checkout',
    MetadataJson: null,
  },
};

export const refundStatusChangedExample = {
  id: 'evt_6c2a0d3b9e4f5a6b7c8d9e0f1a2b3c4d',
  type: 'RefundStatusChanged',
  created: 1748774700,
  livemode: false,
  api_version: 'v1',
  data: {
    RefundId: '7d3e9f1a-2b4c-4d5e-8f6a-1b2c3d4e5f6a',
    PaymentIntentId: id,
    TransactionReference: 'TRX20250601ABC123',
    PreviousStatus: 2,
    CurrentStatus: 3,
    CurrentStatusName: 'Completed',
    Amount: 500,
    Currency: 'PKR',
    Reason: 'Customer returned one item',
    AttemptCount: 1,
    MerchantId: merchantId,
    Timestamp: later,
    TraceId: trace,
  },
};

export const settlementStatusChangedExample = {
  id: 'evt_7d3b1e4c0f5a6b7c8d9e0f1a2b3c4d5e',
  type: 'SettlementStatusChanged',
  created: 1748775600,
  livemode: false,
  api_version: 'v1',
  data: {
    SettlementId: '8e4f0a2b-3c5d-4e6f-9a7b-2c3d4e5f6a7b',
    PreviousStatus: 2,
    CurrentStatus: 3,
    CurrentStatusName: 'Completed',
    Amount: 5000,
    Currency: 'PKR',
    PayoutCurrency: 'PKR',
    PayoutAmount: 4975,
    FxRate: null,
    FailureReason: null,
    IsAuto: false,
    MerchantId: merchantId,
    Timestamp: later,
    TraceId: trace,
    Breakdown: {
      CarriedIn: 250,
      Gross: 6000,
      Fees: 150,
      Refunds: 500,
      Payouts: 0,
      Other: 0,
      Net: 5350,
      Amount: 5000,
      CarriedForward: 600,
      Count: 14,
    },
  },
};

/** One realistic example per response schema (validated against it by test/openapi/document.test.ts). */
export const responseExamples: Record<ResponseSchemaName, unknown> = {
  Balance: {
    userId: merchantId,
    walletId: 'wal_test_PKR',
    currentBalance: 12500,
    pendingBalance: 2500,
    availableBalance: 10000,
    currency: 'PKR',
    pendingTransactionCount: 1,
    pendingByTransactionType: { withdrawal: 2500, settlement: 0, refund: 0 },
    retrievedAt: at,
  },
  SettlementSchedule: {
    merchantId,
    isLive: false,
    enabled: true,
    frequency: 'weekly',
    dayOfPeriod: 1,
    hourUtc: 6,
    currency: 'PKR',
    minimumBalance: 1000,
    destination: { type: 'bank_transfer', bankName: 'Meezan Bank', accountTitle: 'Acme Traders', ibanLast4: '6702' },
    nextRunAt: '2025-06-02T06:00:00.000Z',
  },
  Settlement: {
    ...settlement,
    breakdown: {
      carriedIn: 250,
      gross: 6000,
      fees: 150,
      refunds: 500,
      payouts: 0,
      other: 0,
      net: 5350,
      amount: 5000,
      carriedForward: 600,
      count: 14,
    },
  },
  SettlementPage: { items: [settlement], page: 1, pageSize: 20, totalCount: 1, totalPages: 1, hasMore: false },
  Refund: refund,
  RefundPage: {
    items: [refund],
    page: 1,
    pageSize: 20,
    totalCount: 1,
    totalPages: 1,
    hasMore: false,
    paymentIntentId: merchantId,
    currency: 'PKR',
    amount: 1500,
    refundedAmount: 0,
    refundableAmount: 1000,
  },
  CheckoutCreated: { paymentIntentId: id, checkoutUrl: `https://pay.example.com/pay/${id}`, expiresAt: later },
  DepositCreated: { paymentIntentId: id, amount: 1500, currency: 'PKR', merchantReference: 'ORDER1002', walletChargeInfo },
  Withdrawal: {
    paymentIntentId: id,
    amount: 2500,
    currency: 'PKR',
    merchantReference: 'PAYOUT77',
    isLive: false,
    fee: 25,
    totalRequired: 2525,
    availableBalance: 7475,
    payoutInfo,
    traceId: trace,
  },
  Transaction: transaction,
  TransactionList: { items: [transaction], hasMore: false },
  PaymentLink: paymentLink,
  PaymentLinkList: { items: [paymentLink], hasMore: false },
  BalanceTransactionList: {
    items: [
      {
        id: 'btx_mbdqd1ig_7a1c2e3f-4b5d-4e6f-8a9b-0c1d2e3f4a5b',
        type: 'payment',
        source: { type: 'transaction', id },
        amount: 1500,
        fee: 37.5,
        net: 1462.5,
        availableChange: 1462.5,
        pendingChange: 0,
        currency: 'PKR',
        createdAt: at,
        availableBalanceAfter: 8937.5,
      },
    ],
    hasMore: false,
  },
  TransactionEvents: {
    paymentIntentId: id,
    items: [
      {
        eventId: transactionStatusChangedExample.id,
        type: 'TransactionStatusChanged',
        created: 1748772900,
        previousStatus: 'Pending',
        currentStatus: 'Completed',
        delivery,
        event: transactionStatusChangedExample,
      },
    ],
  },
  EventList: {
    items: [
      {
        eventId: refundStatusChangedExample.id,
        type: 'RefundStatusChanged',
        created: refundStatusChangedExample.created,
        deliveryState: 'delivered',
        event: refundStatusChangedExample,
      },
      {
        eventId: transactionStatusChangedExample.id,
        type: 'TransactionStatusChanged',
        created: transactionStatusChangedExample.created,
        deliveryState: 'retrying',
        event: transactionStatusChangedExample,
      },
    ],
    hasMore: false,
  },
  EventAttempts: {
    eventId: transactionStatusChangedExample.id,
    paymentIntentId: id,
    delivery,
    items: [
      {
        attempt: 1,
        roundAttempt: 1,
        trigger: 'automatic',
        deliveryId: 'dlv_7c1d2e3f4a5b6c5b1f0c2a9d3e4f6a8b',
        attemptedAt: later,
        url: 'https://merchant.example.com/webhooks',
        destination: 'endpoint',
        statusCode: 200,
        durationMs: 84,
        error: null,
        outcome: 'delivered',
        nextAttemptAt: null,
      },
    ],
  },
  ResendQueued: { eventId: transactionStatusChangedExample.id, resendId: 'rsd_2e3f4a5b6c7d8e9f', status: 'queued', requestedAt: later },
  ProviderCallbackResult: { paymentIntentId: id, status: 'Completed', changed: true },
  OpenApiDocument: { openapi: '3.1.0', info: { title: 'Svc Payment Gateway API', version: '1' }, paths: {} },
};
