import { createHmac } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { constructEvent, verifyLegacySignature, verifySignature } from '../../sdk/node/src/webhooks.ts';

const secret = 'whsec_c2VjcmV0IGZvciB0aGUgZmFpbC1jbG9zZWQgdGVzdHM=';
const body = '{"id":"evt_1","type":"TransactionStatusChanged","created":1700000000,"data":{}}';
const now = 1_700_000_000;
const hmac = (key: string, message: string) => createHmac('sha256', key).update(message).digest('hex');

describe('webhook verification helper fails closed', () => {
  it('throws on a missing, empty or non-string secret, alone or in a rotation list', () => {
    // A signature made with the empty key is something anyone can compute.
    const forged = `t=${now},v1=${hmac('', `${now}.${body}`)}`;
    for (const secrets of ['', [''], [secret, ''], [], [undefined], [42], undefined, null] as unknown[]) {
      expect(() => verifySignature(body, forged, secrets as string[], { now }), JSON.stringify(secrets)).toThrow(TypeError);
      expect(() => verifyLegacySignature(body, hmac('', body), secrets as string[])).toThrow(TypeError);
      expect(() => constructEvent(body, { 'X-Svc-Signature-V2': forged }, secrets as string[], { now })).toThrow(TypeError);
    }
  });

  it('refuses a NaN, negative, zero or infinite tolerance instead of skipping the timestamp check', () => {
    const old = now - 10 * 86_400;
    const stale = `t=${old},v1=${hmac(secret, `${old}.${body}`)}`;
    for (const toleranceSeconds of [Number.NaN, -1, 0, Number.POSITIVE_INFINITY, '300' as unknown as number]) {
      expect(() => verifySignature(body, stale, secret, { now, toleranceSeconds }), String(toleranceSeconds)).toThrow(TypeError);
    }
    expect(() => verifySignature(body, stale, secret, { now, toleranceSeconds: 300 })).toThrow(/tolerance/);
    expect(verifySignature(body, stale, secret, { now: old + 5, toleranceSeconds: 10 })).toBe(old);
  });
});
