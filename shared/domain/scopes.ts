/** What an API key may do. Each route of the table names the scope it needs (docs/merchant-guide.md, Keys and modes). */
export type Scope = 'payments' | 'payouts' | 'settlements' | 'refunds' | 'balance' | 'read' | 'webhooks';
export const allScopes: readonly Scope[] = ['payments', 'payouts', 'settlements', 'refunds', 'balance', 'read', 'webhooks'];
/** Keys issued before `webhooks` existed with every scope of their day count as holding it too. */
const scopesBeforeWebhooks: readonly Scope[] = ['payments', 'payouts', 'settlements', 'refunds', 'balance', 'read'];
export const keyHasScope = (scopes: readonly Scope[], scope: Scope): boolean =>
  scopes.includes(scope) || (scope === 'webhooks' && scopesBeforeWebhooks.every((s) => scopes.includes(s)));
/**
 * Scopes that move money out of the merchant's wallet. A key holding one is minted in the dashboard
 * only by an admin with a fresh second-factor code (docs/security-and-limits.md, API keys and roles).
 */
export const moneyOutScopes: readonly Scope[] = ['payouts', 'settlements', 'refunds'];
export const isMoneyOut = (scope: Scope): boolean => moneyOutScopes.includes(scope);
