import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { easypaisaWallet } from '#shared/providers/live/easypaisa.ts';
import { easypaisaTime } from '#shared/providers/live/easypaisa-protocol.ts';
import { inquiryFields, jazzCashDisbursementRail, jazzCashWallet } from '#shared/providers/live/jazzcash.ts';
import { jazzCashCards } from '#shared/providers/live/jazzcash-card.ts';
import { disbursementDecrypt, disbursementEncrypt, jazzCashSecureHash } from '#shared/providers/live/jazzcash-protocol.ts';
import { easypaisaRecordedTime, recorded, requiredBy } from '../../scripts/emulators/recorded.ts';

/**
 * The adapters against the requests and answers recorded in public integrations (scripts/emulators/recorded.ts, each
 * with its repository, file and commit): a stub on 127.0.0.1 answers exactly the recorded answer and keeps what the
 * adapter sent, so a member the recorded request has and the adapter omits, or a recorded answer the adapter misreads,
 * fails here.
 */
let server: Server;
let baseUrl = '';
let answer: (path: string, body: string) => unknown = () => ({});
const sent: { path: string; body: string; headers: Record<string, unknown> }[] = [];

beforeAll(async () => {
  server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const body = Buffer.concat(chunks).toString('utf8');
      sent.push({ path: req.url ?? '', body, headers: req.headers });
      res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(answer(req.url ?? '', body)));
    });
  });
  await new Promise<void>((ok) => server.listen(0, '127.0.0.1', ok));
  baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(() => new Promise<void>((ok) => server.close(() => ok())));

const easypaisa = () =>
  easypaisaWallet({
    baseUrl,
    username: 'username',
    password: 'password',
    storeId: 'store123',
    emailAddress: 'payments@example.com',
    accountNum: 'account123',
  });

describe('Easypaisa, replayed from E3', () => {
  it('the inquiry request has the recorded members, the merchant account among them', async () => {
    answer = () => recorded.easypaisaInquiryPaid.answer;
    await easypaisa().statusInquiry('6433cef9cdc87', new Date());
    expect(JSON.parse(sent.at(-1)!.body)).toEqual(recorded.easypaisaInquiryRequest.request);
    expect(requiredBy(recorded.easypaisaInquiryRequest)).toEqual(['orderId', 'storeId', 'accountNum']);
  });

  it('reads a recorded PAID answer as paid, at the time it states (Pakistan time)', async () => {
    answer = () => recorded.easypaisaInquiryPaid.answer;
    expect(await easypaisa().statusInquiry('651bb59297ca0', new Date())).toEqual({
      status: 'Approved',
      providerTime: '2023-10-03T06:32:00.000Z',
    });
  });

  it("reads a recorded FAILED answer as declined with Easypaisa's reason", async () => {
    answer = () => recorded.easypaisaInquiryFailed.answer;
    expect(await easypaisa().statusInquiry('6433cef9cdc87', new Date())).toEqual({
      status: 'Declined',
      reason: "Easypaisa: FAILED (Customer's or merchant's Easypaisa Account is not Active)",
      providerTime: '2023-04-10T08:55:00.000Z',
    });
  });

  it('parses the recorded time format, and the emulator writes the same format', () => {
    // The orders' PHP uniqid times are 2023-04-10T08:55:21Z and 2023-10-03T06:32:50Z: read as dd/MM, in UTC+5.
    expect(easypaisaTime(recorded.easypaisaInitiateSuccess.answer.transactionDateTime)).toBe('2023-04-10T08:55:00.000Z');
    expect(easypaisaTime('12/01/2024 12:05 AM')).toBe('2024-01-11T19:05:00.000Z');
    expect(easypaisaTime('12/01/2024 12:05 PM')).toBe('2024-01-12T07:05:00.000Z');
    for (const bad of ['2023-04-10 13:55:21', '31/02/2023 01:00 PM', '10/04/2023 13:55 PM', '', undefined])
      expect(easypaisaTime(bad), String(bad)).toBeUndefined();
    const at = new Date('2026-11-28T19:07:00Z');
    expect(easypaisaRecordedTime(at)).toBe('29/11/2026 12:07 AM');
    expect(easypaisaTime(easypaisaRecordedTime(at))).toBe(at.toISOString());
  });

  it("answers E3's recorded store refusal text", () => {
    expect(recorded.easypaisaInvalidStore.answer).toEqual({ responseCode: '0006', responseDesc: 'INVALID STORE ID' });
  });
});

describe('JazzCash, replayed from R3 and R7', () => {
  const config = { baseUrl: '', merchantId: 'merchant123', password: 'password', integritySalt: 'reallySecretKey', mpin: '1234' };

  it("signs R3's recorded inquiry request to the digest its test pins, and sends exactly its members", () => {
    const r = recorded.jazzCashInquiryRequest;
    expect(jazzCashSecureHash(r.request, 'reallySecretKey')).toBe(r.answer.pp_SecureHash);
    expect(inquiryFields(config, r.request.pp_TxnRefNo)).toEqual(r.request);
    // The Payment Orchestrator's (S9) carries no pp_Version.
    expect(Object.keys(inquiryFields({ ...config, pathFamily: 'paymentOrchestrator' }, 'T1')).sort()).toEqual(
      requiredBy(recorded.jazzCashOrchestratorInquiryRequest).sort(),
    );
  });

  it("reads R3's recorded return (re-signed) as naming the charge, its amount and retrieval reference", async () => {
    const fields = Object.fromEntries(
      Object.entries(recorded.jazzCashReturn.answer).map(([k, v]) => [k, v ?? '']), // a form post carries JSON nulls as ""
    ) as Record<string, string>;
    const form = new URLSearchParams({ ...fields, pp_SecureHash: jazzCashSecureHash(fields, config.integritySalt) }).toString();
    const wallet = jazzCashWallet({ ...config, merchantId: '00258027' });
    expect(await wallet.parseCallback({ 'content-type': 'application/x-www-form-urlencoded' }, form)).toEqual({
      providerReference: '6158408e95098',
      amountMinor: 1500,
      providerTransactionId: '211002644299',
      mismatched: [],
    });
  });

  it("reads R9's recorded enrollment answer (433, not enrolled) as a card not enrolled", async () => {
    answer = () => recorded.jazzCashEnrollmentNotEnrolled.answer;
    const cards = jazzCashCards({ ...config, baseUrl });
    const started = await cards.startAuthentication(
      {
        reference: 'chk_1',
        card: { digits: '4111111111111111', expMonth: 12, expYear: 2034, cvc: '123' },
        amountMinor: 100_00,
        currency: 'PKR',
        returnUrl: 'https://pay.example/pay/1/card-return',
      },
      new Date(),
    );
    expect(started).toEqual({
      accepted: false,
      code: 'rejected',
      message: 'This card is not enrolled in 3-D Secure: Card holder is not enrolled (433).',
    });
  });

  it("reads R3's recorded inquiry answer (121, Completed) as paid, with its retrieval reference", async () => {
    const fields = recorded.jazzCashInquiryPaid.answer;
    answer = () => ({ ...fields, pp_SecureHash: jazzCashSecureHash(fields, config.integritySalt) }); // re-signed: its salt is unknown
    const wallet = jazzCashWallet({ ...config, baseUrl });
    expect(await wallet.statusInquiry('T0000000000000000001', new Date())).toEqual({
      status: 'Approved',
      providerTransactionId: '230703954124',
    });
    expect(Object.keys(JSON.parse(sent.at(-1)!.body)).sort()).toEqual(
      [...requiredBy(recorded.jazzCashInquiryRequest), 'pp_SecureHash'].sort(),
    );
  });

  it("sends R7's recorded transfer members and reads R7's recorded inquiry answer (Cancelled) as failed", async () => {
    const d = { baseUrl, clientId: 'id', clientSecret: 'secret', aesKey: '0123456789abcdef', aesIv: 'fedcba9876543210' };
    const payloads: Record<string, string>[] = [];
    answer = (path, body) => {
      if (path === '/token') return { access_token: 'token', expires_in: 3600 };
      payloads.push(disbursementDecrypt<Record<string, string>>((JSON.parse(body) as { data: string }).data, d.aesKey, d.aesIv));
      const recordedAnswer = path.endsWith('/transactionStatus')
        ? recorded.jazzCashDisbursementInquiryCancelled.answer
        : { responseCode: 'G2P-T-0', responseDescription: 'ok', transactionID: '1' };
      return { data: disbursementEncrypt(recordedAnswer, d.aesKey, d.aesIv) };
    };
    const rail = jazzCashDisbursementRail({ ...config, baseUrl, disbursement: d });
    const payout = {
      reference: 'WD1',
      amountMinor: 300_00,
      currency: 'PKR' as const,
      bankCode: 'JAZZCASH',
      accountNumber: '03001230000',
      accountTitle: 'Ayesha Khan',
      receiverCnic: '3520212345671',
      description: 'Payout',
      submittedAt: new Date().toISOString(),
    };
    expect(await rail.submit(payout)).toMatchObject({ outcome: 'accepted' });
    expect(payloads[0]).toEqual(recorded.jazzCashDisbursementRequest.request);
    expect(await rail.status(payout)).toMatchObject({ status: 'Failed' });
  });
});
