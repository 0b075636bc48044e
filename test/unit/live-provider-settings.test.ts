import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { jazzCashCards } from '#shared/providers/live/jazzcash-card.ts';
import { jazzCashDisbursementRail, jazzCashRefundRail, type JazzCashConfig } from '#shared/providers/live/jazzcash.ts';
import { disbursementDecrypt, disbursementEncrypt, jazzCashSecureHash } from '#shared/providers/live/jazzcash-protocol.ts';

/**
 * Each open guess of docs/providers/jazzcash.md ("Open guesses") has an operator setting in the live configuration
 * (the Secrets Manager secret, read at a function's cold start): the same adapter code takes the other reading when the
 * setting says so. A stub on 127.0.0.1 answers as JazzCash would under either reading and keeps what was sent.
 */
let server: Server;
let baseUrl = '';
let answer: (path: string, body: Record<string, string>) => Record<string, string> = () => ({});
const sent: { path: string; body: Record<string, string> }[] = [];
const salt = 'stub-salt';
const key = '0123456789abcdef';
const iv = 'fedcba9876543210';

beforeAll(async () => {
  server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const raw = Buffer.concat(chunks).toString('utf8');
      const path = req.url ?? '';
      const body = path === '/token' ? {} : (JSON.parse(raw) as Record<string, string>);
      const plain = body.data ? disbursementDecrypt<Record<string, string>>(body.data, key, iv) : body;
      sent.push({ path, body: plain });
      const fields = answer(path, plain);
      const out = path === '/token' ? fields : body.data ? { data: disbursementEncrypt(fields, key, iv) } : signedFields(fields);
      res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(out));
    });
  });
  await new Promise<void>((ok) => server.listen(0, '127.0.0.1', ok));
  baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(() => new Promise<void>((ok) => server.close(() => ok())));

const signedFields = (f: Record<string, string>) => ({ ...f, pp_SecureHash: jazzCashSecureHash(f, salt) });
const config = (over: Partial<JazzCashConfig> = {}): JazzCashConfig => ({
  baseUrl,
  merchantId: 'MC1',
  password: 'p',
  integritySalt: salt,
  mpin: '1234',
  disbursement: { baseUrl, clientId: 'id', clientSecret: 'secret', aesKey: key, aesIv: iv },
  ...over,
});
const lastTo = (suffix: string) => sent.filter((s) => s.path.endsWith(suffix)).at(-1)!.body;

describe('the open guesses switch by configuration', () => {
  const card = { digits: '4111111111111111', expMonth: 12, expYear: 2034, cvc: '123' };
  const start = (c: JazzCashConfig) =>
    jazzCashCards(c).startAuthentication(
      { reference: 'chk_1', card, amountMinor: 2500_00, currency: 'PKR', returnUrl: 'https://pay.example/pay/1/card-return' },
      new Date(),
    );
  /** A frictionless enrollment, then authorize and capture answered 000. */
  const frictionless = () => {
    answer = (path): Record<string, string> =>
      path.endsWith('Check3DsEnrollment')
        ? { responseCode: '000', responseMessage: 'ok', c3DSecureID: '20190515095244486750', aR_Simple_Html: '' }
        : { pp_ResponseCode: '000', pp_ResponseMessage: 'ok' };
  };

  it('pp_ReturnURL on the enrollment: sent by default, left out with cards.enrollmentReturnUrl false', async () => {
    frictionless();
    await start(config());
    expect(lastTo('Check3DsEnrollment').pp_ReturnURL).toBe('https://pay.example/pay/1/card-return');
    await start(config({ cards: { enrollmentReturnUrl: false } }));
    expect(lastTo('Check3DsEnrollment')).not.toHaveProperty('pp_ReturnURL');
  });

  it("the 3-D Secure id's name on AuthorizePayment: pp_3dSecureID by default, another with cards.secureIdField", async () => {
    frictionless();
    const payment = { providerReference: 'T1', authenticationId: '2019', authenticationResult: '', amountMinor: 100_00, currency: 'PKR' };
    expect(await jazzCashCards(config()).confirm(payment, new Date())).toEqual({ status: 'Approved' });
    expect(lastTo('AuthorizePayment')).toMatchObject({ pp_3dSecureID: '2019' });
    await jazzCashCards(config({ cards: { secureIdField: 'pp_C3DSecureID' } })).confirm(payment, new Date());
    expect(lastTo('AuthorizePayment')).toMatchObject({ pp_C3DSecureID: '2019' });
    expect(lastTo('AuthorizePayment')).not.toHaveProperty('pp_3dSecureID');
  });

  it("the ProcessACS path: R1's by default, another with cards.paths.processAcs", async () => {
    frictionless();
    const payment = { providerReference: 'T2', authenticationId: '7', authenticationResult: 'PaRes', amountMinor: 100_00, currency: 'PKR' };
    await jazzCashCards(config()).confirm(payment, new Date());
    expect(sent.some((s) => s.path === '/ApplicationAPI/API/ProcessACS')).toBe(true);
    await jazzCashCards(config({ cards: { paths: { processAcs: '/ApplicationAPI/API/2.0/Purchase/ProcessACS' } } })).confirm(
      payment,
      new Date(),
    );
    expect(sent.at(-3)!.path).toBe('/ApplicationAPI/API/2.0/Purchase/ProcessACS');
  });

  it("the inquiry's refunded and captured states: S2's 131 and Refunded by default, others with inquiryStates", async () => {
    const refund = { transactionReference: 'T3', amountMinor: 100_00, currency: 'PKR' as const, walletProviderId: 1 as const };
    const i = refund as unknown as Parameters<ReturnType<typeof jazzCashRefundRail>['status']>[0];
    answer = () => ({ pp_ResponseCode: '000', pp_PaymentResponseCode: '134', pp_Status: 'Reversed' });
    expect(await jazzCashRefundRail(config()).status(i)).toEqual({ status: 'NotFound' });
    const reversed = config({ inquiryStates: { refundedCodes: ['134'] } });
    expect(await jazzCashRefundRail(reversed).status(i)).toMatchObject({ status: 'Completed' });
    answer = () => ({ pp_ResponseCode: '000', pp_Status: 'Settled' });
    const payment = { providerReference: 'T4', amountMinor: 100_00, currency: 'PKR' };
    await expect(jazzCashCards(config()).resolve(payment, new Date())).resolves.toMatchObject({ status: 'Declined' });
    const settled = config({ inquiryStates: { capturedStatuses: ['Settled'] } });
    expect(await jazzCashCards(settled).resolve(payment, new Date())).toEqual({ status: 'Approved' });
  });

  it("the disbursement inquiry's not-found code: G2P-T-404 by default, others with disbursement.notFoundCodes", async () => {
    const payout = {
      reference: 'WD9',
      amountMinor: 300_00,
      currency: 'PKR' as const,
      bankCode: 'JAZZCASH',
      accountNumber: '03001230000',
      accountTitle: 'A',
      receiverCnic: '3520212345671',
      description: 'Payout',
      submittedAt: new Date().toISOString(),
    };
    answer = (path): Record<string, string> =>
      path === '/token' ? { access_token: 't', expires_in: '3600' } : { responseCode: 'G2P-T-2017' };
    await expect(jazzCashDisbursementRail(config()).status(payout)).rejects.toThrow(/G2P-T-2017/);
    const base = config();
    const other = config({ disbursement: { ...base.disbursement!, notFoundCodes: ['G2P-T-2017'] } });
    expect(await jazzCashDisbursementRail(other).status(payout)).toEqual({ status: 'NotFound' });
  });
});
