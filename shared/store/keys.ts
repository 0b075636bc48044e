import type { Mode } from '#shared/domain/credentials.ts';

/**
 * Every key pattern of the single table, in one place. docs/access-patterns.md lists the access
 * patterns these serve; nothing outside shared/store builds a key.
 *
 *   entity        PK                                  SK                                GSI1PK / GSI1SK
 *   Merchant      MERCHANT#<merchantId>               PROFILE                           MERCHANTS / <createdAt>#<merchantId>
 *   ApiKey        APIKEY#<sha256(apiKey)>             APIKEY                            MERCHANT#<merchantId> / APIKEY#<mode>#<createdAt>#<keyId>
 *   ApiKeyId      APIKEYID#<keyId>                    APIKEYID                          -
 *   Wallet        MERCHANT#<merchantId>               WALLET#<mode>#<currency>          -
 *   Journal       MERCHANT#<merchantId>               JOURNAL#<mode>#<createdAt>#<id>   -
 *   Idempotency   IDEM#<mode>#<merchantId>#<key>      IDEM                              -
 */
export type Key = { PK: string; SK: string };

export const keys = {
  merchant: (merchantId: string): Key => ({ PK: `MERCHANT#${merchantId}`, SK: 'PROFILE' }),
  merchantListing: (createdAt: string, merchantId: string) => ({ GSI1PK: 'MERCHANTS', GSI1SK: `${createdAt}#${merchantId}` }),

  apiKey: (hash: string): Key => ({ PK: `APIKEY#${hash}`, SK: 'APIKEY' }),
  apiKeyListing: (merchantId: string, mode: Mode, createdAt: string, keyId: string) => ({
    GSI1PK: `MERCHANT#${merchantId}`,
    GSI1SK: `APIKEY#${mode}#${createdAt}#${keyId}`,
  }),
  apiKeysOfMerchant: (merchantId: string, mode?: Mode) => ({
    GSI1PK: `MERCHANT#${merchantId}`,
    GSI1SKPrefix: mode ? `APIKEY#${mode}#` : 'APIKEY#',
  }),
  apiKeyId: (keyId: string): Key => ({ PK: `APIKEYID#${keyId}`, SK: 'APIKEYID' }),

  wallet: (merchantId: string, mode: Mode, currency: string): Key => ({
    PK: `MERCHANT#${merchantId}`,
    SK: `WALLET#${mode}#${currency}`,
  }),
  walletsOfMerchant: (merchantId: string, mode: Mode) => ({ PK: `MERCHANT#${merchantId}`, SKPrefix: `WALLET#${mode}#` }),

  journal: (merchantId: string, mode: Mode, createdAt: string, journalId: string): Key => ({
    PK: `MERCHANT#${merchantId}`,
    SK: `JOURNAL#${mode}#${createdAt}#${journalId}`,
  }),
  journalsOfMerchant: (merchantId: string, mode: Mode) => ({ PK: `MERCHANT#${merchantId}`, SKPrefix: `JOURNAL#${mode}#` }),

  idempotency: (mode: Mode, merchantId: string, idempotencyKey: string): Key => ({
    PK: `IDEM#${mode}#${merchantId}#${idempotencyKey}`,
    SK: 'IDEM',
  }),
} as const;
