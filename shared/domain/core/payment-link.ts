import { checkoutDetails, holdsLinkUse } from '../checkout.ts';
import type { PaymentIntent } from '../intent.ts';
import { limitReachedMessage, type PaymentLink } from '../payment-link.ts';
import { decided, refuse, type Decision } from './decision.ts';
import { isTerminal } from './machines.ts';

/**
 * Payment-link uses: a link with a limit of payments counts the uses its checkouts hold (`usesHeld`: payments under
 * way and paid ones). A payment attempt takes a use when it starts, only while one is left; an attempt that ends
 * unpaid gives it back; Completed counts the payment. So a link never takes more payments than its limit.
 */

/** What a change of a link's checkout (`current` → `next`, in one transaction) does to its link. */
export type LinkUse =
  /** An attempt starts: one use taken, only while usesHeld < maxPayments (refused otherwise). */
  | { kind: 'take' }
  /** The attempt ended unpaid: the use given back. */
  | { kind: 'give-back' }
  /**
   * Paid: counted. `take`: `held` when the checkout held its use already; `conditional` when the payment takes it
   * now (a sandbox card paid in one step, refused when none is left); `unconditional` when the money has moved
   * without a use (none should) and the count must follow it.
   */
  | { kind: 'paid'; amountMinor: number; take: 'held' | 'conditional' | 'unconditional' };

export const linkOf = (intent: PaymentIntent): string | undefined =>
  intent.intentType === 'checkout' ? ((intent.details as { paymentLinkId?: string }).paymentLinkId ?? undefined) : undefined;

const holds = (intent: PaymentIntent) => linkOf(intent) !== undefined && holdsLinkUse(checkoutDetails(intent));

/** The link use of a checkout's change; undefined for other changes and checkouts not made from a link. */
export function linkUseOf(current: PaymentIntent, next: PaymentIntent): LinkUse | undefined {
  if (!linkOf(current) || isTerminal(current.status)) return undefined;
  const before = holds(current);
  const taking = !before && holds(next);
  if (next.status === 'Completed')
    return { kind: 'paid', amountMinor: current.amountMinor, take: before ? 'held' : taking ? 'conditional' : 'unconditional' };
  if (isTerminal(next.status)) return before ? { kind: 'give-back' } : undefined;
  if (taking) return { kind: 'take' };
  if (before && !holds(next)) return { kind: 'give-back' };
  return undefined;
}

/** The link after a use (the counters the store ADDs under its condition), or the refusal when no use is left. */
export function decideLinkUse(link: PaymentLink, use: LinkUse, now: Date): Decision<PaymentLink> {
  const taking = use.kind === 'take' || (use.kind === 'paid' && use.take === 'conditional');
  if (taking && link.maxPayments !== null && link.usesHeld >= link.maxPayments) return refuse('invalid_status', limitReachedMessage(link));
  const at = now.toISOString();
  switch (use.kind) {
    case 'take':
      return decided({ ...link, usesHeld: link.usesHeld + 1, updatedAt: at });
    case 'give-back':
      return decided({ ...link, usesHeld: link.usesHeld - 1, updatedAt: at });
    case 'paid':
      return decided({
        ...link,
        usesHeld: link.usesHeld + (use.take === 'held' ? 0 : 1),
        paidCount: link.paidCount + 1,
        paidMinor: link.paidMinor + use.amountMinor,
        updatedAt: at,
      });
  }
}
