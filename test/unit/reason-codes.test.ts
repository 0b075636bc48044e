import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { statusChangedEvent } from '#shared/domain/events.ts';
import type { PaymentIntent } from '#shared/domain/intent.ts';
import { eventReason, isReasonCode, reasonCodes, reasonCodesByIntentType, walletDecline } from '#shared/domain/reasons.ts';

const guide = readFileSync(resolve(import.meta.dirname, '../../docs/merchant-guide.md'), 'utf8');

describe('reason codes (TransactionStatusChanged.Reason)', () => {
  it('documents every code in the merchant guide, with the intent types that use it', () => {
    for (const code of Object.keys(reasonCodes)) {
      const row = guide.split('\n').find((l) => l.startsWith(`| \`${code}\` |`));
      expect(row, `docs/merchant-guide.md has no row for ${code}`).toBeDefined();
      for (const [type, codes] of Object.entries(reasonCodesByIntentType))
        if (codes.includes(code as never)) expect(row, code).toContain(type);
    }
    expect(new Set(Object.values(reasonCodesByIntentType).flat())).toEqual(new Set(Object.keys(reasonCodes)));
  });

  it('keeps a provider’s own text out of Reason', () => {
    expect(walletDecline('customer_declined')).toEqual({ reason: 'customer_declined', reasonDetail: null });
    expect(walletDecline(undefined)).toEqual({ reason: 'customer_declined', reasonDetail: null });
    expect(walletDecline('Subscriber blocked by operator')).toEqual({
      reason: 'wallet_declined',
      reasonDetail: 'Subscriber blocked by operator',
    });
    expect(isReasonCode('toString')).toBe(false);
  });

  it('maps free text stored before codes existed to a code, the text going to ReasonDetail', () => {
    expect(eventReason({ intentType: 'withdrawal', status: 'Failed', reason: 'Account closed' })).toEqual({
      Reason: 'bank_rejected',
      ReasonDetail: 'Account closed',
    });
    expect(eventReason({ intentType: 'withdrawal', status: 'Cancelled', reason: 'The withdrawal was not approved.' })).toEqual({
      Reason: 'rejected_by_operator',
      ReasonDetail: 'The withdrawal was not approved.',
    });
    expect(eventReason({ intentType: 'checkout', status: 'Failed', reason: 'card_declined' })).toEqual({
      Reason: 'card_declined',
      ReasonDetail: null,
    });
    expect(eventReason({ intentType: 'deposit', status: 'Completed', reason: null })).toEqual({ Reason: null, ReasonDetail: null });
    const intent = {
      paymentIntentId: 'p',
      merchantId: 'm',
      mode: 'test',
      intentType: 'withdrawal',
      status: 'Failed',
      amountMinor: 100,
      currency: 'PKR',
      orderRef: { orderRef: 'o' },
      reason: 'bank_rejected',
      reasonDetail: 'Title mismatch',
      transactionReference: 't',
      customerRef: null,
      traceId: 'tr',
      metadataJson: null,
    } as unknown as PaymentIntent;
    expect(statusChangedEvent(intent, 'Processing', new Date()).data).toMatchObject({
      Reason: 'bank_rejected',
      ReasonDetail: 'Title mismatch',
    });
  });
});
