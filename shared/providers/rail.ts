/**
 * The one provider contract for money leaving the gateway: payouts to a bank (withdrawals),
 * settlements and refunds. Each product has its own instruction; the rest is the same for all.
 *
 *   submit(instruction, signal)  → accepted | rejected | unknown. Called AT MOST ONCE per
 *                                  submission (the gateway records the submission before the
 *                                  call). A throw or a call that outlives its timeout (the signal
 *                                  is then aborted) is an unknown outcome, never a failure.
 *   status(instruction, signal)  → Completed | Failed | Processing | NotFound, by `reference`.
 *
 * `reference` is the gateway's idempotency key for the provider: a provider must never execute
 * one reference twice. NotFound (the provider has no record of the reference) is final once the
 * grace period has passed (shared/services/outbound.ts): the funds are released. An adapter must
 * therefore guarantee that a reference it answered NotFound for will never execute later (or void
 * it before answering); otherwise the money would leave twice (paid and released).
 *
 * Wallet charges (shared/providers/wallet.ts) keep their own contract: money comes IN through a
 * customer's approval on a phone, answered by a signed callback, not a submission the gateway
 * inquires about.
 */
export interface Instruction {
  /** The gateway's reference: the provider's idempotency key. */
  reference: string;
}

export type SubmitAnswer =
  /** The provider took the submission (for a refund: paid). */
  | { outcome: 'accepted'; providerReference: string | null; message?: string; estimatedCompletionAt?: Date }
  /**
   * A definite refusal: nothing was or will be paid. `reason` is shown to the merchant and may
   * reach an end customer, unless `internal` is set: then it is a diagnostic that is only logged
   * (the adapter failed before anything was sent).
   */
  | { outcome: 'rejected'; reason: string; internal?: boolean }
  /** The adapter does not know whether the provider received it (same as a throw). */
  | { outcome: 'unknown' };

export type StatusAnswer =
  | { status: 'Completed'; providerReference?: string | null; completedAt?: Date }
  | { status: 'Failed'; reason: string }
  | { status: 'Processing' }
  /** The provider has no record of the reference. */
  | { status: 'NotFound' };

export interface RailTimings {
  /** After an accepted submission, when to ask for the outcome. */
  firstCheckAfterMs: number;
  /** While the provider says Processing (or NotFound within the grace period), how often to ask. */
  pollIntervalMs: number;
  /** After a submission whose answer is unknown, when to ask first: well after the call's timeout. */
  inquireAfterMs: number;
  /** After a definite decline that the product retries (refunds), when to try again. */
  retryAfterMs: number;
}

export interface Rail<I extends Instruction> {
  /** Shown to merchants where a product names its provider (payoutInfo.provider). */
  readonly name: string;
  /** The ledger's external account the money goes to: `external:<ledgerAccount>`. */
  readonly ledgerAccount: string;
  readonly timings: RailTimings;
  /**
   * Optional: why this rail can never serve an instruction like `target` (e.g. a live payout rail
   * that pays wallets only, asked for a bank account), checked before anything is held; the
   * product refuses the request with a 422. Undefined when it can.
   */
  refuses?(target: Partial<I>): string | undefined;
  /**
   * Optional: the members of an instruction like `target` that this rail needs although its product may leave them
   * out (a live JazzCash wallet payout needs `receiverCnic`). The product refuses a request without them (400 naming
   * the field) before anything is held, and an approval without them.
   */
  requires?(target: Partial<I>): readonly (keyof I & string)[];
  /**
   * Optional, for a mode whose instructions go to different rails (live payouts: JazzCash wallets to the
   * JazzCash disbursement API, bank accounts to the bank transfer file): the rail that serves `target`.
   * shared/providers/rails.ts resolves it when the caller names the target; the chosen rail's name,
   * timings and ledger account then apply.
   */
  route?(target: Partial<I>): Rail<I>;
  submit(instruction: I, signal?: AbortSignal): Promise<SubmitAnswer>;
  status(instruction: I, signal?: AbortSignal): Promise<StatusAnswer>;
}
