import { describe, expect, it } from 'vitest';
import { parseLiveProvidersConfig } from '#shared/providers/live/config.ts';

/**
 * The live providers' secret (docs/operator-guide.md, "Live providers") is checked per provider when a Lambda
 * reads it: a provider missing a required value is left out (its operations answer 422) and named by field only.
 */
const easypaisa = {
  baseUrl: 'https://easypay.easypaisa.com.pk',
  username: 'store-user',
  password: 'secret-password',
  storeId: '12345',
  emailAddress: 'payments@example.com',
  accountNum: '03451234567',
};
const jazzcash = { baseUrl: 'https://payments.jazzcash.com.pk', merchantId: 'MC1', password: 'p', integritySalt: 's', mpin: '1234' };

describe('the live providers configuration', () => {
  it('keeps a complete provider as given', () => {
    expect(parseLiveProvidersConfig({ easypaisa, jazzcash })).toEqual({ config: { easypaisa, jazzcash }, problems: [] });
  });

  it('leaves out an Easypaisa configuration without the merchant accountNum (the inquiry needs it), keeps JazzCash', () => {
    const { accountNum: _, ...withoutAccount } = easypaisa;
    const { config, problems } = parseLiveProvidersConfig({ easypaisa: { ...withoutAccount, accountNum: ' ' }, jazzcash });
    expect(config).toEqual({ jazzcash });
    expect(problems).toEqual(['easypaisa left out (its live operations answer 422): missing easypaisa.accountNum']);
    expect(parseLiveProvidersConfig({ easypaisa: withoutAccount }).config).toEqual({});
  });

  it('takes a JazzCash path family and paths only as documented', () => {
    const orchestrator = { ...jazzcash, pathFamily: 'paymentOrchestrator', paths: { refund: '/refund/path' } };
    expect(parseLiveProvidersConfig({ jazzcash: orchestrator }).config).toEqual({ jazzcash: orchestrator });
    const { config, problems } = parseLiveProvidersConfig({
      jazzcash: { ...jazzcash, pathFamily: 'orchestrator', paths: { refund: 'https://elsewhere', other: '/x' } },
    });
    expect(config).toEqual({});
    expect(problems).toEqual([
      'jazzcash left out (its live operations answer 422): invalid jazzcash.pathFamily, jazzcash.paths.refund, jazzcash.paths.other',
    ]);
    const cards = {
      versionSegment: false,
      hashPaRes: true,
      enrollmentReturnUrl: false,
      secureIdField: 'pp_C3DSecureID',
      paths: { processAcs: '/ApplicationAPI/API/2.0/ProcessACS' },
    };
    expect(parseLiveProvidersConfig({ jazzcash: { ...jazzcash, cards } }).config).toEqual({ jazzcash: { ...jazzcash, cards } });
    expect(parseLiveProvidersConfig({ jazzcash: { ...jazzcash, cards: { hashPaRes: 'yes', paths: { acs: '/x' } } } }).problems).toEqual([
      'jazzcash left out (its live operations answer 422): invalid jazzcash.cards.hashPaRes, jazzcash.cards.paths.acs',
    ]);
  });

  it("takes the open guesses' settings only in their documented shapes", () => {
    const settled = {
      ...jazzcash,
      inquiryStates: { refundedCodes: ['131', '132'], capturedStatuses: ['Captured'] },
      disbursement: { baseUrl: 'https://g', clientId: 'i', clientSecret: 's', aesKey: 'k', aesIv: 'v', notFoundCodes: ['G2P-T-404'] },
    };
    expect(parseLiveProvidersConfig({ jazzcash: settled }).problems).toEqual([]);
    const { problems } = parseLiveProvidersConfig({
      jazzcash: {
        ...settled,
        cards: { secureIdField: 'secureId' },
        inquiryStates: { refundedCodes: '131', voided: ['Voided'] },
        disbursement: { ...settled.disbursement, notFoundCodes: [''] },
      },
    });
    expect(problems).toEqual([
      'jazzcash left out (its live operations answer 422): invalid jazzcash.inquiryStates.refundedCodes, jazzcash.inquiryStates.voided, ' +
        'jazzcash.disbursement.notFoundCodes, jazzcash.cards.secureIdField',
    ]);
  });

  it('names missing values by field, never by value, including the disbursement credentials', () => {
    const { problems } = parseLiveProvidersConfig({ jazzcash: { ...jazzcash, disbursement: { baseUrl: 'https://x', clientId: 'id' } } });
    expect(problems).toEqual([
      'jazzcash left out (its live operations answer 422): missing jazzcash.disbursement.clientSecret, ' +
        'jazzcash.disbursement.aesKey, jazzcash.disbursement.aesIv',
    ]);
    expect(problems.join()).not.toContain('https://x');
  });
});
