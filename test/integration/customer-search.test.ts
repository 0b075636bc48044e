import { QueryCommand } from '@aws-sdk/client-dynamodb';
import { describe, expect, it } from 'vitest';
import { routeList } from '#functions/routes.ts';
import { paymentsPage } from '#shared/services/dashboard.ts';
import { db, fromItem, tableName, toValues } from '#shared/store/client.ts';
import { contactOfSearch, contactsOf, customerPartitionKey, normalizePhone } from '#shared/store/customer-index.ts';
import { newMerchant, useGateway } from '../support/gateway.ts';
import { changeStatus, seedIntent } from '../support/intents.ts';

/**
 * Dashboard search by the customer's e-mail address or phone number (shared/store/customer-index.ts,
 * docs/access-patterns.md C2-C3) on DynamoDB Local: pointer items written with the intent, one
 * Query per round, scoped to the merchant and mode, filters and cursor paging, and no copy of the
 * address or number anywhere but the payment itself.
 */
describe('customer search (dashboard payments)', () => {
  useGateway(routeList); // the local table
  const at = (minute: number) => new Date(Date.UTC(2026, 1, 3, 9, minute)).toISOString();
  const ids = (page: { items: { paymentIntentId: string }[] }) => page.items.map((t) => t.paymentIntentId);

  it('normalizes what it indexes and what is searched; indexes only e-mail and phone', () => {
    expect(normalizePhone('+92 300 1234567')).toBe('3001234567');
    expect(normalizePhone('0300-1234567')).toBe('3001234567');
    expect(normalizePhone('923001234567')).toBe('3001234567');
    expect(contactOfSearch('  Sana.Malik@Example.COM ')).toEqual({ kind: 'email', value: 'sana.malik@example.com' });
    expect(contactOfSearch('(0300) 123-4567')).toEqual({ kind: 'phone', value: '3001234567' });
    for (const text of ['ORDER1001', 'TRX12345', '12345', '3f2b8c1e-9a4d-4f6b-8c2a-1d5e7f9a0b3c', 'a@'])
      expect(contactOfSearch(text), text).toBeUndefined();
    expect(contactsOf({ name: 'Sana', cnic: '4210112345671', email: 'not an address', phone: '12' })).toEqual([]);
    expect(contactsOf(null)).toEqual([]);
  });

  it("finds a customer's payments by e-mail or phone, newest first, in this merchant and mode only, with filters and paging", async () => {
    const m = await newMerchant();
    const other = await newMerchant();
    const sana = { name: 'Sana Malik', email: 'Sana.Malik@Example.com', phone: '+92 300 1234567' };
    const seeded = [];
    for (let i = 0; i < 7; i++) {
      const intentType = i === 6 ? 'deposit' : 'checkout';
      seeded.push(await seedIntent(m.merchantId, 'test', { intentType, customerRef: sana, createdAt: at(i), updatedAt: at(i) }));
    }
    const phoneOnly = await seedIntent(m.merchantId, 'test', { customerRef: { phone: '03001234567' }, createdAt: at(7), updatedAt: at(7) });
    const someoneElse = await seedIntent(m.merchantId, 'test', { customerRef: { email: 'bilal@example.com', phone: '03331234567' } });
    const otherMerchant = await seedIntent(other.merchantId, 'test', { customerRef: sana });
    const liveMode = await seedIntent(m.merchantId, 'live', { customerRef: sana });
    await changeStatus(seeded[2]!.paymentIntentId, () => ({ to: 'Completed' }));
    await changeStatus(seeded[4]!.paymentIntentId, () => ({ to: 'Completed' }));

    const newest = [...seeded].reverse().map((s) => s.paymentIntentId);
    const byEmail = await paymentsPage(m.merchantId, 'test', { search: 'sana.malik@EXAMPLE.com' });
    expect(ids(byEmail)).toEqual(newest);
    expect(byEmail.hasMore).toBe(false);
    const byPhone = await paymentsPage(m.merchantId, 'test', { search: '0300 1234567' });
    expect(ids(byPhone)).toEqual([phoneOnly.paymentIntentId, ...newest]);
    for (const unrelated of [someoneElse, otherMerchant, liveMode]) expect(ids(byPhone)).not.toContain(unrelated.paymentIntentId);
    expect(ids(await paymentsPage(m.merchantId, 'live', { search: '+923001234567' }))).toEqual([liveMode.paymentIntentId]);
    expect(ids(await paymentsPage(other.merchantId, 'test', { search: 'sana.malik@example.com' }))).toEqual([
      otherMerchant.paymentIntentId,
    ]);
    expect(ids(await paymentsPage(m.merchantId, 'test', { search: 'nobody@example.com' }))).toEqual([]);

    // Filters apply to the customer's payments: status, type, dates.
    const completed = await paymentsPage(m.merchantId, 'test', { search: sana.email, status: 'Completed' });
    expect(ids(completed)).toEqual([seeded[4]!.paymentIntentId, seeded[2]!.paymentIntentId]);
    expect(ids(await paymentsPage(m.merchantId, 'test', { search: sana.email, intentType: 'deposit' }))).toEqual([
      seeded[6]!.paymentIntentId,
    ]);
    expect(ids(await paymentsPage(m.merchantId, 'test', { search: sana.email, from: at(2), to: at(4) }))).toEqual(
      [seeded[4], seeded[3], seeded[2]].map((s) => s!.paymentIntentId),
    );

    // Cursor paging, 3 at a time, the last page without "more"; a foreign cursor is refused.
    const pages: string[][] = [];
    let after: string | undefined;
    for (;;) {
      const page = await paymentsPage(m.merchantId, 'test', { search: sana.email, ...(after ? { startingAfter: after } : {}) }, 3);
      pages.push(ids(page));
      if (!page.hasMore) break;
      after = page.items.at(-1)!.paymentIntentId;
    }
    expect(pages).toEqual([newest.slice(0, 3), newest.slice(3, 6), newest.slice(6)]);
    await expect(paymentsPage(m.merchantId, 'test', { search: sana.email, startingAfter: otherMerchant.paymentIntentId })).rejects.toThrow(
      /not valid/,
    );
    const pagedCompleted = await paymentsPage(m.merchantId, 'test', { search: sana.email, status: 'Completed' }, 1);
    expect(ids(pagedCompleted)).toEqual([seeded[4]!.paymentIntentId]);
    expect(pagedCompleted.hasMore).toBe(true);
  });

  it('stores only the payment id beside a digest: the address and number are nowhere but on the payment', async () => {
    const m = await newMerchant();
    const intent = await seedIntent(m.merchantId, 'test', { customerRef: { email: 'zara@example.com', phone: '03211234567' } });
    for (const search of ['zara@example.com', '03211234567']) {
      const contact = contactOfSearch(search)!;
      // Read the pointer partition back raw to see what is stored.
      const page = await paymentsPage(m.merchantId, 'test', { search });
      expect(ids(page)).toEqual([intent.paymentIntentId]);
      const raw = await db().send(
        new QueryCommand({
          TableName: tableName(),
          KeyConditionExpression: 'PK = :pk',
          ExpressionAttributeValues: toValues({ ':pk': customerPartitionKey(m.merchantId, 'test', contact) }),
        }),
      );
      expect(raw.Items).toHaveLength(1);
      const item = fromItem<Record<string, unknown>>(raw.Items![0]!);
      expect(Object.keys(item).sort()).toEqual(['PK', 'SK', 'entity', 'paymentIntentId']);
      expect(String(item.PK)).toMatch(/^CUSTOMER#test#[^#]+#(email|phone)#[A-Za-z0-9_-]{43}$/);
      const text = JSON.stringify(item);
      for (const secret of ['zara', 'example.com', '3211234567']) expect(text).not.toContain(secret);
    }
  });
});
