// GENERATED FILE: do not edit by hand. Source: docs/openapi.json (the gateway’s OpenAPI document).
// Regenerate with `npm run sdk:types` (or `npm run docs`); test/sdk/types.test.ts fails when this file is stale.

// ---- Schemas (components.schemas) ----

export interface Balance {
  /** The merchant id. */
  userId: string;
  walletId: string;
  /** availableBalance + pendingBalance. */
  currentBalance: number;
  /** Held by pending withdrawals, settlements and refunds. */
  pendingBalance: number;
  /** What can be paid out or settled now. */
  availableBalance: number;
  /** ISO 4217 code, or USDT. */
  currency: string;
  pendingTransactionCount: number;
  pendingByTransactionType: Record<string, number>;
  retrievedAt: string;
}

export interface BalanceTransactionList {
  items: ({
    /** btx_…: the journal id and its time; a cursor for startingAfter. */
    id: string;
    type: "payment" | "deposit" | "payout" | "payout_paid" | "payout_failure" | "settlement" | "settlement_paid" | "settlement_failure" | "refund" | "refund_paid" | "refund_failure" | "adjustment";
    source: {
      type: "transaction" | "settlement" | "refund" | "operator";
      /** The transaction, settlement or refund id; an adjustment: operator:<reference>. */
      id: string;
    };
    /** What came in from or went out to the outside world; 0 for a hold or a release. A decimal amount in the currency's major unit: 1500 is 1,500.00 and 12.5 is 12.50 (PKR and USD: at most 2 decimals, USDT: 6). Not minor units; the gateway stores integer minor units internally. */
    amount: number;
    /** The fee this movement charged. */
    fee: number;
    /** amount − fee: the change of currentBalance (available + pending). */
    net: number;
    /** The change of availableBalance. */
    availableChange: number;
    /** The change of pendingBalance (money held for a payout, settlement or refund). */
    pendingChange: number;
    /** ISO 4217 code, or USDT. */
    currency: string;
    createdAt: string;
    /** availableBalance after this movement, in journal order; null on pages more than 1,000 movements deep. */
    availableBalanceAfter: number | null;
  })[];
  hasMore: boolean;
}

export interface CheckoutCreated {
  paymentIntentId: string;
  /** The hosted checkout page: send the customer here. */
  checkoutUrl: string;
  expiresAt: string;
}

export interface DepositCreated {
  paymentIntentId: string;
  /** A decimal amount in the currency's major unit: 1500 is 1,500.00 and 12.5 is 12.50 (PKR and USD: at most 2 decimals, USDT: 6). Not minor units; the gateway stores integer minor units internally. */
  amount: number;
  /** ISO 4217 code, or USDT. */
  currency: string;
  merchantReference: string;
  walletChargeInfo: {
    provider: string;
    status: string;
    transactionReference: string;
    message: string;
    isSuccess: boolean;
    errorCode: string | null;
    errorDetails: string | null;
    traceId: string;
  };
}

export interface EventAttempts {
  eventId: string;
  paymentIntentId: string | null;
  delivery: {
    /** pending, delivered, retrying, failed, … */
    state: string;
    attempts: number;
    lastAttemptAt: string | null;
    lastStatusCode: number | null;
    /** A category (timeout, connection_refused, …), never a raw error. */
    lastError: string | null;
    nextAttemptAt: string | null;
    deliveredAt: string | null;
  };
  items: ({
    attempt: number;
    roundAttempt: number;
    trigger: "automatic" | "resend" | "redrive";
    deliveryId: string;
    attemptedAt: string;
    url: string | null;
    destination: "callbackUrl" | "endpoint" | null;
    statusCode: number | null;
    durationMs: number;
    error: string | null;
    outcome: "delivered" | "failed" | "no_destination" | "endpoint_disabled";
    nextAttemptAt: string | null;
  })[];
}

export interface EventList {
  items: ({
    eventId: string;
    type: "TransactionStatusChanged" | "RefundStatusChanged" | "SettlementStatusChanged";
    /** Unix seconds, as in the envelope. */
    created: number;
    deliveryState: "pending" | "retrying" | "delivered" | "dead_lettered" | "no_destination" | "endpoint_disabled";
    /** The envelope exactly as sent (see `webhooks`). */
    event: {
      id: string;
      type: string;
      [field: string]: unknown;
    };
  })[];
  hasMore: boolean;
}

export interface OpenApiDocument {
  openapi: string;
  info: Record<string, unknown>;
  paths: Record<string, unknown>;
  [field: string]: unknown;
}

/** A payment link (docs/payment-links.md). */
export interface PaymentLink {
  /** pl_ and 24 hex characters. */
  id: string;
  /** The short URL to share: {checkout_url}/l/{id}. */
  url: string;
  qrCode: {
    png: string;
    svg: string;
  };
  /** Whether the link takes payments now, and why not. */
  status: "active" | "inactive" | "expired" | "used_up";
  /** false once deactivated (until reactivated). */
  active: boolean;
  isLive: boolean;
  /** ISO 4217 code, or USDT. */
  currency: string;
  description: string;
  /** The fixed amount per item; null when the customer enters the amount. */
  amount: number | null;
  minAmount: number | null;
  maxAmount: number | null;
  /** The most items a customer may choose; null: quantity 1. */
  maxQuantity: number | null;
  /** The most payments the link takes; null: no limit. */
  maxPayments: number | null;
  expiresAt: string | null;
  collect: ("name" | "email" | "phone" | "address")[];
  returnUrl: string | null;
  /** Completed payments. */
  paymentCount: number;
  /** Payments under way (a card or wallet payment started on a checkout of the link, not yet ended): they hold a use. A checkout opened without paying holds none. */
  pendingCount: number;
  /** The sum of the completed payments (before fees and refunds). */
  totalAmount: number;
  /** maxPayments less paid and pending payments; null: no limit. */
  remainingUses: number | null;
  createdAt: string;
  updatedAt: string;
}

export interface PaymentLinkList {
  items: PaymentLink[];
  hasMore: boolean;
}

export interface ProviderCallbackResult {
  paymentIntentId: string;
  status?: "Pending" | "Processing" | "Completed" | "Failed" | "Cancelled" | "Expired";
  changed: boolean;
  held?: true;
}

export interface Refund {
  id: string;
  paymentIntentId: string;
  transactionReference: string;
  /** A decimal amount in the currency's major unit: 1500 is 1,500.00 and 12.5 is 12.50 (PKR and USD: at most 2 decimals, USDT: 6). Not minor units; the gateway stores integer minor units internally. */
  amount: number;
  /** ISO 4217 code, or USDT. */
  currency: string;
  /** A decimal amount in the currency's major unit: 1500 is 1,500.00 and 12.5 is 12.50 (PKR and USD: at most 2 decimals, USDT: 6). Not minor units; the gateway stores integer minor units internally. */
  fee: number;
  reason: string | null;
  /** 0 Pending, 1 Approved, 2 Processing, 3 Completed, 4 Failed, 5 Cancelled, 6 Rejected, 7 Expired. */
  status: number;
  isLive: boolean;
  requestedAt: string;
  approvedAt: string | null;
  processedAt: string | null;
  expiresAt: string;
  attemptCount: number;
  failureReason: string | null;
}

export interface RefundPage {
  items: Refund[];
  page: number;
  pageSize: number;
  totalCount: number;
  totalPages: number;
  hasMore: boolean;
  paymentIntentId: string;
  /** ISO 4217 code, or USDT. */
  currency: string;
  /** A decimal amount in the currency's major unit: 1500 is 1,500.00 and 12.5 is 12.50 (PKR and USD: at most 2 decimals, USDT: 6). Not minor units; the gateway stores integer minor units internally. */
  amount: number;
  /** A decimal amount in the currency's major unit: 1500 is 1,500.00 and 12.5 is 12.50 (PKR and USD: at most 2 decimals, USDT: 6). Not minor units; the gateway stores integer minor units internally. */
  refundedAmount: number;
  /** A decimal amount in the currency's major unit: 1500 is 1,500.00 and 12.5 is 12.50 (PKR and USD: at most 2 decimals, USDT: 6). Not minor units; the gateway stores integer minor units internally. */
  refundableAmount: number;
}

export interface RefundStatusChanged {
  /** evt_…, the same on every delivery attempt. */
  id: string;
  type: "RefundStatusChanged";
  /** Unix seconds. */
  created: number;
  livemode: boolean;
  api_version: "v1";
  data: {
    RefundId: string;
    PaymentIntentId: string;
    TransactionReference: string;
    /** The refund status integer before the change. */
    PreviousStatus: number;
    /** The refund status integer now. */
    CurrentStatus: number;
    CurrentStatusName: "Pending" | "Approved" | "Processing" | "Completed" | "Failed" | "Cancelled" | "Rejected" | "Expired";
    Amount: number;
    Currency: string;
    Reason: string | null;
    AttemptCount: number;
    MerchantId: string;
    Timestamp: string;
    TraceId: string;
  };
}

export interface ResendQueued {
  eventId: string;
  resendId: string;
  status: "queued";
  requestedAt: string;
}

export interface Settlement {
  id: string;
  merchantId: string;
  /** A decimal amount in the currency's major unit: 1500 is 1,500.00 and 12.5 is 12.50 (PKR and USD: at most 2 decimals, USDT: 6). Not minor units; the gateway stores integer minor units internally. */
  amount: number;
  /** ISO 4217 code, or USDT. */
  currency: string;
  /** ISO 4217 code, or USDT. */
  payoutCurrency: string;
  /** (amount - fee) × fxRate; known once approved. */
  payoutAmount: number | null;
  /** A decimal amount in the currency's major unit: 1500 is 1,500.00 and 12.5 is 12.50 (PKR and USD: at most 2 decimals, USDT: 6). Not minor units; the gateway stores integer minor units internally. */
  fee: number;
  /** A decimal amount in the currency's major unit: 1500 is 1,500.00 and 12.5 is 12.50 (PKR and USD: at most 2 decimals, USDT: 6). Not minor units; the gateway stores integer minor units internally. */
  netAmount: number;
  fxRate: number | null;
  fxRateTimestamp: string | null;
  bankName: string | null;
  iban: string | null;
  accountTitle: string | null;
  usdtAddress: string | null;
  usdtNetwork: "TRC20" | "ERC20" | null;
  /** 0 Pending, 1 Approved, 2 Processing, 3 Completed, 4 Failed, 5 Cancelled. */
  status: number;
  isLive: boolean;
  requestedAt: string;
  approvedAt: string | null;
  processedAt: string | null;
  failureReason: string | null;
  isAuto: boolean;
  /** GET /Settlements/{id} only: the balance transactions it covers, totalled; null unless breakdownStatus is available. */
  breakdown?: {
    /** Left available after the previous settlement (its carriedForward); 0 for the first. A decimal amount in the currency's major unit: 1500 is 1,500.00 and 12.5 is 12.50 (PKR and USD: at most 2 decimals, USDT: 6). Not minor units; the gateway stores integer minor units internally. */
    carriedIn: number;
    /** Payments and deposits covered: their amounts. A decimal amount in the currency's major unit: 1500 is 1,500.00 and 12.5 is 12.50 (PKR and USD: at most 2 decimals, USDT: 6). Not minor units; the gateway stores integer minor units internally. */
    gross: number;
    /** Their fees. A decimal amount in the currency's major unit: 1500 is 1,500.00 and 12.5 is 12.50 (PKR and USD: at most 2 decimals, USDT: 6). Not minor units; the gateway stores integer minor units internally. */
    fees: number;
    /** Held for refunds, less refunds that failed. A decimal amount in the currency's major unit: 1500 is 1,500.00 and 12.5 is 12.50 (PKR and USD: at most 2 decimals, USDT: 6). Not minor units; the gateway stores integer minor units internally. */
    refunds: number;
    /** Held for payouts (amount + fee), less payouts that failed. A decimal amount in the currency's major unit: 1500 is 1,500.00 and 12.5 is 12.50 (PKR and USD: at most 2 decimals, USDT: 6). Not minor units; the gateway stores integer minor units internally. */
    payouts: number;
    /** Adjustments, released settlements, anything else that moved the available balance. A decimal amount in the currency's major unit: 1500 is 1,500.00 and 12.5 is 12.50 (PKR and USD: at most 2 decimals, USDT: 6). Not minor units; the gateway stores integer minor units internally. */
    other: number;
    /** gross − fees − refunds − payouts + other: what the covered movements added to availableBalance. A decimal amount in the currency's major unit: 1500 is 1,500.00 and 12.5 is 12.50 (PKR and USD: at most 2 decimals, USDT: 6). Not minor units; the gateway stores integer minor units internally. */
    net: number;
    /** The settlement amount. A decimal amount in the currency's major unit: 1500 is 1,500.00 and 12.5 is 12.50 (PKR and USD: at most 2 decimals, USDT: 6). Not minor units; the gateway stores integer minor units internally. */
    amount: number;
    /** carriedIn + net − amount: what stayed available (the next settlement’s carriedIn). A decimal amount in the currency's major unit: 1500 is 1,500.00 and 12.5 is 12.50 (PKR and USD: at most 2 decimals, USDT: 6). Not minor units; the gateway stores integer minor units internally. */
    carriedForward: number;
    /** How many balance transactions it covers (BalanceTransactions?settlement=<id> lists them). */
    count: number;
  } | null;
  /** GET /Settlements/{id} only. available: breakdown holds the totals. computing: it covers more movements than a request sums (20,000 by default) and is being summed in the background; ask again in a minute. unavailable: created before breakdowns existed, it has none. */
  breakdownStatus?: "available" | "computing" | "unavailable";
}

export interface SettlementPage {
  items: Settlement[];
  page: number;
  pageSize: number;
  totalCount: number;
  totalPages: number;
  hasMore: boolean;
}

export interface SettlementSchedule {
  merchantId: string;
  isLive: boolean;
  enabled: boolean;
  /** manual, daily, weekly or monthly. */
  frequency: string;
  /** weekly: 1 (Monday) … 7; monthly: 1 … 28; otherwise null. */
  dayOfPeriod: number | null;
  hourUtc: number;
  /** ISO 4217 code, or USDT. */
  currency: string;
  /** A decimal amount in the currency's major unit: 1500 is 1,500.00 and 12.5 is 12.50 (PKR and USD: at most 2 decimals, USDT: 6). Not minor units; the gateway stores integer minor units internally. */
  minimumBalance: number;
  destination: {
    type: "bank_transfer";
    bankName: string;
    accountTitle: string;
    ibanLast4: string;
  } | null;
  nextRunAt: string | null;
}

export interface SettlementStatusChanged {
  /** evt_…, the same on every delivery attempt. */
  id: string;
  type: "SettlementStatusChanged";
  /** Unix seconds. */
  created: number;
  livemode: boolean;
  api_version: "v1";
  data: {
    SettlementId: string;
    /** The settlement status integer before the change. */
    PreviousStatus: number;
    /** The settlement status integer now. */
    CurrentStatus: number;
    CurrentStatusName: "Pending" | "Approved" | "Processing" | "Completed" | "Failed" | "Cancelled";
    Amount: number;
    Currency: string;
    PayoutCurrency: string;
    PayoutAmount: number | null;
    FxRate: number | null;
    FailureReason: string | null;
    IsAuto: boolean;
    MerchantId: string;
    Timestamp: string;
    TraceId: string;
    /** What the settlement paid out, as on GET /Settlements/{id} (breakdown), in PascalCase: CarriedIn + Net = Amount + CarriedForward. null for a settlement created before breakdowns existed, and when the change happened while a large breakdown was still being summed (GET /Settlements/{id} has it once stored). */
    Breakdown: {
      CarriedIn: number;
      Gross: number;
      Fees: number;
      Refunds: number;
      Payouts: number;
      Other: number;
      Net: number;
      Amount: number;
      CarriedForward: number;
      Count: number;
    } | null;
  };
}

/** The transaction object (docs/merchant-guide.md, Transaction lookup): a checkout, deposit or withdrawal. */
export interface Transaction {
  paymentIntentId: string;
  intentType: "checkout" | "deposit" | "withdrawal";
  status: "Pending" | "Processing" | "Completed" | "Failed" | "Cancelled" | "Expired";
  /** A decimal amount in the currency's major unit: 1500 is 1,500.00 and 12.5 is 12.50 (PKR and USD: at most 2 decimals, USDT: 6). Not minor units; the gateway stores integer minor units internally. */
  amount: number;
  /** ISO 4217 code, or USDT. */
  currency: string;
  /** A decimal amount in the currency's major unit: 1500 is 1,500.00 and 12.5 is 12.50 (PKR and USD: at most 2 decimals, USDT: 6). Not minor units; the gateway stores integer minor units internally. */
  fee: number;
  /** A decimal amount in the currency's major unit: 1500 is 1,500.00 and 12.5 is 12.50 (PKR and USD: at most 2 decimals, USDT: 6). Not minor units; the gateway stores integer minor units internally. */
  refundedAmount: number;
  merchantReference: string;
  transactionReference: string;
  orderRef: {
    orderRef: string;
    discount: string | null;
    tax: string | null;
  };
  customerRef: Record<string, string> | null;
  description: string;
  metadataJson: string | null;
  isLive: boolean;
  reason: string | null;
  createdAt: string;
  updatedAt: string;
  /** Checkouts only. */
  expiresAt?: string | null;
  /** Checkouts only. */
  paymentMethod?: string | number | null;
  /** Checkouts paid by card: brand and last four only, never the number. */
  card?: {
    brand: string;
    last4: string;
    expMonth: number;
    expYear: number;
  } | null;
  /** Checkouts only. */
  walletProvider?: string | null;
  /** Checkouts only. */
  walletNumberLast4?: string | null;
  /** Checkouts only: every finished payment attempt, oldest first. A declined or failed attempt leaves the session payable until 3 have failed (merchant guide, Hosted checkout: Declined and failed attempts). */
  attempts?: ({
    /** 1-based, in the order the attempts finished. */
    number: number;
    method: "card" | "wallet";
    outcome: "succeeded" | "failed";
    /** Why it failed (a reason code); null when it succeeded. */
    reason: "card_declined" | "insufficient_funds" | "authentication_failed" | "otp_failed" | "customer_cancelled" | "expired" | "customer_declined" | "wallet_declined" | "unknown_reference" | "not_approved" | "declined_merchant_suspended" | "bank_rejected" | "payout_not_sent" | "rejected_by_operator" | null;
    reasonDetail: string | null;
    card: {
      brand: string;
      last4: string;
      expMonth: number;
      expYear: number;
    } | null;
    walletProvider: string | null;
    walletNumberLast4: string | null;
    at: string;
  })[];
  /** Deposits only. */
  walletChargeInfo?: {
    provider: string;
    status: string;
    transactionReference: string;
    message: string;
    isSuccess: boolean;
    errorCode: string | null;
    errorDetails: string | null;
    traceId: string;
  } | null;
  /** Withdrawals only. */
  payoutInfo?: {
    status: "Pending" | "Processing" | "Completed" | "Failed" | "Cancelled" | "Expired";
    provider: string;
    transactionReference: string;
    message: string;
    isSuccess: boolean;
    errorCode: "WP_REQUEST_REJECTED" | "WP_OUTCOME_PENDING" | "WP_INTERNAL_ERROR" | null;
    errorDetails: string | null;
    traceId: string;
    estimatedCompletionTime: string | null;
    customerBankName: string;
    /** Masked: only the last four characters show. */
    customerAccountNumber: string;
  } | null;
  traceId: string;
}

export interface TransactionEvents {
  paymentIntentId: string;
  items: ({
    eventId: string;
    type: string;
    created: number;
    previousStatus?: string | number | null;
    currentStatus?: string | number | null;
    delivery: {
      /** pending, delivered, retrying, failed, … */
      state: string;
      attempts: number;
      lastAttemptAt: string | null;
      lastStatusCode: number | null;
      /** A category (timeout, connection_refused, …), never a raw error. */
      lastError: string | null;
      nextAttemptAt: string | null;
      deliveredAt: string | null;
    };
    /** The event exactly as delivered (see `webhooks`). */
    event: {
      id: string;
      type: string;
      [field: string]: unknown;
    };
  })[];
}

export interface TransactionList {
  items: Transaction[];
  hasMore: boolean;
}

export interface TransactionStatusChanged {
  /** evt_…, the same on every delivery attempt. */
  id: string;
  type: "TransactionStatusChanged";
  /** Unix seconds. */
  created: number;
  livemode: boolean;
  api_version: "v1";
  data: {
    TransactionId: string;
    PreviousStatus: "Pending" | "Processing" | "Completed" | "Failed" | "Cancelled" | "Expired";
    CurrentStatus: "Pending" | "Processing" | "Completed" | "Failed" | "Cancelled" | "Expired";
    Amount: number;
    Currency: string;
    /** A stable reason code (see the merchant guide, Reason codes); null when none. */
    Reason: "card_declined" | "insufficient_funds" | "authentication_failed" | "otp_failed" | "customer_cancelled" | "expired" | "customer_declined" | "wallet_declined" | "unknown_reference" | "not_approved" | "declined_merchant_suspended" | "bank_rejected" | "payout_not_sent" | "rejected_by_operator" | null;
    /** Free text for people; never branch on it. */
    ReasonDetail: string | null;
    TransactionReference: string;
    CustomerRef: Record<string, string> | null;
    /** A JSON string holding OrderRef, Discount, Tax: parse it. */
    OrderRef: string;
    MerchantId: string;
    Timestamp: string;
    TraceId: string;
    IntentType: string;
    MetadataJson: string | null;
  };
}

export interface Withdrawal {
  paymentIntentId: string;
  /** A decimal amount in the currency's major unit: 1500 is 1,500.00 and 12.5 is 12.50 (PKR and USD: at most 2 decimals, USDT: 6). Not minor units; the gateway stores integer minor units internally. */
  amount: number;
  /** ISO 4217 code, or USDT. */
  currency: string;
  merchantReference: string;
  isLive: boolean;
  /** A decimal amount in the currency's major unit: 1500 is 1,500.00 and 12.5 is 12.50 (PKR and USD: at most 2 decimals, USDT: 6). Not minor units; the gateway stores integer minor units internally. */
  fee: number;
  /** amount + fee, held from availableBalance at once. */
  totalRequired: number;
  /** A decimal amount in the currency's major unit: 1500 is 1,500.00 and 12.5 is 12.50 (PKR and USD: at most 2 decimals, USDT: 6). Not minor units; the gateway stores integer minor units internally. */
  availableBalance: number;
  payoutInfo: {
    status: "Pending" | "Processing" | "Completed" | "Failed" | "Cancelled" | "Expired";
    provider: string;
    transactionReference: string;
    message: string;
    isSuccess: boolean;
    errorCode: "WP_REQUEST_REJECTED" | "WP_OUTCOME_PENDING" | "WP_INTERNAL_ERROR" | null;
    errorDetails: string | null;
    traceId: string;
    estimatedCompletionTime: string | null;
    customerBankName: string;
    /** Masked: only the last four characters show. */
    customerAccountNumber: string;
  };
  traceId: string;
}

/** Field path (`orderRef.orderRef`, `query.limit`, `(root)`) → messages: `required` for a missing member, `must be a number, not a string` for a mistyped one, otherwise the rule the value breaks. */
export type FieldErrors = Record<string, string[]>;

/** Problem details (RFC 9457). `code` is stable: branch on it, not on `detail`. */
export interface Problem {
  /** The RFC 9110 section of the status. */
  type: string;
  title: string;
  status: number;
  detail: string;
  /** Stable machine-readable code. Defaults per status: 400 `invalid_request`, 401 `unauthorized`, 403 `forbidden`, 404 `not_found`, 405 `method_not_allowed`, 409 `conflict`, 413 `body_too_large`, 415 `unsupported_media_type`, 422 `business_rule_violation`, 429 `rate_limited`, 500 `internal_error`, 503 `service_unavailable`; the specific ones: `unknown_parameter`, `invalid_json`, `body_too_deep`, `invalid_signature`, `signature_mismatch`, `invalid_idempotency_key`, `missing_scope`, `merchant_suspended`, `idempotency_in_flight`, `idempotency_key_reused`, `concurrent_update`, `amount_below_minimum`, `amount_too_small`, `amount_exceeds_refundable`, `amount_range_invalid`, `duplicate_order_ref`, `insufficient_balance`, `unsupported_currency`, `invalid_status`, `not_pending`, `already_refunded`, `not_refundable`, `unsupported_bank_code`, `expiry_in_past`, `callback_url_refused`, `approver_not_allowed`, `provider_unavailable`, `wallet_provider_unavailable`, `insufficient_customer_balance`, `charge_rejected`, `settlement_rail_unavailable`, `payout_provider_unavailable`, `refund_provider_unavailable`, `fx_unavailable`, `fx_pair_unsupported`, `export_too_large`, `statement_period_open`, `ledger_unbalanced`, `balance_not_ready`, `provider_signature_invalid`, `provider_notification_mismatch`, `bank_reference_required`, `reason_required`, `already_marked`. What each means: the Errors guide (/docs/errors). */
  code: string;
  /** Equal to the Svc-Trace-Id header. */
  traceId: string;
  errors?: FieldErrors;
  /** What to check next, with a link to the guide (e.g. on `signature_mismatch`). */
  hint?: string;
}

/** A 400: `errors` names every field at fault. */
export interface ValidationProblem {
  /** The RFC 9110 section of the status. */
  type: string;
  title: string;
  status: number;
  detail: string;
  /** Stable machine-readable code. Defaults per status: 400 `invalid_request`, 401 `unauthorized`, 403 `forbidden`, 404 `not_found`, 405 `method_not_allowed`, 409 `conflict`, 413 `body_too_large`, 415 `unsupported_media_type`, 422 `business_rule_violation`, 429 `rate_limited`, 500 `internal_error`, 503 `service_unavailable`; the specific ones: `unknown_parameter`, `invalid_json`, `body_too_deep`, `invalid_signature`, `signature_mismatch`, `invalid_idempotency_key`, `missing_scope`, `merchant_suspended`, `idempotency_in_flight`, `idempotency_key_reused`, `concurrent_update`, `amount_below_minimum`, `amount_too_small`, `amount_exceeds_refundable`, `amount_range_invalid`, `duplicate_order_ref`, `insufficient_balance`, `unsupported_currency`, `invalid_status`, `not_pending`, `already_refunded`, `not_refundable`, `unsupported_bank_code`, `expiry_in_past`, `callback_url_refused`, `approver_not_allowed`, `provider_unavailable`, `wallet_provider_unavailable`, `insufficient_customer_balance`, `charge_rejected`, `settlement_rail_unavailable`, `payout_provider_unavailable`, `refund_provider_unavailable`, `fx_unavailable`, `fx_pair_unsupported`, `export_too_large`, `statement_period_open`, `ledger_unbalanced`, `balance_not_ready`, `provider_signature_invalid`, `provider_notification_mismatch`, `bank_reference_required`, `reason_required`, `already_marked`. What each means: the Errors guide (/docs/errors). */
  code: string;
  /** Equal to the Svc-Trace-Id header. */
  traceId: string;
  errors: FieldErrors;
  /** What to check next, with a link to the guide (e.g. on `signature_mismatch`). */
  hint?: string;
}

// ---- queryBalance: POST /Gateway/v1/Account/query-balance ----

/** Query parameters of queryBalance. */
export interface QueryBalanceQuery {
  currency?: string;
}

/** 200 answer of queryBalance. */
export type QueryBalanceResponse = Balance;

// ---- settlementSchedule: GET /Gateway/v1/Settlements/schedule ----

/** 200 answer of settlementSchedule. */
export type SettlementScheduleResponse = SettlementSchedule;

// ---- createSettlement: POST /Gateway/v1/Settlements ----

/** Body of createSettlement (`signature` is added by the client). */
export interface CreateSettlementParams {
  /** A decimal amount in the currency's major unit: 1500 is 1,500.00 and 12.5 is 12.50 (PKR and USD: at most 2 decimals, USDT: 6). Not minor units; the gateway stores integer minor units internally. */
  amount: number;
  currency?: null | "" | string;
  payoutCurrency?: null | "" | string;
  bankName?: null | "" | string;
  iban?: null | "" | string;
  accountTitle?: null | "" | string;
  usdtAddress?: null | "" | string;
}

/** 200 answer of createSettlement. */
export type CreateSettlementResponse = Settlement;

// ---- listSettlements: GET /Gateway/v1/Settlements ----

/** Query parameters of listSettlements. */
export interface ListSettlementsQuery {
  MerchantId?: string;
  /** A whole number from 0 to 5. */
  Status?: number | string;
  /** An ISO 8601 date or date-time (2025-01-31 or 2025-01-31T12:00:00Z); a date alone is the start of that day (UTC) as a lower bound, its end as an upper one. */
  From?: string;
  /** An ISO 8601 date or date-time (2025-01-31 or 2025-01-31T12:00:00Z); a date alone is the start of that day (UTC) as a lower bound, its end as an upper one. */
  To?: string;
  /** A whole number from 1 to 100000. */
  Page?: number | string;
  /** A whole number from 1 to 100. */
  PageSize?: number | string;
}

/** 200 answer of listSettlements. */
export type ListSettlementsResponse = SettlementPage;

// ---- getSettlement: GET /Gateway/v1/Settlements/{id} ----

/** 200 answer of getSettlement. */
export type GetSettlementResponse = Settlement;

// ---- createRefund: POST /Gateway/v1/Refunds ----

/** Body of createRefund (`signature` is added by the client). */
export interface CreateRefundParams {
  trxnRef: string;
  amount?: number | null;
  reason?: string | null;
}

/** 201 answer of createRefund. */
export type CreateRefundResponse = Refund;

// ---- listRefunds: GET /Gateway/v1/Refunds ----

/** Query parameters of listRefunds. */
export interface ListRefundsQuery {
  trxnRef: string;
  /** A whole number from 1 to 100000. */
  Page?: string;
  /** A whole number from 1 to 100. */
  PageSize?: string;
}

/** 200 answer of listRefunds. */
export type ListRefundsResponse = RefundPage;

// ---- getRefund: GET /Gateway/v1/Refunds/{id} ----

/** 200 answer of getRefund. */
export type GetRefundResponse = Refund;

// ---- initiateCheckout: POST /Gateway/v1/Payment/initiate-checkout ----

/** Body of initiateCheckout (`signature` is added by the client). */
export interface InitiateCheckoutParams {
  /** A decimal amount in the currency's major unit: 1500 is 1,500.00 and 12.5 is 12.50 (PKR and USD: at most 2 decimals, USDT: 6). Not minor units; the gateway stores integer minor units internally. */
  amount: number;
  currency?: null | "" | string;
  /** What is paid for: letters, digits and spaces only (A-Z, a-z, 0-9 and space: no commas, dots or other signs), 1-200 characters, e.g. "Blue shirt size M". */
  description: string;
  customerRef?: null | "" | {
    name?: string | null;
    email?: string | null;
    cnic?: string | null;
    phone?: string | null;
    shippingAddress?: string | null;
    estimatedDays?: string | null;
  };
  orderRef: {
    /** Your reference, unique per merchant and mode: letters and digits only (A-Z, a-z, 0-9: no dashes, spaces or other signs), at most 100 characters, e.g. "ORDER1001" (not "ORDER-1001"). */
    orderRef: string;
    discount?: string | null;
    tax?: string | null;
  };
  callbackUrl?: null | "" | string;
  returnUrl?: null | "" | string;
  intentType?: null | "" | "checkout";
  paymentMethod?: null | "" | 1 | 2;
  metadataJson?: null | "" | string;
}

/** 200 answer of initiateCheckout. */
export type InitiateCheckoutResponse = CheckoutCreated;

// ---- createPaymentLink: POST /Gateway/v1/PaymentLinks ----

/** Body of createPaymentLink (`signature` is added by the client). */
export interface CreatePaymentLinkParams {
  amount?: null | "" | number;
  minAmount?: null | "" | number;
  maxAmount?: null | "" | number;
  currency?: null | "" | string;
  /** What is paid for: letters, digits and spaces only (A-Z, a-z, 0-9 and space: no commas, dots or other signs), 1-200 characters, e.g. "Blue shirt size M". */
  description: string;
  maxQuantity?: null | "" | number;
  maxPayments?: null | "" | number;
  expiresAt?: null | "" | string;
  collect?: null | "" | ("name" | "email" | "phone" | "address")[];
  returnUrl?: null | "" | string;
}

/** 201 answer of createPaymentLink. */
export type CreatePaymentLinkResponse = PaymentLink;

// ---- listPaymentLinks: GET /Gateway/v1/PaymentLinks ----

/** Query parameters of listPaymentLinks. */
export interface ListPaymentLinksQuery {
  /** A whole number from 1 to 100. */
  limit?: number | string;
  startingAfter?: string;
}

/** 200 answer of listPaymentLinks. */
export type ListPaymentLinksResponse = PaymentLinkList;

// ---- getPaymentLink: GET /Gateway/v1/PaymentLinks/{id} ----

/** 200 answer of getPaymentLink. */
export type GetPaymentLinkResponse = PaymentLink;

// ---- deactivatePaymentLink: POST /Gateway/v1/PaymentLinks/{id}/deactivate ----

/** 200 answer of deactivatePaymentLink. */
export type DeactivatePaymentLinkResponse = PaymentLink;

// ---- reactivatePaymentLink: POST /Gateway/v1/PaymentLinks/{id}/reactivate ----

/** 200 answer of reactivatePaymentLink. */
export type ReactivatePaymentLinkResponse = PaymentLink;

// ---- listTransactions: GET /Gateway/v1/Transactions ----

/** Query parameters of listTransactions. */
export interface ListTransactionsQuery {
  status?: "Pending" | "Processing" | "Completed" | "Failed" | "Cancelled" | "Expired";
  intentType?: "checkout" | "deposit" | "withdrawal";
  /** An ISO 8601 date or date-time (2025-01-31 or 2025-01-31T12:00:00Z); a date alone is the start of that day (UTC) as a lower bound, its end as an upper one. */
  from?: string;
  /** An ISO 8601 date or date-time (2025-01-31 or 2025-01-31T12:00:00Z); a date alone is the start of that day (UTC) as a lower bound, its end as an upper one. */
  to?: string;
  orderRef?: string;
  /** A payment link's id (pl_…): only the payments made through that link; takes no filter but limit and startingAfter. */
  paymentLinkId?: string;
  /** A whole number from 1 to 100. */
  limit?: number | string;
  startingAfter?: string;
}

/** 200 answer of listTransactions. */
export type ListTransactionsResponse = TransactionList;

// ---- transactionByRef: GET /Gateway/v1/Transaction/by-ref/{reference} ----

/** 200 answer of transactionByRef. */
export type TransactionByRefResponse = Transaction;

// ---- transactionByRefAlias: GET /Gateway/v1/Transaction/{reference} ----

/** 200 answer of transactionByRefAlias. */
export type TransactionByRefAliasResponse = Transaction;

// ---- listBalanceTransactions: GET /Gateway/v1/BalanceTransactions ----

/** Query parameters of listBalanceTransactions. */
export interface ListBalanceTransactionsQuery {
  type?: "payment" | "deposit" | "payout" | "payout_paid" | "payout_failure" | "settlement" | "settlement_paid" | "settlement_failure" | "refund" | "refund_paid" | "refund_failure" | "adjustment";
  sourceId?: string;
  settlement?: string;
  payout?: string;
  /** An ISO 8601 date or date-time (2025-01-31 or 2025-01-31T12:00:00Z); a date alone is the start of that day (UTC) as a lower bound, its end as an upper one. */
  from?: string;
  /** An ISO 8601 date or date-time (2025-01-31 or 2025-01-31T12:00:00Z); a date alone is the start of that day (UTC) as a lower bound, its end as an upper one. */
  to?: string;
  /** A whole number from 1 to 100. */
  limit?: number | string;
  startingAfter?: string;
}

/** 200 answer of listBalanceTransactions. */
export type ListBalanceTransactionsResponse = BalanceTransactionList;

// ---- statementCsv: GET /Gateway/v1/Statements/{period} ----

/** Query parameters of statementCsv. */
export interface StatementCsvQuery {
  currency?: string;
}

/** 200 answer of statementCsv. */
export type StatementCsvResponse = unknown;

// ---- statementPdf: GET /Gateway/v1/Statements/{period}/pdf ----

/** Query parameters of statementPdf. */
export interface StatementPdfQuery {
  currency?: string;
}

/** 200 answer of statementPdf. */
export type StatementPdfResponse = unknown;

// ---- transactionEvents: GET /Gateway/v1/Transaction/{reference}/events ----

/** 200 answer of transactionEvents. */
export type TransactionEventsResponse = TransactionEvents;

// ---- eventAttempts: GET /Gateway/v1/Events/{eventId}/attempts ----

/** 200 answer of eventAttempts. */
export type EventAttemptsResponse = EventAttempts;

// ---- listEvents: GET /Gateway/v1/Events ----

/** Query parameters of listEvents. */
export interface ListEventsQuery {
  type?: string;
  /** An ISO 8601 date or date-time (2025-01-31 or 2025-01-31T12:00:00Z); a date alone is the start of that day (UTC) as a lower bound, its end as an upper one. */
  since?: string;
  /** An ISO 8601 date or date-time (2025-01-31 or 2025-01-31T12:00:00Z); a date alone is the start of that day (UTC) as a lower bound, its end as an upper one. */
  until?: string;
  deliveryState?: "pending" | "retrying" | "delivered" | "dead_lettered" | "no_destination" | "endpoint_disabled";
  /** A whole number from 1 to 100. */
  limit?: number | string;
  startingAfter?: string;
}

/** 200 answer of listEvents. */
export type ListEventsResponse = EventList;

// ---- resendEvent: POST /Gateway/v1/Events/{eventId}/resend ----

/** 202 answer of resendEvent. */
export type ResendEventResponse = ResendQueued;

// ---- deposit: POST /Gateway/v1/Payment/deposit ----

/** Body of deposit (`signature` is added by the client). */
export interface DepositParams {
  mobileNumber: string;
  /** A decimal amount in the currency's major unit: 1500 is 1,500.00 and 12.5 is 12.50 (PKR and USD: at most 2 decimals, USDT: 6). Not minor units; the gateway stores integer minor units internally. */
  amount: number;
  walletProvider?: null | "" | 1 | 2;
  paymentMethod?: null | "" | 1 | 2;
  currency?: null | "" | string;
  /** What is paid for: letters, digits and spaces only (A-Z, a-z, 0-9 and space: no commas, dots or other signs), 1-200 characters, e.g. "Blue shirt size M". */
  description: string;
  callbackUrl?: null | "" | string;
  intentType?: null | "" | "deposit";
  customerRef?: null | "" | {
    name?: string | null;
    email?: string | null;
    cnic?: string | null;
    phone?: string | null;
    shippingAddress?: string | null;
    estimatedDays?: string | null;
  };
  orderRef: {
    /** Your reference, unique per merchant and mode: letters and digits only (A-Z, a-z, 0-9: no dashes, spaces or other signs), at most 100 characters, e.g. "ORDER1001" (not "ORDER-1001"). */
    orderRef: string;
    discount?: string | null;
    tax?: string | null;
  };
  metadataJson?: null | "" | string;
}

/** 200 answer of deposit. */
export type DepositResponse = DepositCreated;

// ---- withdraw: POST /Gateway/v1/Payment/withdraw ----

/** Body of withdraw (`signature` is added by the client). */
export interface WithdrawParams {
  /** A decimal amount in the currency's major unit: 1500 is 1,500.00 and 12.5 is 12.50 (PKR and USD: at most 2 decimals, USDT: 6). Not minor units; the gateway stores integer minor units internally. */
  amount: number;
  currency: string;
  /** What is paid for: letters, digits and spaces only (A-Z, a-z, 0-9 and space: no commas, dots or other signs), 1-200 characters, e.g. "Blue shirt size M". */
  description: string;
  intentType?: null | "" | "withdrawal";
  autoProcessPayout?: boolean | null;
  metadataJson?: null | "" | string;
  callbackUrl?: null | "" | string;
  customerRef: {
    bankAccountNumber: string;
    bankCode: string;
    accountTitle: string;
    bankName?: null | "" | string;
    name?: null | "" | string;
    email?: null | "" | string;
    cnic?: null | "" | string;
    phone?: null | "" | string;
  };
  orderRef: {
    /** Your reference, unique per merchant and mode: letters and digits only (A-Z, a-z, 0-9: no dashes, spaces or other signs), at most 100 characters, e.g. "ORDER1001" (not "ORDER-1001"). */
    orderRef: string;
    discount?: string | null;
    tax?: string | null;
  };
}

/** 200 answer of withdraw. */
export type WithdrawResponse = Withdrawal;

/** Every merchant API operation by operationId: method, path, parameters, body, answer, and the problem statuses it can answer. */
export interface Operations {
  /** Wallet balance for the key’s mode, in the merchant’s currency */
  queryBalance: {
    method: "POST";
    path: "/Gateway/v1/Account/query-balance";
    pathParams: Record<string, never>;
    query: QueryBalanceQuery;
    params: never;
    response: QueryBalanceResponse;
    errorStatus: 400 | 401 | 403 | 404 | 409 | 413 | 415 | 422 | 429 | 500;
  };
  /** The merchant’s automatic settlement schedule */
  settlementSchedule: {
    method: "GET";
    path: "/Gateway/v1/Settlements/schedule";
    pathParams: Record<string, never>;
    query: never;
    params: never;
    response: SettlementScheduleResponse;
    errorStatus: 401 | 403 | 404 | 429 | 500;
  };
  /** Settle wallet funds to a bank account or a USDT address */
  createSettlement: {
    method: "POST";
    path: "/Gateway/v1/Settlements";
    pathParams: Record<string, never>;
    query: never;
    params: CreateSettlementParams;
    response: CreateSettlementResponse;
    errorStatus: 400 | 401 | 403 | 404 | 409 | 413 | 415 | 422 | 429 | 500;
  };
  /** The merchant’s settlements, newest first */
  listSettlements: {
    method: "GET";
    path: "/Gateway/v1/Settlements";
    pathParams: Record<string, never>;
    query: ListSettlementsQuery;
    params: never;
    response: ListSettlementsResponse;
    errorStatus: 400 | 401 | 403 | 404 | 429 | 500;
  };
  /** One settlement by id */
  getSettlement: {
    method: "GET";
    path: "/Gateway/v1/Settlements/{id}";
    pathParams: { id: string };
    query: never;
    params: never;
    response: GetSettlementResponse;
    errorStatus: 400 | 401 | 403 | 404 | 429 | 500;
  };
  /** Refund all or part of a Completed checkout or deposit */
  createRefund: {
    method: "POST";
    path: "/Gateway/v1/Refunds";
    pathParams: Record<string, never>;
    query: never;
    params: CreateRefundParams;
    response: CreateRefundResponse;
    errorStatus: 400 | 401 | 403 | 404 | 409 | 413 | 415 | 422 | 429 | 500;
  };
  /** The refunds of one transaction, newest first, with its refundedAmount and refundableAmount */
  listRefunds: {
    method: "GET";
    path: "/Gateway/v1/Refunds";
    pathParams: Record<string, never>;
    query: ListRefundsQuery;
    params: never;
    response: ListRefundsResponse;
    errorStatus: 400 | 401 | 403 | 404 | 429 | 500;
  };
  /** One refund by id */
  getRefund: {
    method: "GET";
    path: "/Gateway/v1/Refunds/{id}";
    pathParams: { id: string };
    query: never;
    params: never;
    response: GetRefundResponse;
    errorStatus: 400 | 401 | 403 | 404 | 429 | 500;
  };
  /** Creates a hosted checkout session */
  initiateCheckout: {
    method: "POST";
    path: "/Gateway/v1/Payment/initiate-checkout";
    pathParams: Record<string, never>;
    query: never;
    params: InitiateCheckoutParams;
    response: InitiateCheckoutResponse;
    errorStatus: 400 | 401 | 403 | 404 | 409 | 413 | 415 | 422 | 429 | 500;
  };
  /** Creates a payment link */
  createPaymentLink: {
    method: "POST";
    path: "/Gateway/v1/PaymentLinks";
    pathParams: Record<string, never>;
    query: never;
    params: CreatePaymentLinkParams;
    response: CreatePaymentLinkResponse;
    errorStatus: 400 | 401 | 403 | 404 | 409 | 413 | 415 | 422 | 429 | 500;
  };
  /** The merchant’s payment links in the key’s mode, newest first */
  listPaymentLinks: {
    method: "GET";
    path: "/Gateway/v1/PaymentLinks";
    pathParams: Record<string, never>;
    query: ListPaymentLinksQuery;
    params: never;
    response: ListPaymentLinksResponse;
    errorStatus: 400 | 401 | 403 | 404 | 429 | 500;
  };
  /** One payment link with its payment count, total paid, payments under way and remaining uses */
  getPaymentLink: {
    method: "GET";
    path: "/Gateway/v1/PaymentLinks/{id}";
    pathParams: { id: string };
    query: never;
    params: never;
    response: GetPaymentLinkResponse;
    errorStatus: 400 | 401 | 403 | 404 | 429 | 500;
  };
  /** Deactivates a payment link */
  deactivatePaymentLink: {
    method: "POST";
    path: "/Gateway/v1/PaymentLinks/{id}/deactivate";
    pathParams: { id: string };
    query: never;
    params: never;
    response: DeactivatePaymentLinkResponse;
    errorStatus: 400 | 401 | 403 | 404 | 409 | 413 | 415 | 422 | 429 | 500;
  };
  /** Reactivates a deactivated payment link */
  reactivatePaymentLink: {
    method: "POST";
    path: "/Gateway/v1/PaymentLinks/{id}/reactivate";
    pathParams: { id: string };
    query: never;
    params: never;
    response: ReactivatePaymentLinkResponse;
    errorStatus: 400 | 401 | 403 | 404 | 409 | 413 | 415 | 422 | 429 | 500;
  };
  /** The merchant’s transactions in the key’s mode, newest first */
  listTransactions: {
    method: "GET";
    path: "/Gateway/v1/Transactions";
    pathParams: Record<string, never>;
    query: ListTransactionsQuery;
    params: never;
    response: ListTransactionsResponse;
    errorStatus: 400 | 401 | 403 | 404 | 429 | 500;
  };
  /** A transaction by orderRef, paymentIntentId or transactionReference */
  transactionByRef: {
    method: "GET";
    path: "/Gateway/v1/Transaction/by-ref/{reference}";
    pathParams: { reference: string };
    query: never;
    params: never;
    response: TransactionByRefResponse;
    errorStatus: 400 | 401 | 403 | 404 | 429 | 500;
  };
  /** Alias of Transaction/by-ref/{reference} */
  transactionByRefAlias: {
    method: "GET";
    path: "/Gateway/v1/Transaction/{reference}";
    pathParams: { reference: string };
    query: never;
    params: never;
    response: TransactionByRefAliasResponse;
    errorStatus: 400 | 401 | 403 | 404 | 429 | 500;
  };
  /** The movements of the merchant’s wallet in the key’s mode, newest first */
  listBalanceTransactions: {
    method: "GET";
    path: "/Gateway/v1/BalanceTransactions";
    pathParams: Record<string, never>;
    query: ListBalanceTransactionsQuery;
    params: never;
    response: ListBalanceTransactionsResponse;
    errorStatus: 400 | 401 | 403 | 404 | 429 | 500;
  };
  /** A month’s balance statement in one currency as CSV */
  statementCsv: {
    method: "GET";
    path: "/Gateway/v1/Statements/{period}";
    pathParams: { period: string };
    query: StatementCsvQuery;
    params: never;
    response: StatementCsvResponse;
    errorStatus: 400 | 401 | 403 | 404 | 409 | 422 | 429 | 500;
  };
  /** The same statement as PDF, the digest printed on every page */
  statementPdf: {
    method: "GET";
    path: "/Gateway/v1/Statements/{period}/pdf";
    pathParams: { period: string };
    query: StatementPdfQuery;
    params: never;
    response: StatementPdfResponse;
    errorStatus: 400 | 401 | 403 | 404 | 409 | 422 | 429 | 500;
  };
  /** The webhook events of a transaction, oldest first, with their delivery state */
  transactionEvents: {
    method: "GET";
    path: "/Gateway/v1/Transaction/{reference}/events";
    pathParams: { reference: string };
    query: never;
    params: never;
    response: TransactionEventsResponse;
    errorStatus: 400 | 401 | 403 | 404 | 429 | 500;
  };
  /** The delivery log of one webhook event */
  eventAttempts: {
    method: "GET";
    path: "/Gateway/v1/Events/{eventId}/attempts";
    pathParams: { eventId: string };
    query: never;
    params: never;
    response: EventAttemptsResponse;
    errorStatus: 400 | 401 | 403 | 404 | 429 | 500;
  };
  /** The merchant’s webhook events in the key’s mode, newest first */
  listEvents: {
    method: "GET";
    path: "/Gateway/v1/Events";
    pathParams: Record<string, never>;
    query: ListEventsQuery;
    params: never;
    response: ListEventsResponse;
    errorStatus: 400 | 401 | 403 | 404 | 429 | 500;
  };
  /** Queues a new delivery of a webhook event */
  resendEvent: {
    method: "POST";
    path: "/Gateway/v1/Events/{eventId}/resend";
    pathParams: { eventId: string };
    query: never;
    params: never;
    response: ResendEventResponse;
    errorStatus: 400 | 401 | 403 | 404 | 409 | 413 | 415 | 422 | 429 | 500;
  };
  /** Start a mobile-wallet charge */
  deposit: {
    method: "POST";
    path: "/Gateway/v1/Payment/deposit";
    pathParams: Record<string, never>;
    query: never;
    params: DepositParams;
    response: DepositResponse;
    errorStatus: 400 | 401 | 403 | 404 | 409 | 413 | 415 | 422 | 429 | 500;
  };
  /** Create a withdrawal to a bank or wallet account */
  withdraw: {
    method: "POST";
    path: "/Gateway/v1/Payment/withdraw";
    pathParams: Record<string, never>;
    query: never;
    params: WithdrawParams;
    response: WithdrawResponse;
    errorStatus: 400 | 401 | 403 | 404 | 409 | 413 | 415 | 422 | 429 | 500;
  };
}

/** Method and path of every merchant API operation (what the client calls). */
export const operations = {
  queryBalance: { method: "POST", path: "/Gateway/v1/Account/query-balance" },
  settlementSchedule: { method: "GET", path: "/Gateway/v1/Settlements/schedule" },
  createSettlement: { method: "POST", path: "/Gateway/v1/Settlements" },
  listSettlements: { method: "GET", path: "/Gateway/v1/Settlements" },
  getSettlement: { method: "GET", path: "/Gateway/v1/Settlements/{id}" },
  createRefund: { method: "POST", path: "/Gateway/v1/Refunds" },
  listRefunds: { method: "GET", path: "/Gateway/v1/Refunds" },
  getRefund: { method: "GET", path: "/Gateway/v1/Refunds/{id}" },
  initiateCheckout: { method: "POST", path: "/Gateway/v1/Payment/initiate-checkout" },
  createPaymentLink: { method: "POST", path: "/Gateway/v1/PaymentLinks" },
  listPaymentLinks: { method: "GET", path: "/Gateway/v1/PaymentLinks" },
  getPaymentLink: { method: "GET", path: "/Gateway/v1/PaymentLinks/{id}" },
  deactivatePaymentLink: { method: "POST", path: "/Gateway/v1/PaymentLinks/{id}/deactivate" },
  reactivatePaymentLink: { method: "POST", path: "/Gateway/v1/PaymentLinks/{id}/reactivate" },
  listTransactions: { method: "GET", path: "/Gateway/v1/Transactions" },
  transactionByRef: { method: "GET", path: "/Gateway/v1/Transaction/by-ref/{reference}" },
  transactionByRefAlias: { method: "GET", path: "/Gateway/v1/Transaction/{reference}" },
  listBalanceTransactions: { method: "GET", path: "/Gateway/v1/BalanceTransactions" },
  statementCsv: { method: "GET", path: "/Gateway/v1/Statements/{period}" },
  statementPdf: { method: "GET", path: "/Gateway/v1/Statements/{period}/pdf" },
  transactionEvents: { method: "GET", path: "/Gateway/v1/Transaction/{reference}/events" },
  eventAttempts: { method: "GET", path: "/Gateway/v1/Events/{eventId}/attempts" },
  listEvents: { method: "GET", path: "/Gateway/v1/Events" },
  resendEvent: { method: "POST", path: "/Gateway/v1/Events/{eventId}/resend" },
  deposit: { method: "POST", path: "/Gateway/v1/Payment/deposit" },
  withdraw: { method: "POST", path: "/Gateway/v1/Payment/withdraw" },
} as const satisfies { [K in keyof Operations]: { method: Operations[K]['method']; path: Operations[K]['path'] } };

/** Names of the webhook event types (the document’s `webhooks` section). */
export type WebhookEventType = "TransactionStatusChanged" | "RefundStatusChanged" | "SettlementStatusChanged";
