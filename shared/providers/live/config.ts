import type { EasypaisaConfig } from './easypaisa.ts';
import type { JazzCashConfig } from './jazzcash.ts';

type LiveProvidersConfig = { jazzcash?: JazzCashConfig; easypaisa?: EasypaisaConfig };

/**
 * The live providers' configuration as the Secrets Manager secret holds it (docs/operator-guide.md, "Live
 * providers"), checked per provider: a provider whose part lacks a required value is left out (its operations
 * keep answering their 422, as without credentials) and named in `problems` by field, never by value. One
 * incomplete provider does not take the other down. (A hand check, not zod: every Lambda that calls a provider
 * loads it at cold start.)
 */
const required = {
  jazzcash: ['baseUrl', 'merchantId', 'password', 'integritySalt', 'mpin'],
  easypaisa: ['baseUrl', 'username', 'password', 'storeId', 'emailAddress', 'accountNum'],
} as const;
const requiredDisbursement = ['baseUrl', 'clientId', 'clientSecret', 'aesKey', 'aesIv'] as const;

const filled = (v: unknown) => typeof v === 'string' && v.trim() !== '';
const missing = (o: unknown, names: readonly string[], prefix: string) =>
  names.filter((n) => !filled((o as Record<string, unknown> | null)?.[n])).map((n) => `${prefix}.${n}`);

export function parseLiveProvidersConfig(raw: unknown): { config: LiveProvidersConfig; problems: string[] } {
  const config: LiveProvidersConfig = {};
  const problems: string[] = [];
  const source = raw && typeof raw === 'object' ? (raw as Record<string, unknown>) : {};
  for (const name of Object.keys(required) as (keyof typeof required)[]) {
    const part = source[name];
    if (part === undefined) continue;
    const disbursement = name === 'jazzcash' ? (part as { disbursement?: unknown } | null)?.disbursement : undefined;
    const absent = [
      ...(part && typeof part === 'object' ? missing(part, required[name], name) : [name]),
      ...(disbursement === undefined ? [] : missing(disbursement, requiredDisbursement, `${name}.disbursement`)),
    ];
    if (absent.length === 0) Object.assign(config, { [name]: part });
    else problems.push(`${name} left out (its live operations answer 422): missing ${absent.join(', ')}`);
  }
  return { config, problems };
}
