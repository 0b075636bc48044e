// INTERIM hand-written typing: replaced by `npm run sdk:types` (openapi-typescript over docs/openapi.json)
// once the generated OpenAPI document lands (issue 13, part 1).
export interface Balance { [field: string]: unknown }
export interface Transaction { [field: string]: unknown }
export interface CheckoutRequest { amount: number; currency: string; orderRef: string; [field: string]: unknown }
export interface DepositRequest { [field: string]: unknown }
export interface WithdrawRequest { [field: string]: unknown }
export interface RefundRequest { [field: string]: unknown }
export interface SettlementRequest { [field: string]: unknown }
