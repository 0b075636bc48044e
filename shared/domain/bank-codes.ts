import { walletProviders } from './providers.ts';

/**
 * Payout destinations (docs/merchant-guide.md, Withdrawals, `customerRef.bankCode`): the documented banks
 * and nine digital/wallet codes. A code is matched case-insensitively; alternative spellings of a
 * bank's name ("Meezan Bank", "meezan", "Bank of Punjab") resolve to its code. Pure data and rules.
 */
export type BankGroup = 'major' | 'islamic' | 'foreign' | 'public' | 'microfinance' | 'digital';

export interface Bank {
  code: string;
  name: string;
  group: BankGroup;
  /** Other names merchants send, beyond the code and `name` (compared after normalising). */
  aliases: readonly string[];
}

/** Pure: a Lambda that imports this module without using the list bundles none of it (esbuild tree-shakes the calls). */
const bank = /* @__NO_SIDE_EFFECTS__ */ (code: string, name: string, group: BankGroup, ...aliases: string[]): Bank => ({
  code,
  name,
  group,
  aliases,
});

// In a pure call: the list reads walletProviders' entries, which esbuild cannot tell are free of side effects.
export const banks: readonly Bank[] = /* @__PURE__ */ (() => [
  bank('HBL', 'Habib Bank Limited', 'major', 'Habib Bank', 'Habib'),
  bank('UBL', 'United Bank Limited', 'major', 'United Bank', 'United'),
  bank('MCB', 'MCB Bank', 'major', 'Muslim Commercial Bank'),
  bank('ABL', 'Allied Bank', 'major', 'Allied Bank Limited', 'Allied'),
  bank('ASKARI', 'Askari Bank', 'major', 'AKBL'),
  bank('MEEZAN', 'Meezan Bank', 'major', 'MBL'),
  bank('FAYSAL', 'Faysal Bank', 'major', 'Faisal Bank', 'Faisal', 'FBL'),
  bank('ALFALAH', 'Bank Alfalah', 'major', 'Bank Al Falah', 'Al Falah', 'BAFL'),
  bank('ALHABIB', 'Bank AL Habib', 'major', 'Al Habib', 'BAHL'),
  bank('JSBANK', 'JS Bank', 'major', 'JS', 'JSBL'),
  bank('BANKISLAMI', 'BankIslami Pakistan', 'islamic', 'Bank Islami', 'Islami'),
  bank('DIB', 'Dubai Islamic Bank', 'islamic', 'Dubai Islamic'),
  bank('ALBARKA', 'Al Baraka Bank', 'islamic', 'Al Barka', 'Albaraka', 'Al Baraka'),
  bank('CITI', 'Citibank', 'foreign', 'Citi Bank', 'Citibank NA'),
  bank('SCB', 'Standard Chartered Bank', 'foreign', 'Standard Chartered', 'StanChart'),
  bank('BOK', 'The Bank of Khyber', 'foreign', 'Bank of Khyber', 'Khyber'),
  bank('ICBC', 'Industrial and Commercial Bank of China', 'foreign', 'Industrial Commercial Bank of China'),
  bank('NBP', 'National Bank of Pakistan', 'public', 'National Bank', 'National'),
  bank('SINDH', 'Sindh Bank', 'public'),
  bank('BOP', 'The Bank of Punjab', 'public', 'Bank of Punjab', 'Punjab Bank', 'Punjab'),
  bank('ZTBL', 'Zarai Taraqiati Bank', 'public', 'Zarai Taraqiati', 'Zarai'),
  bank('NRSP', 'NRSP Microfinance Bank', 'microfinance', 'NRSP Bank'),
  bank('FMFB', 'The First Microfinance Bank', 'microfinance', 'First Microfinance', 'First MFB'),
  bank('FINCA', 'FINCA Microfinance Bank', 'microfinance'),
  bank('FWBL', 'First Women Bank', 'microfinance', 'First Women', 'First Women Bank Limited'),
  bank('APNA', 'Apna Microfinance Bank', 'microfinance'),
  bank('BURJ', 'Burj Bank', 'microfinance'),
  bank('MIB', 'Mobilink Microfinance Bank', 'microfinance', 'Mobilink Bank', 'Mobilink'),
  // The nine digital and wallet codes: the upper-case names of the providers and services (docs/merchant-guide.md, Withdrawals).
  bank(walletProviders[1].code, walletProviders[1].name, 'digital', 'Jazz Cash', 'Mobicash'),
  bank(walletProviders[2].code, walletProviders[2].name, 'digital', 'Easy Paisa', 'Telenor Easypaisa'),
  bank('SADAPAY', 'SadaPay', 'digital', 'Sada Pay'),
  bank('NAYAPAY', 'NayaPay', 'digital', 'Naya Pay'),
  bank('UPAISA', 'UPaisa', 'digital', 'U Paisa', 'Ufone UPaisa'),
  bank('ZINDIGI', 'Zindigi', 'digital', 'JS Zindigi'),
  bank('KONNECT', 'HBL Konnect', 'digital', 'Konnect by HBL'),
  bank('RAAST', 'Raast', 'digital', 'Raast ID', 'SBP Raast'),
  bank('KEENU', 'Keenu Wallet', 'digital', 'Keenu'),
])();

export const bankCodes: readonly string[] = /* @__PURE__ */ banks.map((b) => b.code);

/** Words that do not tell banks apart ("Meezan Bank Limited" → MEEZAN). */
const noise = /* @__PURE__ */ new Set([
  'BANK',
  'LIMITED',
  'LTD',
  'PAKISTAN',
  'PK',
  'OF',
  'THE',
  'AND',
  'MICROFINANCE',
  'MFB',
  'PLC',
  'WALLET',
]);

const words = (text: string) =>
  text
    .toUpperCase()
    .split(/[^A-Z0-9]+/)
    .filter(Boolean);
const joined = (text: string) => words(text).join('');
const significant = (text: string) =>
  words(text)
    .filter((w) => !noise.has(w))
    .join('');

/** Every spelling (normalised) → code. Built once; a spelling shared by two banks is a bug (unit test). */
export const spellings: ReadonlyMap<string, string> = /* @__PURE__ */ (() => {
  const map = new Map<string, string>();
  for (const b of banks) {
    for (const spelling of [b.code, b.name, ...b.aliases]) {
      for (const form of [joined(spelling), significant(spelling)]) if (form && !map.has(form)) map.set(form, b.code);
    }
  }
  return map;
})();

const byCode = /* @__PURE__ */ new Map(/* @__PURE__ */ banks.map((b) => [b.code, b]));

/** The bank a merchant's `bankCode` names, or undefined (case-insensitive, alternative spellings; docs/merchant-guide.md, Withdrawals). */
export function resolveBankCode(input: string): Bank | undefined {
  const code = spellings.get(joined(input)) ?? spellings.get(significant(input));
  return code === undefined ? undefined : byCode.get(code);
}
