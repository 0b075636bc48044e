import type { Mode } from '#shared/domain/credentials.ts';
import { sandboxCardOutcome, type CardOutcome } from '#shared/domain/sandbox.ts';
import { instrumented } from '#shared/metrics.ts';

export type { CardOutcome } from '#shared/domain/sandbox.ts';

/**
 * The card network behind the hosted checkout's card form. Test mode answers at once by the
 * sandbox cards (docs/merchant-guide.md, Hosted checkout: Sandbox). Live mode uses the live card
 * provider configured for the deployment (shared/providers/live: JazzCash's card APIs with 3-D
 * Secure); with none, live card payments are refused with the page's "not available" message.
 */
export function cardNetwork(mode: Mode): ((digits: string) => CardOutcome) | undefined {
  return mode === 'test' ? sandboxCardOutcome : undefined;
}

/** Why a live card payment failed: our reason codes (shared/domain/reasons.ts) and the provider's text. */
export type CardDecline = { reason: 'card_declined' | 'insufficient_funds' | 'authentication_failed'; detail: string | null };

/** The answer about a card payment after the 3-D Secure step. `Unknown`: no answer (asked again by the inquiry). */
export type CardConfirmation = { status: 'Approved' } | ({ status: 'Declined' } & CardDecline) | { status: 'Unknown' };

/** Where the customer's browser goes for the 3-D Secure challenge: a form POST of `fields` to `url`. */
export interface CardChallenge {
  providerReference: string;
  /** The provider's id of the authentication (JazzCash: the enrollment answer's c3DSecureID, sent back as pp_3dSecureID). */
  authenticationId: string;
  url: string;
  fields: Record<string, string>;
}

/** What the provider's signed return (the browser's POST back from the challenge) names; never its outcome. */
export interface CardReturn {
  providerReference: string;
  authenticationId: string;
  /** The opaque authentication result the provider checks server to server. */
  authenticationResult: string;
}

/**
 * A live card provider with 3-D Secure. The card number, expiry and CVC are passed to
 * startAuthentication only, never kept: what the gateway keeps is the challenge and the
 * CardSummary (brand, last four, expiry).
 */
export interface LiveCardProvider {
  readonly name: string;
  startAuthentication(
    payment: {
      reference: string;
      card: { digits: string; expMonth: number; expYear: number; cvc: string };
      amountMinor: number;
      currency: string;
      returnUrl: string;
    },
    now: Date,
  ): Promise<
    | { accepted: true; challenge: CardChallenge }
    /** Authenticated without a challenge (frictionless): confirm() with an empty authenticationResult. */
    | { accepted: true; frictionless: { providerReference: string; authenticationId: string } }
    | { accepted: false; code: 'provider_unavailable' | 'rejected'; message: string }
  >;
  /**
   * Reads the browser's return from the challenge this session sent it to: the provider's signed fields, or
   * what the issuer's ACS posts straight back (3-D Secure 1: PaRes and the challenge's MD). Undefined when it
   * does not verify.
   */
  verifyReturn(fields: Record<string, string>, challenge: CardChallenge): CardReturn | undefined;
  /**
   * Checks the authentication with the provider (server to server; nothing to check when frictionless,
   * authenticationResult ''), then authorises and captures; an authorisation whose capture is refused
   * is voided (Unknown until the provider confirms the void).
   */
  confirm(payment: CardReturn & { amountMinor: number; currency: string }, now: Date): Promise<CardConfirmation>;
  /**
   * After an unknown outcome: asks the provider's inquiry, never authorises again. A payment
   * authorised but not captured is captured (once: the provider refuses a second capture).
   */
  resolve(payment: { providerReference: string; amountMinor: number; currency: string }, now: Date): Promise<CardConfirmation>;
}

let liveCards: LiveCardProvider | undefined;

/** Installs (or, with undefined, removes) the live card provider (shared/providers/live: configureLiveProviders). */
export function configureLiveCards(provider: LiveCardProvider | undefined): void {
  liveCards = provider;
}

export const liveCardProvider = (): LiveCardProvider | undefined => liveCards && instrumented('cards_live', liveCards);
