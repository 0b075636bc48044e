import { createHash } from 'node:crypto';
import { readdirSync, readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { canonicalString, signBody, verifyBodySignature } from '#shared/domain/body-signature.ts';
import { signBody as sdkSignBody } from '../../sdk/node/src/index.ts';

describe('MD5 body signature (docs/merchant-guide.md, Signing a request body)', () => {
  const body = {
    amount: 100.5,
    description: 'Order 42',
    orderRef: { orderRef: 'ORD42', discount: '', tax: null },
    customerRef: { name: 'Ayesha Khan', email: 'a@example.com' },
    items: [{ sku: 'B' }, { sku: 'A' }],
    autoProcessPayout: false,
    signature: 'ignored',
  };

  it('flattens, drops null and empty, renders String(), sorts by code unit', () => {
    expect(canonicalString(body)).toBe(
      'amount=100.5&autoProcessPayout=false&customerRef.email=a@example.com&customerRef.name=Ayesha ' +
        'Khan&description=Order 42&items.0.sku=B&items.1.sku=A&orderRef.orderRef=ORD42',
    );
  });

  it('is MD5 of the canonical string plus &key=<secret> (the README worked example)', () => {
    const secret = 'sk_test_0123456789abcdefghijABCDEFGHIJ0123';
    const example = { amount: 1500, currency: 'PKR', description: 'Blue shirt', orderRef: { orderRef: 'INV1001' } };
    const expected = createHash('md5')
      .update(`amount=1500&currency=PKR&description=Blue shirt&orderRef.orderRef=INV1001&key=${secret}`)
      .digest('hex');
    expect(signBody(example, secret)).toBe(expected);
    expect(signBody(example, secret)).toBe('c3681d857eb1300237776aaa486d44cd');
  });

  it('verifies only the matching secret and the untampered body', () => {
    const secret = 'sk_test_secret_one_000000000000000000000';
    const sig = signBody(body, secret);
    expect(verifyBodySignature(body, sig, secret)).toBe(true);
    expect(verifyBodySignature(body, sig, `${secret}x`)).toBe(false);
    expect(verifyBodySignature({ ...body, amount: 100.51 }, sig, secret)).toBe(false);
    expect(verifyBodySignature(body, sig.toUpperCase(), secret)).toBe(false);
  });

  it('the SDK signs every body exactly as the gateway verifies it', () => {
    const secret = 'sk_test_property_000000000000000000000000';
    const body = fc.dictionary(fc.string({ minLength: 1, maxLength: 6 }), fc.jsonValue({ maxDepth: 4 }), { maxKeys: 6 });
    fc.assert(
      fc.property(body, (b) => {
        const signed = sdkSignBody(b, secret);
        expect(signed).toBe(signBody(b, secret));
        expect(verifyBodySignature(b, signed, secret)).toBe(true);
      }),
    );
  });

  it('the recipe is written once: only sdk/node/src/signing.ts appends the secret', () => {
    const root = resolve(import.meta.dirname, '../..');
    const files = (dir: string): string[] =>
      readdirSync(join(root, dir), { withFileTypes: true }).flatMap((e) =>
        e.isDirectory() ? files(join(dir, e.name)) : e.name.endsWith('.ts') ? [join(dir, e.name)] : [],
      );
    const writers = ['shared', 'functions', 'sdk/node/src']
      .flatMap(files)
      .filter((f) => readFileSync(join(root, f), 'utf8').includes('&key=${'));
    expect(writers).toEqual(['sdk/node/src/signing.ts']);
  });
});
