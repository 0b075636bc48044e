import { describe, expect, it } from 'vitest';
import { convertMinor, parseRate, sandboxRate } from '#shared/domain/fx.ts';
import { httpRateSource } from '#shared/providers/fx-rates.ts';
import { normaliseAccount, settlementAmounts } from '#shared/domain/settlement.ts';
import { canRefundTransition, refundRefusal, RefundStatus } from '#shared/domain/refund.ts';
import { checkUsdtAddress, toChecksumAddress, tronAddress } from '#shared/domain/usdt-address.ts';
import type { PaymentIntent } from '#shared/domain/intent.ts';

describe('USDT addresses', () => {
  it('accepts a valid TRC20 address and refuses a one-character typo (base58check)', () => {
    const good = 'TR7NHqjeKQxGTCi8q8ZY4pL8otSzgjLj6t'; // the USDT contract on Tron
    expect(checkUsdtAddress(good)).toEqual({ ok: true, network: 'TRC20', address: good });
    const typo = `${good.slice(0, 10)}${good[10] === 'a' ? 'b' : 'a'}${good.slice(11)}`;
    expect(checkUsdtAddress(typo)).toMatchObject({ ok: false, reason: expect.stringMatching(/checksum/) });
    expect(checkUsdtAddress('TR7NHqjeKQxGTCi8q8ZY4pL8otSzgjLj6')).toMatchObject({ ok: false });
    expect(checkUsdtAddress('TR7NHqjeKQxGTCi8q8ZY4pL8otSzgjLj60')).toMatchObject({ ok: false }); // 0 is not base58
  });

  it('builds Tron addresses that validate, and detects a changed account id', () => {
    const id = Uint8Array.from({ length: 20 }, (_, i) => i * 7);
    const address = tronAddress(id);
    expect(address).toMatch(/^T[1-9A-HJ-NP-Za-km-z]{33}$/);
    expect(checkUsdtAddress(address).ok).toBe(true);
  });

  it('validates ERC20 addresses with the EIP-55 checksum (the EIP’s own test vectors)', () => {
    for (const a of [
      '0x5aAeb6053F3E94C9b9A09f33669435E7Ef1BeAed',
      '0xfB6916095ca1df60bB79Ce92cE3Ea74c37c5d359',
      '0xdbF03B407c01E7cD3CBea99509d93f8DDDC8C6FB',
      '0xD1220A0cf47c7B9Be7A2E6BA89F429762e7b9aDb',
    ]) {
      expect(toChecksumAddress(a.toLowerCase())).toBe(a);
      expect(checkUsdtAddress(a)).toEqual({ ok: true, network: 'ERC20', address: a });
    }
    expect(checkUsdtAddress('0x5aAeb6053F3E94C9b9A09f33669435E7Ef1BeAeD')).toMatchObject({
      ok: false,
      reason: expect.stringMatching(/wrong EIP-55/),
    });
    expect(checkUsdtAddress('0x5aaeb6053f3e94c9b9a09f33669435e7ef1beaed')).toMatchObject({
      ok: false,
      reason: expect.stringMatching(/must carry its EIP-55/),
    });
    expect(checkUsdtAddress('1BoatSLRHtKNngkdXEeobR76b53LETtpyT')).toMatchObject({ ok: false });
  });
});

describe('FX in integers', () => {
  it('parses decimal rates exactly and converts rounding down to the payout currency', () => {
    expect(parseRate('278.50')).toEqual({ units: 27850n, scale: 2 });
    // 995.00 PKR at 0.00359712 = 3.5791344 USDT → 3.579134 (6 decimals, rounded down)
    expect(convertMinor(99_500, 'PKR', 'USDT', '0.00359712')).toBe(3_579_134);
    // 10.00 USD at 278.5 = 2785.00 PKR exactly
    expect(convertMinor(1_000, 'USD', 'PKR', '278.5')).toBe(278_500);
    // 0.01 USD at 0.92 = 0.0092 EUR → 0.00 (rounded down)
    expect(convertMinor(1, 'USD', 'EUR', '0.92')).toBe(0);
    // Large amounts stay exact (no float): 90 071 992 547.40 PKR at 0.0036
    expect(convertMinor(9_007_199_254_740, 'PKR', 'USD', '0.0036')).toBe(32_425_917_317);
    expect(() => parseRate('0')).toThrow();
    expect(() => parseRate('1e-3')).toThrow();
  });

  it('derives the sandbox table from fixed USD values, rounded half up to 8 decimals', () => {
    expect(sandboxRate('PKR', 'USDT')).toBe('0.00359712'); // 0.0036 / 1.0008 = 0.0035971223…
    expect(sandboxRate('USD', 'PKR')).toBe('277.77777778');
    expect(sandboxRate('PKR', 'USD')).toBe('0.0036');
  });
});

describe('the live rate source adapter', () => {
  const answer = (status: number, body: unknown) => (async () => new Response(JSON.stringify(body), { status })) as unknown as typeof fetch;
  it('asks GET ?from=&to= and accepts only a decimal string rate', async () => {
    let asked = '';
    const source = httpRateSource('https://rates.example/v1/rate', (async (url: URL) => {
      asked = url.toString();
      return new Response(JSON.stringify({ rate: '0.0036' }), { status: 200 });
    }) as unknown as typeof fetch);
    const now = new Date('2025-01-01T00:00:00Z');
    expect(await source.quote('PKR', 'USD', now)).toEqual({ from: 'PKR', to: 'USD', rate: '0.0036', at: now.toISOString() });
    expect(asked).toBe('https://rates.example/v1/rate?from=PKR&to=USD');
    expect(await httpRateSource('https://r.example', answer(404, {})).quote('PKR', 'USD', now)).toBeUndefined();
    await expect(httpRateSource('https://r.example', answer(200, { rate: 0.0036 })).quote('PKR', 'USD', now)).rejects.toThrow(
      /decimal string/,
    );
    await expect(httpRateSource('https://r.example', answer(503, {})).quote('PKR', 'USD', now)).rejects.toThrow(/503/);
  });
});

describe('settlement amounts and bank accounts', () => {
  it('takes the fee (basis points, half up) out of the amount', () => {
    expect(settlementAmounts(50_000, { basisPoints: 50, fixedMinor: 0 })).toEqual({ feeMinor: 250, netMinor: 49_750 });
    expect(settlementAmounts(101, { basisPoints: 50, fixedMinor: 0 })).toEqual({ feeMinor: 1, netMinor: 100 });
    expect(settlementAmounts(100, { basisPoints: 0, fixedMinor: 100 }).netMinor).toBe(0);
  });

  it('checks IBANs with mod-97 and accepts plain account numbers', () => {
    expect(normaliseAccount('pk36 scbl 0000 0011 2345 6702')).toEqual({ ok: true, value: 'PK36SCBL0000001123456702' });
    expect(normaliseAccount('PK37SCBL0000001123456702')).toMatchObject({ ok: false, reason: expect.stringMatching(/check digit/) });
    expect(normaliseAccount('GB82WEST12345698765432')).toEqual({ ok: true, value: 'GB82WEST12345698765432' });
    expect(normaliseAccount('00123456781111')).toEqual({ ok: true, value: '00123456781111' });
    expect(normaliseAccount('12345')).toMatchObject({ ok: false });
  });
});

describe('refund rules', () => {
  const intent = (over: Partial<PaymentIntent> & { refundReservedMinor?: number }) =>
    ({ intentType: 'checkout', status: 'Completed', amountMinor: 15_000, ...over }) as PaymentIntent;
  it('refunds only Completed checkouts and deposits with something left', () => {
    expect(refundRefusal(intent({}))).toBeUndefined();
    expect(refundRefusal(intent({ intentType: 'deposit' }))).toBeUndefined();
    expect(refundRefusal(intent({ intentType: 'withdrawal' }))).toMatch(/checkouts and deposits/);
    expect(refundRefusal(intent({ status: 'Pending' }))).toMatch(/Completed/);
    expect(refundRefusal(intent({ refundReservedMinor: 15_000 }))).toMatch(/already refunded/);
  });
  it('never leaves a terminal status', () => {
    for (const terminal of [
      RefundStatus.Completed,
      RefundStatus.Failed,
      RefundStatus.Cancelled,
      RefundStatus.Rejected,
      RefundStatus.Expired,
    ]) {
      for (let to = 0; to <= 7; to++) expect(canRefundTransition(terminal, to as RefundStatus)).toBe(false);
    }
    expect(canRefundTransition(RefundStatus.Pending, RefundStatus.Approved)).toBe(true);
    expect(canRefundTransition(RefundStatus.Approved, RefundStatus.Completed)).toBe(false);
  });
});
