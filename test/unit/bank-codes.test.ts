import { describe, expect, it } from 'vitest';
import { bankCodes, banks, resolveBankCode } from '#shared/domain/bank-codes.ts';
import { walletProviders } from '#shared/domain/providers.ts';
import { maskAccount } from '#shared/domain/payout.ts';

describe('payout bank codes', () => {
  it('has every documented code and nine digital codes including both wallet providers', () => {
    const spec = (
      'HBL UBL MCB ABL ASKARI MEEZAN FAYSAL ALFALAH ALHABIB JSBANK BANKISLAMI DIB ALBARKA CITI SCB BOK ' +
      'ICBC NBP SINDH BOP ZTBL NRSP FMFB FINCA FWBL APNA BURJ MIB'
    ).split(' ');
    for (const code of spec) expect(bankCodes).toContain(code);
    const digital = banks.filter((b) => b.group === 'digital').map((b) => b.code);
    expect(digital.length).toBe(9);
    expect(digital).toEqual(expect.arrayContaining([walletProviders[1].code, walletProviders[2].code]));
    expect(new Set(bankCodes).size).toBe(bankCodes.length);
    for (const code of bankCodes) expect(code).toMatch(/^[A-Z]{2,20}$/);
  });

  it('resolves codes case-insensitively and alternative spellings of the names', () => {
    const cases: [string, string][] = [
      ['meezan', 'MEEZAN'],
      ['Meezan Bank', 'MEEZAN'],
      ['Meezan Bank Limited', 'MEEZAN'],
      ['hbl', 'HBL'],
      ['Habib Bank Limited', 'HBL'],
      ['Bank AL Habib', 'ALHABIB'],
      ['bank al-habib', 'ALHABIB'],
      ['Bank of Punjab', 'BOP'],
      ['The Bank of Khyber', 'BOK'],
      ['Bank Islami', 'BANKISLAMI'],
      ['BankIslami Pakistan', 'BANKISLAMI'],
      ['js bank', 'JSBANK'],
      ['Jazz Cash', 'JAZZCASH'],
      ['easypaisa', 'EASYPAISA'],
      ['Standard Chartered', 'SCB'],
      ['National Bank of Pakistan', 'NBP'],
      ['First Women Bank', 'FWBL'],
      ['First Microfinance Bank', 'FMFB'],
      ['Mobilink Microfinance', 'MIB'],
      ['Sada Pay', 'SADAPAY'],
    ];
    for (const [input, code] of cases) expect(resolveBankCode(input)?.code, input).toBe(code);
  });

  it('maps every listed spelling to its own bank (no spelling is shared by two banks)', () => {
    for (const b of banks) {
      for (const spelling of [b.code, b.name, ...b.aliases]) expect(resolveBankCode(spelling)?.code, spelling).toBe(b.code);
    }
  });

  it('refuses unknown codes', () => {
    for (const input of ['XYZ', 'Bank', 'Limited', 'BANKXYZ', 'HBLL']) expect(resolveBankCode(input), input).toBeUndefined();
  });

  it('masks account numbers to their last four characters', () => {
    expect(maskAccount('PK36SCBL0000001123456702')).toBe('********************6702');
    expect(maskAccount('1234567890')).toBe('******7890');
  });
});
