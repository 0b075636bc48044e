import type { FeeProduct, Merchant } from '#shared/domain/merchant.ts';
import { fromMinor } from '#shared/domain/money.ts';

/**
 * A merchant's profile as the operator reads it (`ops merchant show`, docs/operator-guide.md): no table keys,
 * no secrets (a webhook endpoint shows how many signing secrets it has), amounts in decimal major units as the API
 * speaks them. `--json` prints exactly this shape.
 */
export interface MerchantProfileView {
  merchantId: string;
  name: string;
  status: Merchant['status'];
  defaultCurrency: string;
  fees: Record<FeeProduct, { percent: number; fixed: number }>;
  settlementSchedule: Omit<Merchant['settlementSchedule'], 'minimumBalanceMinor'> & { minimumBalance: number };
  webhooks: Partial<Record<'test' | 'live', { url: string; secrets: number; events: string[] | 'all' }>>;
  allowInsecureWebhooks: boolean;
  payoutApprovals: NonNullable<Merchant['payoutApprovals']> | 'either';
  createdAt: string;
  updatedAt: string;
}

export function merchantProfileView(m: Merchant): MerchantProfileView {
  const money = (minor: number) => fromMinor(minor, m.defaultCurrency);
  const { minimumBalanceMinor, ...schedule } = m.settlementSchedule;
  return {
    merchantId: m.merchantId,
    name: m.name,
    status: m.status,
    defaultCurrency: m.defaultCurrency,
    fees: Object.fromEntries(
      Object.entries(m.fees).map(([product, fee]) => [product, { percent: fee.basisPoints / 100, fixed: money(fee.fixedMinor) }]),
    ) as MerchantProfileView['fees'],
    settlementSchedule: { ...schedule, minimumBalance: money(minimumBalanceMinor) },
    webhooks: Object.fromEntries(
      Object.entries(m.webhooks).map(([mode, w]) => [mode, { url: w!.url, secrets: w!.secrets.length, events: w!.events ?? 'all' }]),
    ),
    allowInsecureWebhooks: m.allowInsecureWebhooks,
    payoutApprovals: m.payoutApprovals ?? 'either',
    createdAt: m.createdAt,
    updatedAt: m.updatedAt,
  };
}

/** The profile as lines an operator reads at a terminal. */
export function describeMerchantProfile(p: MerchantProfileView): string {
  const s = p.settlementSchedule;
  const when =
    s.frequency === 'manual'
      ? 'manual (the merchant asks)'
      : `${s.frequency}${s.dayOfPeriod ? ` on day ${s.dayOfPeriod}` : ''} at ${String(s.hourUtc).padStart(2, '0')}:00 UTC`;
  const destination = s.destination ? `${s.destination.bankName}, ${s.destination.accountTitle}` : 'none set';
  const hooks = (['test', 'live'] as const).map((mode) => {
    const w = p.webhooks[mode];
    if (!w) return `  ${mode.padEnd(5)} none`;
    const events = w.events === 'all' ? 'all events' : w.events.join(', ');
    return `  ${mode.padEnd(5)} ${w.url} (${events}; ${w.secrets} signing secret${w.secrets === 1 ? '' : 's'})`;
  });
  return [
    `${p.name} (${p.merchantId}): ${p.status}${p.status === 'suspended' ? ': takes no payments and sends no money out' : ''}`,
    `Currency     ${p.defaultCurrency}`,
    'Fees',
    ...Object.entries(p.fees).map(([product, f]) => `  ${product.padEnd(11)} ${f.percent} % + ${f.fixed.toFixed(2)} ${p.defaultCurrency}`),
    `Settlement   ${when}; keeps ${s.minimumBalance.toFixed(2)} ${p.defaultCurrency}; to ${destination}`,
    `Approvals    manual payouts and settlements approved by: ${p.payoutApprovals}`,
    'Webhooks',
    ...hooks,
    ...(p.allowInsecureWebhooks ? ['  (local development: http://127.0.0.1 receivers allowed)'] : []),
    `Created      ${p.createdAt}, changed ${p.updatedAt}`,
  ].join('\n');
}
