/**
 * Requests and answers recorded in public integrations (issue 39 §2), each with its citation: the emulators take
 * what they require and how they answer from these, and the adapters' tests replay them
 * (test/unit/recorded-exchanges.test.ts), so a field the provider requires and an adapter omits fails a test, and an
 * answer as recorded is read as the provider means it. Values are as recorded (test credentials of the sources, never
 * real ones); docs/providers/*.md name the sources (E3, R3, R7, S9).
 */
export interface Recorded {
  source: { repository: string; path: string; commit: string };
  /** The request as the source sends it (its member names are what the emulator requires). */
  request?: Record<string, string>;
  /** The answer as recorded. */
  answer?: Record<string, unknown>;
  /** What else the source pins about the exchange. */
  note?: string;
}

const e3 = (path: string) => ({ repository: 'moeen-basra/omnipay-easypaisa', path, commit: '499acda857411f989ef1fcf37e97f3507a7e73dc' });
const r3 = (path: string) => ({ repository: 'moeen-basra/omnipay-jazzcash', path, commit: '61a27894a09519a69a680061545969d5177286b3' });

export const recorded = {
  /** E3: the inquiry request, its store and merchant account given as gateway options (tests/Helper.php getOptions). */
  easypaisaInquiryRequest: {
    source: e3('tests/Message/FetchTransactionRequestTest.php'),
    request: { orderId: '6433cef9cdc87', storeId: 'store123', accountNum: 'account123' },
  },
  /** E3: a paid order's inquiry answer; `accountNum` the merchant's, `msisdn` the customer's, the time in Pakistan time. */
  easypaisaInquiryPaid: {
    source: e3('tests/Mock/FetchTransaction_Success.txt'),
    answer: {
      msisdn: '03211234567',
      orderId: '651bb59297ca0',
      storeId: 'store123',
      storeName: 'storeName',
      accountNum: 'account123',
      paymentMode: 'MA',
      responseCode: '0000',
      responseDesc: 'SUCCESS',
      settlementStatus: 'FAILED',
      transactionAmount: 3000,
      transactionStatus: 'PAID',
      transactionDateTime: '03/10/2023 11:32 AM',
    },
    note: 'orderId 651bb59297ca0 is a PHP uniqid: 2023-10-03T06:32:50Z, 11:32 AM in Pakistan time (dd/MM/yyyy hh:mm a).',
  },
  /** E3: a failed order's inquiry answer, with Easypaisa's error code and reason. */
  easypaisaInquiryFailed: {
    source: e3('tests/Mock/FetchTransaction_Failed.txt'),
    answer: {
      msisdn: '03211234567',
      orderId: '6433cef9cdc87',
      storeId: 'store123',
      errorCode: 'AUTHORIZATION_SENDER_ACCOUNT_NOT_ACTIVE',
      storeName: 'storeName',
      accountNum: 'account123',
      errorReason: "Customer's or merchant's Easypaisa Account is not Active",
      paymentMode: 'MA',
      responseCode: '0000',
      responseDesc: 'SUCCESS',
      transactionAmount: 2000,
      transactionStatus: 'FAILED',
      transactionDateTime: '10/04/2023 01:55 PM',
    },
    note: 'orderId 6433cef9cdc87: 2023-04-10T08:55:21Z, 01:55 PM in Pakistan time.',
  },
  /** E3: the MA charge's success answer. */
  easypaisaInitiateSuccess: {
    source: e3('tests/Mock/PurchaseSuccess.txt'),
    answer: {
      orderId: '6433cef9cdc87',
      storeId: 'store123',
      optional1: 'abcdef',
      responseCode: '0000',
      responseDesc: 'SUCCESS',
      transactionId: '21154867845',
      transactionDateTime: '10/04/2023 01:55 PM',
    },
  },
  /** E3: the store refusal, text as recorded. */
  easypaisaInvalidStore: {
    source: e3('tests/Mock/PurchaseFailed_InvalidStoreId.txt'),
    answer: { responseCode: '0006', responseDesc: 'INVALID STORE ID' },
  },
  /** R3: the payment inquiry request (ApplicationAPI), with the hash its test pins for these values and salt. */
  jazzCashInquiryRequest: {
    source: r3('tests/Message/FetchTransactionRequestTest.php'),
    request: { pp_TxnRefNo: '647cb56c890e4', pp_MerchantID: 'merchant123', pp_Password: 'password', pp_Version: '1.1' },
    answer: { pp_SecureHash: 'B39B22919994EA5C9BFDD02940DF6E87EE06441B778DD4D68709F8204E6404CD' },
    note: 'integrity salt "reallySecretKey" (tests/Helper.php getOptions secretKey)',
  },
  /** R3: a paid payment's inquiry answer (121, Completed, the retrieval reference spelled pp_RetrievalReferenceNo). */
  jazzCashInquiryPaid: {
    source: r3('tests/Mock/FetchTransaction_Success.txt'),
    answer: {
      pp_BankID: '',
      pp_Status: 'Completed',
      pp_AuthCode: '049143965100',
      pp_ProductID: '',
      pp_ResponseCode: '000',
      pp_SettlementDate: '20230703115753',
      pp_ResponseMessage: 'Thank you for Using JazzCash, your operation successfully completed.',
      pp_SettlementExpiry: '',
      pp_PaymentResponseCode: '121',
      pp_RetrievalReferenceNo: '230703954124',
      pp_PaymentResponseMessage: 'Transaction has been marked confirmed by Merchant.',
    },
    note: 'its pp_SecureHash is under an unknown salt: replayed re-signed with ours',
  },
  /** R3: a signed return (the callback's field set), pp_RetreivalReferenceNo spelled so, JSON nulls for empty members. */
  jazzCashReturn: {
    source: r3('tests/Mock/CompletePurchase_Success.txt'),
    answer: {
      ppmbf_1: null,
      ppmpf_1: null,
      ppmpf_2: 'zu1vv3',
      pp_Amount: '1500',
      pp_BankID: null,
      pp_TxnType: 'MWALLET',
      pp_Version: '1.1',
      pp_AuthCode: '024166247497',
      pp_Language: 'EN',
      pp_TxnRefNo: '6158408e95098',
      pp_MerchantID: '00258027',
      pp_TxnCurrency: 'PKR',
      pp_TxnDateTime: '20211002162046',
      pp_ResponseCode: '000',
      pp_BillReference: '6158408e95098',
      pp_SubMerchantId: null,
      pp_ResponseMessage: null,
      pp_SettlementExpiry: null,
      pp_RetreivalReferenceNo: '211002644299',
    },
    note: 'its pp_SecureHash is under an unknown salt: replayed re-signed with ours; ppmbf_2…5 and ppmpf_3…5 (null) left out here',
  },
  /** R9: a Check3DsEnrollment answer for a card not enrolled (in a comment of the integration). */
  jazzCashEnrollmentNotEnrolled: {
    source: {
      repository: 'arkhitech/offsite_payments',
      path: 'lib/offsite_payments/integrations/jazz_cash.rb',
      commit: '07d1b3e1cd0167e5becade3c87606c1fd30fd385',
    },
    answer: {
      summaryStatus: 'CARD_NOT_ENROLLED',
      pp_CustomerID: 'test',
      pp_CustomerEmail: 'test@test.com',
      pp_CustomerMobile: '033456789025',
      result_CardEnrolled: 'CARD_NOT_ENROLLED',
      c3DSecureID: '20190515095244486750',
      aR_Simple_Html: '',
      secureHash: '',
      pp_IsRegisteredCustomer: 'Yes',
      responseCode: '433',
      responseMessage: 'Card holder is not enrolled',
    },
  },
  /** S9 (JazzCash's Status Inquiry Guide, 2026): the Payment Orchestrator inquiry request carries no pp_Version. */
  jazzCashOrchestratorInquiryRequest: {
    source: { repository: '(code index, repository not named)', path: 'Status Inquiry Guide, version 2026', commit: '(text)' },
    request: { pp_TxnRefNo: 'T20251124131402', pp_MerchantID: 'merchant', pp_Password: 'password' },
  },
  /** R7: the MW transfer payload (before encryption), as every MW transfer of the source builds it. */
  jazzCashDisbursementRequest: {
    source: {
      repository: 'WARDAH-MANZOOR/qrScanSystem',
      path: 'backend/src/services/paymentGateway/index.ts',
      commit: 'ef31c605e2f0e579be4b99ab1bd557e94d9afa69',
    },
    request: { receiverCNIC: '3520212345671', receiverMSISDN: '03001230000', amount: '300.00', referenceId: 'WD1' },
    note: 'the values are ours: the source builds {receiverCNIC, receiverMSISDN, amount, referenceId} from its request body',
  },
  /** R7: the disbursement inquiry's recorded answer (in a comment beside its inquiry code). */
  jazzCashDisbursementInquiryCancelled: {
    source: {
      repository: 'WARDAH-MANZOOR/qrScanSystem',
      path: 'backend/src/services/paymentGateway/index.ts',
      commit: 'ef31c605e2f0e579be4b99ab1bd557e94d9afa69',
    },
    answer: {
      responseCode: 'G2P-T-0',
      responseDescription: 'Process service request successfully.',
      transactionID: '079896464953',
      referenceID: 'ababjdbhdbhjabhda',
      transactionStatus: 'Cancelled',
      isReversed: '0',
    },
  },
} satisfies Record<string, Recorded>;

/** The member names of a recorded request: what the emulator requires, non-empty. */
export const requiredBy = (r: { request?: Record<string, string> }) => Object.keys(r.request ?? {});

/** Easypaisa's recorded time format, dd/MM/yyyy hh:mm AM|PM in Pakistan time (UTC+5, no daylight saving). */
export function easypaisaRecordedTime(at: Date): string {
  const pk = new Date(at.getTime() + 5 * 3_600_000);
  const two = (n: number) => String(n).padStart(2, '0');
  const hours = pk.getUTCHours();
  return (
    `${two(pk.getUTCDate())}/${two(pk.getUTCMonth() + 1)}/${pk.getUTCFullYear()} ` +
    `${two(hours % 12 === 0 ? 12 : hours % 12)}:${two(pk.getUTCMinutes())} ${hours < 12 ? 'AM' : 'PM'}`
  );
}
