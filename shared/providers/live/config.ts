import type { BankFileRailConfig } from '../bank-file-rail.ts';
import type { EasypaisaConfig } from './easypaisa.ts';
import type { JazzCashConfig } from './jazzcash.ts';

/** The live providers of a deployment (index.ts says what each product uses). */
export interface LiveProvidersConfig {
  jazzcash?: JazzCashConfig;
  easypaisa?: EasypaisaConfig;
  /** The bank transfer file rail: the operator's bank, whose corporate portal pays the exported files (checked by ./index.ts). */
  bankFile?: BankFileRailConfig;
}

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

const absolutePaths = (paths: unknown, names: readonly string[], prefix: string): string[] =>
  paths === undefined
    ? []
    : paths === null || typeof paths !== 'object'
      ? [prefix]
      : Object.entries(paths)
          .filter(([k, v]) => !names.includes(k) || typeof v !== 'string' || !v.startsWith('/'))
          .map(([k]) => `${prefix}.${k}`);
/** Optional members that are lists of non-empty texts. */
const textLists = (o: unknown, names: readonly string[], prefix: string): string[] =>
  o === undefined
    ? []
    : o === null || typeof o !== 'object'
      ? [prefix]
      : Object.entries(o)
          .filter(
            ([k, v]) => v !== undefined && (!names.includes(k) || !Array.isArray(v) || !v.every((x) => typeof x === 'string' && x !== '')),
          )
          .map(([k]) => `${prefix}.${k}`);
const flag = (v: unknown, name: string) => (v === undefined || typeof v === 'boolean' ? [] : [name]);

/** pathFamily is one of the two families; each configured path is absolute ("/…"); the card settings are flags and paths. */
const invalidJazzCashPaths = (part: Record<string, unknown> | null): string[] => {
  const family = part?.pathFamily;
  const cards = part?.cards as Record<string, unknown> | null | undefined;
  return [
    ...(family === undefined || family === 'applicationApi' || family === 'paymentOrchestrator' ? [] : ['jazzcash.pathFamily']),
    ...absolutePaths(part?.paths, ['charge', 'inquiry', 'refund', 'cardRefund'], 'jazzcash.paths'),
    ...textLists(
      part?.inquiryStates,
      ['refundedCodes', 'refundedStatuses', 'authorizedStatuses', 'capturedStatuses'],
      'jazzcash.inquiryStates',
    ),
    ...textLists(
      part?.disbursement && typeof part.disbursement === 'object'
        ? { notFoundCodes: (part.disbursement as Record<string, unknown>).notFoundCodes }
        : {},
      ['notFoundCodes'],
      'jazzcash.disbursement',
    ),
    ...(cards === undefined
      ? []
      : cards === null || typeof cards !== 'object'
        ? ['jazzcash.cards']
        : [
            ...flag(cards.versionSegment, 'jazzcash.cards.versionSegment'),
            ...flag(cards.hashPaRes, 'jazzcash.cards.hashPaRes'),
            ...flag(cards.enrollmentReturnUrl, 'jazzcash.cards.enrollmentReturnUrl'),
            ...(cards.secureIdField === undefined ||
            ['pp_3dSecureID', 'pp_3DSecureID', 'pp_C3DSecureID'].includes(String(cards.secureIdField))
              ? []
              : ['jazzcash.cards.secureIdField']),
            ...absolutePaths(cards.paths, ['enrollment', 'processAcs', 'authorize', 'capture', 'void'], 'jazzcash.cards.paths'),
          ]),
  ];
};

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
    const invalid = name === 'jazzcash' ? invalidJazzCashPaths(part as Record<string, unknown>) : [];
    if (absent.length === 0 && invalid.length === 0) Object.assign(config, { [name]: part });
    else
      problems.push(
        `${name} left out (its live operations answer 422): ${[
          ...(absent.length ? [`missing ${absent.join(', ')}`] : []),
          ...(invalid.length ? [`invalid ${invalid.join(', ')}`] : []),
        ].join('; ')}`,
      );
  }
  if (source.bankFile !== undefined) config.bankFile = source.bankFile as BankFileRailConfig;
  return { config, problems };
}
