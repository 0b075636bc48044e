import type { Mode } from '#shared/domain/credentials.ts';
import { sandboxCardOutcome, type CardOutcome } from '#shared/domain/sandbox.ts';

export type { CardOutcome } from '#shared/domain/sandbox.ts';

/**
 * The card network behind the hosted checkout's card form. Test mode answers by the sandbox cards
 * (docs/merchant-guide.md, Hosted checkout: Sandbox); no live card network is configured in this repository, so
 * live mode has none (the page answers that cards are unavailable).
 */
export function cardNetwork(mode: Mode): ((digits: string) => CardOutcome) | undefined {
  return mode === 'test' ? sandboxCardOutcome : undefined;
}
