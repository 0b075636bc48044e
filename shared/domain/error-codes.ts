/**
 * THE catalogue of the stable `code`s a problem may carry (docs/merchant-guide.md, Errors): every code the gateway
 * answers is a key here, because every place that names one (DomainError, the problems of shared/http/problem.ts)
 * takes an ErrorCode, so the compiler refuses any other. test/error-codes.test.ts checks that every code the SDK
 * README, the merchant guide and the /docs Errors guide name is one of them. Merchants branch on these: never rename one.
 */
export const errorCodes = {
  // The default of each status (shared/http/problem.ts defaultCodes).
  invalid_request: 'A field is missing or malformed: `errors` names each one.',
  unauthorized: 'The Svc-API-Key header is missing, or the key is invalid, expired or revoked.',
  forbidden: 'The key may not do this.',
  not_found: 'No such endpoint, API version, or object for this merchant and mode.',
  method_not_allowed: 'The path exists, with another method.',
  conflict: 'A concurrent change to the same object.',
  body_too_large: 'The body is over 64 KiB.',
  unsupported_media_type: 'A POST body without Content-Type: application/json.',
  business_rule_violation: 'A well-formed request a business rule refuses.',
  rate_limited: 'Too many requests: retry after Retry-After seconds.',
  internal_error: 'A fault on the gateway side: quote the traceId.',
  service_unavailable: 'Not available right now: retry after Retry-After seconds.',
  // The request itself (400, 401, 403).
  unknown_parameter: 'A member the endpoint does not know, at any depth: `errors` names each one.',
  invalid_json: 'The body is not valid JSON.',
  body_too_deep: 'The body is nested deeper than the limit.',
  invalid_signature: 'The body `signature` is missing, or not 32 lowercase hex characters: see `hint`.',
  signature_mismatch: 'The body `signature` does not match the body signed with your secret key: see `hint`.',
  invalid_idempotency_key: 'The Idempotency-Key header is not 1-255 printable ASCII characters.',
  missing_scope: 'The API key lacks the scope of the endpoint.',
  merchant_suspended: 'The merchant account is suspended.',
  // Idempotency and concurrency (409, 422).
  idempotency_in_flight: 'The first request with this Idempotency-Key is still being processed: retry shortly.',
  idempotency_key_reused: 'The Idempotency-Key was used with a different method, path, query or body.',
  concurrent_update: 'A concurrent change won: retrying with the same Idempotency-Key is safe.',
  // Business rules (422).
  amount_below_minimum: 'The amount is below the minimum for the operation.',
  amount_too_small: 'At the current exchange rate the settlement pays out nothing.',
  amount_exceeds_refundable: 'The refund is more than what remains refundable.',
  amount_range_invalid: 'A payment link whose minimum amount is above its maximum.',
  duplicate_order_ref: 'The orderRef was already used by this merchant in this mode.',
  insufficient_balance: 'The available balance does not cover the amount and its fee.',
  unsupported_currency: 'A well-formed currency the gateway does not support.',
  invalid_status: 'The object is not in a status that allows this.',
  not_pending: 'Only a Pending withdrawal can be approved or rejected.',
  already_refunded: 'The payment was already refunded in full.',
  not_refundable: 'The payment cannot be refunded (not completed, or not through a refundable method).',
  unsupported_bank_code: 'A bankCode the gateway does not know: the detail lists the supported ones.',
  expiry_in_past: 'An expiry that has already passed.',
  callback_url_refused: 'The callback URL is not one the gateway may deliver to.',
  approver_not_allowed: "The merchant's approval setting does not allow this approver.",
  provider_unavailable: 'The payment provider could not be reached: nothing was charged.',
  wallet_provider_unavailable: 'The mobile-wallet provider could not be reached: nothing was charged.',
  insufficient_customer_balance: "The customer's wallet does not hold the amount.",
  charge_rejected: 'The provider refused the charge: the detail says why.',
  settlement_rail_unavailable: 'No settlement rail is configured for live mode in this deployment.',
  payout_provider_unavailable: 'The payout rail could not be reached: nothing was sent.',
  refund_provider_unavailable: 'The refund provider could not be reached: nothing was refunded.',
  fx_unavailable: 'No exchange rate is available right now.',
  fx_pair_unsupported: 'The gateway does not convert between these currencies.',
  // Statements and provider callbacks.
  export_too_large: 'The statement would hold more movements than one statement carries: list them page by page.',
  statement_period_open: 'The statement of the period is not available yet.',
  ledger_unbalanced: 'The books of the period do not add up: the statement is not sent.',
  balance_not_ready: 'The balance checkpoint is being built: retry after Retry-After seconds.',
  provider_signature_invalid: "A provider callback's signature does not verify.",
  provider_notification_mismatch: 'A provider notification that does not match the payment.',
  // The operator's bank transfer files (`ops bank-file`; never answered to merchants).
  bank_reference_required: "A bank file line marked paid needs the bank's reference.",
  reason_required: 'A bank file line marked failed needs the reason the bank gave.',
  already_marked: 'The bank file line was already marked with another outcome: it is not changed.',
} as const satisfies Record<string, string>;

export type ErrorCode = keyof typeof errorCodes;
